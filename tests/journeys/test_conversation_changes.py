"""A user/assistant conversation over three sessions, handed over as agents send it (role
and content, no ``name``): the user states facts, moves city, changes job and stops eating
meat; a fourth session's context shows the current values only, and history keeps both
versions of each change with its valid interval. Also: a pet that died, a birthday, advice
that draws on the job and a recovery told in earlier sessions, and values changed in other
words ("I turned 35 last week", "I changed jobs, I'm at Spotify now") whose old turn the
context labels "earlier"; and a habit that ended ("I quit tennis") beside a move, asked
about in the user's words ("Does the user play tennis?"); and a Vespa ridden to work,
then sold, which ends the habit.

Run through Python, a real server over REST and an MCP client session, on SQLite and on
Redis + PostgreSQL (the ``drive`` fixture).
"""

from __future__ import annotations

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Who

pytestmark = pytest.mark.slow  # real server processes, six runs each

ANA = Who(user="ana", agent_type="assistant")

ADVICE = (
    "Congratulations! Here are a few things that help after a change like that:\n\n"
    "1. **Register** your new address within two weeks.\n"
    "2. Update your bank and insurance details.\n"
    "3. Explore the neighbourhood: cafés, parks, the nearest pharmacy.\n\n"
    "Many people find that the first month is the hardest. Berlin, Munich and Hamburg all "
    "have newcomer groups. How are you settling in? Would you like a checklist?"
)


def turn(day: int, minute: int, role: str, content: str) -> dict[str, str]:
    return {"role": role, "content": content,
            "timestamp": f"2024-0{day}-01T09:{minute:02d}:00+00:00"}  # fmt: skip


SESSIONS = [
    [
        turn(1, 0, "user", "Hi! I live in Munich and I work at Siemens as an engineer."),
        turn(1, 1, "assistant", "Nice to meet you! Munich is lovely. " + ADVICE),
        turn(1, 2, "user", "I eat meat, steak mostly. I have a dog named Rex."),
        turn(1, 3, "assistant", "Rex is a great name! Dogs need daily walks, you know."),
    ],
    [
        turn(3, 0, "user", "Big news: I moved to Hamburg last week!"),
        turn(3, 1, "assistant", ADVICE),
        turn(3, 2, "user", "Thanks. I also changed jobs: I now work at Airbus."),
        turn(3, 3, "assistant", "Airbus is a big employer in Hamburg. What will you do there?"),
    ],
    [
        turn(5, 0, "user", "I stopped eating meat last month."),
        turn(5, 1, "assistant", "That's a big change! Remember to get enough B12 and iron."),
    ],
]


def section(context: str, title: str) -> str:
    """One ``## title`` section of a markdown context (empty when absent)."""
    _, found, rest = context.partition(f"## {title}")
    return rest.split("\n## ", 1)[0] if found else ""


async def test_changes_told_over_three_sessions_keep_only_current_values(drive: Drive) -> None:
    async with drive() as d:
        for n, turns in enumerate(SESSIONS, start=1):
            told = await d.ingest(ANA.in_session(f"chat-{n}"), turns)
            assert len(told["stored"]) == len(turns)
        fourth = ANA.in_session("chat-4")
        context = await d.assemble(fourth, "Where does ana live and work, and what does she eat?")
        facts = section(context, "Known facts")
        assert "Hamburg" in facts
        assert "Airbus" in facts
        assert "Munich" not in facts
        assert "Siemens" not in facts
        assert "eats meat" not in facts
        # nothing the assistant said is a fact: no advice, no question, no other city
        assert "Berlin" not in facts
        assert "?" not in facts
        # history keeps both versions, each with its valid interval
        cities = await d.history(ANA, "ana", "lives_in")
        assert [c["object"] for c in cities] == ["Munich", "Hamburg"]
        assert cities[0].get("valid_to") is not None
        assert cities[0].get("valid_to") == cities[1]["valid_from"]
        assert cities[1].get("valid_to") is None
        # "last week", said on Friday 1 March: the week that began on Monday 19 February
        assert cities[1]["valid_from"].startswith("2024-02-19")
        employers = await d.history(ANA, "ana", "works_at")
        assert [e["object"] for e in employers] == ["Siemens", "Airbus"]
        assert employers[0].get("valid_to") == employers[1]["valid_from"]
        (meat,) = await d.history(ANA, "ana", "eats")
        assert meat.get("valid_to") is not None  # ended, kept as history
        assert str(meat.get("valid_to")).startswith("2024-04-01")  # "last month" of 1 May
        (dog,) = await d.history(ANA, "ana", "has_pet")
        assert dog.get("valid_to") is None


ONE_SESSION = [
    turn(6, 0, "user", "Hi! I live in Munich and I work at Siemens as an engineer."),
    turn(6, 1, "assistant", "Nice to meet you! " + ADVICE),
    turn(6, 2, "user", "Actually, I moved to Hamburg last week for a job at Airbus."),
    turn(6, 3, "assistant", "Oh, congratulations on the move and the new job!"),
    turn(6, 4, "user", "Thanks! I joined Airbus as a test pilot."),
]


async def test_a_change_told_minutes_later_replaces_what_was_said_before(drive: Drive) -> None:
    """One session: the user names a city and an employer, then, minutes later, a move
    dated a week back and a new job. The later words win, though the move is dated before
    the turn that named the old city: the old values are not current, and no version of
    them holds after the move."""
    async with drive() as d:
        told = await d.ingest(ANA.in_session("chat-1"), ONE_SESSION)
        assert len(told["stored"]) == len(ONE_SESSION)
        context = await d.assemble(ANA.in_session("chat-2"), "Where does ana live and work?")
        facts = section(context, "Known facts")
        assert "Hamburg" in facts
        assert "Airbus" in facts
        assert "test pilot" in facts
        assert "Munich" not in facts
        assert "Siemens" not in facts
        assert "for a job" not in facts  # the city alone: the job is a fact of its own
        cities = await d.history(ANA, "ana", "lives_in")
        assert [c["object"] for c in cities] == ["Hamburg"]
        # "last week", said on Saturday 1 June: the week that began on Monday 20 May
        assert cities[0]["valid_from"].startswith("2024-05-20")
        assert cities[0].get("valid_to") is None
        employers = await d.history(ANA, "ana", "works_at")
        assert [e["object"] for e in employers] == ["Airbus"]
        roles = await d.history(ANA, "ana", "works_as")
        assert [r["object"] for r in roles][-1] == "test pilot"
        assert roles[-1].get("valid_to") is None


async def test_a_pet_that_died_is_history_and_a_birthday_is_kept(drive: Drive) -> None:
    """Two sessions: the user names two pets and a birthday, then says one pet died. The
    other pet stays current; the one that died is history, closed when it was told."""
    async with drive() as d:
        await d.ingest(
            ANA.in_session("pets-1"),
            [
                turn(7, 0, "user", "We adopted a dog named Rex and a cat named Tom."),
                turn(7, 1, "assistant", "Lovely! " + ADVICE),
                turn(7, 2, "user", "My birthday is June 5th, by the way."),
            ],
        )
        await d.ingest(
            ANA.in_session("pets-2"),
            [turn(8, 0, "user", "Sadly, my dog Rex passed away yesterday.")],
        )
        pets = {p["object"]: p for p in await d.history(ANA, "ana", "has_pet")}
        assert set(pets) == {"dog named Rex", "cat named Tom"}
        assert str(pets["dog named Rex"].get("valid_to")).startswith("2024-07-31")
        assert pets["cat named Tom"].get("valid_to") is None
        (birthday,) = await d.history(ANA, "ana", "birthday")
        assert birthday["object"] == "June 5"
        context = await d.assemble(ANA.in_session("pets-3"), "What pets does ana have?")
        facts = section(context, "Known facts")
        assert "cat named Tom" in facts
        assert "has a dog named Rex" not in facts


async def test_advice_draws_on_the_job_and_health_told_in_earlier_sessions(drive: Drive) -> None:
    """The user's job and a recovery are told in passing in two sessions; a third asks for
    advice in words that name neither, and the context's facts hold both."""
    async with drive() as d:
        await d.ingest(
            ANA.in_session("health-1"),
            [
                turn(6, 0, "user", "I work night shifts as a security guard at the harbour."),
                turn(6, 1, "assistant", "Night shifts are hard on sleep. " + ADVICE),
            ],
        )
        await d.ingest(
            ANA.in_session("health-2"),
            [
                turn(6, 10, "user", "I'm recovering from knee surgery, so no running for now."),
                turn(6, 11, "assistant", "Sorry to hear that! Take it slowly."),
            ],
        )
        context = await d.assemble(
            ANA.in_session("health-3"), "What should I keep in mind when planning my workouts?"
        )
        facts = section(context, "Known facts")
        assert "works as a security guard" in facts
        assert "recovering from knee surgery" in facts


# One value each, told in the first session and changed in other words in a later one
TOLD = [
    turn(1, 0, "user", "Hi! I'm 34, I live in Denver and I work at Acme."),
    turn(1, 1, "assistant", "Nice to meet you! Denver is a lovely city."),
]
CHANGED = [
    turn(4, 0, "user", "I turned 35 last week."),
    turn(4, 1, "assistant", "Happy belated birthday!"),
    turn(4, 2, "user", "Also, we moved to Austin."),
    turn(4, 3, "assistant", "Austin is great for live music."),
    turn(4, 4, "user", "And I changed jobs, I'm at Spotify now."),
    turn(4, 5, "assistant", "Congratulations on the new job!"),
]


def lines_with(context: str, word: str) -> list[str]:
    """The context's item lines that mention ``word``."""
    return [line for line in context.splitlines() if word in line]


async def test_values_changed_in_other_words_show_the_new_one_and_mark_the_old_turn(
    drive: Drive,
) -> None:
    """Age, home and employer told in one session and changed in other words in a later
    one ("I turned 35 last week", "we moved to Austin", "I changed jobs, I'm at Spotify
    now"): the context shows the new values as facts, and the turn that stated the old
    ones, when it is shown, is labelled "earlier"."""
    async with drive() as d:
        await d.ingest(ANA.in_session("values-1"), TOLD)
        await d.ingest(ANA.in_session("values-2"), CHANGED)
        for predicate, old, new in [
            ("age", "34", "35"),
            ("lives_in", "Denver", "Austin"),
            ("works_at", "Acme", "Spotify"),
        ]:
            versions = await d.history(ANA, "ana", predicate)
            assert [v["object"] for v in versions] == [old, new], predicate
            assert versions[0].get("valid_to") is not None
            assert versions[1].get("valid_to") is None
        context = await d.assemble(
            ANA.in_session("values-3"), "How old is ana, where does she live and work?"
        )
        facts = section(context, "Known facts")
        for new in ("35 years old", "lives in Austin", "works at Spotify"):
            assert new in facts, context
        for old in ("34 years old", "Denver", "Acme"):
            assert old not in facts, context
        told = lines_with(context, "I'm 34")
        assert told, context  # the turn that stated the old values is shown ...
        assert all("earlier" in line for line in told), told  # ... labelled as replaced
        for new in ("turned 35", "moved to Austin", "Spotify now"):
            assert all("earlier" not in line for line in lines_with(context, new)), context


# A habit and a home told in one session, both changed in a later one
HABIT_AND_HOME = [
    turn(1, 0, "user", "I play tennis every Sunday."),
    turn(1, 1, "assistant", "Tennis is great exercise!"),
    turn(1, 2, "user", "I live in Denver."),
    turn(1, 3, "assistant", "Denver has lovely weather for outdoor sports."),
]
ENDED_AND_MOVED = [
    turn(4, 0, "user", "I quit tennis, my knee can't take it."),
    turn(4, 1, "assistant", "Sorry to hear about your knee. Swimming is gentle on the joints."),
    turn(4, 2, "user", "And we moved to Austin last month."),
    turn(4, 3, "assistant", "Austin is great for live music."),
]


async def test_a_habit_that_ended_and_a_home_that_changed_show_the_current_state(
    drive: Drive,
) -> None:
    """The user plays tennis every Sunday and lives in Denver; in a later session they quit
    tennis and moved to Austin. Asked whether the user plays tennis, the context holds the
    turn that quit and no current tennis fact; asked where the user lives, it shows Austin
    as the fact, and the Austin turn before the Denver turn, which is labelled "earlier"."""
    async with drive() as d:
        await d.ingest(ANA.in_session("habit-1"), HABIT_AND_HOME)
        await d.ingest(ANA.in_session("habit-2"), ENDED_AND_MOVED)
        habits = await d.history(ANA, "ana", "habit")
        assert [h["object"] for h in habits] == ["plays tennis every Sunday"]
        assert str(habits[0].get("valid_to")).startswith("2024-04-01")  # ended when told

        tennis = await d.assemble(ANA.in_session("habit-3"), "Does the user play tennis?")
        assert "tennis" not in section(tennis, "Known facts"), tennis
        assert lines_with(tennis, "I quit tennis"), tennis  # the turn that ended it is there
        assert all("earlier" not in line for line in lines_with(tennis, "quit tennis"))
        told = lines_with(tennis, "every Sunday")
        assert all("earlier" in line for line in told), told  # replaced, when shown

        home = await d.assemble(ANA.in_session("habit-3"), "Where does the user live?")
        facts = section(home, "Known facts")
        assert "lives in Austin" in facts, home
        assert "Denver" not in facts, home
        lines = home.splitlines()
        austin = [n for n, line in enumerate(lines) if "moved to Austin" in line]
        denver = [n for n, line in enumerate(lines) if "I live in Denver" in line]
        assert austin, home
        assert denver, home
        assert max(austin) < min(denver), home  # the newer turn first
        assert all("earlier" in lines[n] for n in denver), home
        assert all("earlier" not in lines[n] for n in austin), home


# A car and a pet told in one session, both gone in a later one and named more briefly
CAR_AND_PET = [
    turn(1, 0, "user", "I drive a Honda Civic to work and my cat Luna keeps me company."),
    turn(1, 1, "assistant", "Nice! How long have you had Luna?"),
]
SOLD_AND_GONE = [
    turn(4, 0, "user", "Sad news: Luna passed away yesterday."),
    turn(4, 1, "assistant", "I'm so sorry for your loss."),
    turn(4, 2, "user", "Also I sold my Civic and bought a Tesla."),
    turn(4, 3, "assistant", "Big changes! Enjoy the Tesla."),
]


async def test_a_car_sold_and_a_pet_that_died_named_briefly_are_no_longer_current(
    drive: Drive,
) -> None:
    """ "a Honda Civic" is sold as "my Civic", and "my cat Luna" dies as "Luna": both end
    (the store matches a value by its last words), the Tesla is the car now, and the turn
    that told of the Civic and the cat is labelled "earlier"."""
    async with drive() as d:
        await d.ingest(ANA.in_session("car-1"), CAR_AND_PET)
        await d.ingest(ANA.in_session("car-2"), SOLD_AND_GONE)
        for predicate, gone in (("drives", "a Honda Civic"), ("has_pet", "cat named Luna")):
            versions = await d.history(ANA, "ana", predicate)
            ended = [v for v in versions if v["object"] == gone]
            assert ended, versions
            assert all(v.get("valid_to") is not None for v in ended), versions
        context = await d.assemble(ANA.in_session("car-3"), "What car does the user drive?")
        facts = section(context, "Known facts")
        assert "drives a Tesla" in facts, context
        assert "Civic" not in facts, context
        told = lines_with(context, "Honda Civic to work")
        assert told, context
        assert all("earlier" in line for line in told), context


# A habit of riding a vehicle, and the vehicle sold in a later session
RIDES = [
    turn(1, 0, "user", "I ride my Vespa to work every day."),
    turn(1, 1, "assistant", "That sounds like a fun commute!"),
]
SOLD_VESPA = [
    turn(4, 0, "user", "I sold my Vespa."),
    turn(4, 1, "assistant", "Oh! How will you get to work now?"),
]


async def test_a_vespa_sold_is_no_longer_ridden_to_work(drive: Drive) -> None:
    """Selling what one rides ends the habit of riding it, told as "my Vespa"."""
    async with drive() as d:
        await d.ingest(ANA.in_session("vespa-1"), RIDES)
        await d.ingest(ANA.in_session("vespa-2"), SOLD_VESPA)
        habits = await d.history(ANA, "ana", "habit")
        assert [h["object"] for h in habits] == ["rides ana's Vespa to work every day"]
        assert str(habits[0].get("valid_to")).startswith("2024-04-01")  # ended when told
        context = await d.assemble(ANA.in_session("vespa-3"), "How does the user get to work?")
        assert "Vespa" not in section(context, "Known facts"), context
