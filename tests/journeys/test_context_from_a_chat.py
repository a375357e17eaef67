"""What ``assemble`` hands a model after a user/assistant chat over three sessions, through
Python, a real server over REST and an MCP client session, on SQLite and on
Redis + PostgreSQL (the ``drive`` fixture):

- a long assistant answer contributes the passage that answers, with its date and its
  handle, by which the same interface reads the whole answer; never the whole list;
- of two counts of one thing, the newer comes first and the older is marked ``earlier``;
- every fact and episode shows its date, and no fact points at something said elsewhere;
- what the user is and means to become, said in passing, describes them in any context;
- what the user has, and a car sold for another: the new one is driven, the old turn earlier;
- a question naming a day, with its year or relative to now ("yesterday"), draws that day;
- a family named once is known by name later, and "we finally moved" is the planned move;
- chat typed casually, a standing request about answers and a weight told as progress;
- a medicine, a husband's tastes, an interview and a choice said in passing answer
  questions that share none of their words.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Driver, Who

pytestmark = pytest.mark.slow  # real server processes, six runs

SAM = Who(user="sam", agent_type="assistant")

ANSWER = (
    "Good question. Here is how to choose:\n"
    "1. Magnification: 8x is steadier in the hand than 10x.\n"
    "2. Objective size: 42 mm gathers enough light for dawn and dusk.\n"
    "3. Weight: under 700 g, or your neck will tell you after an hour.\n"
    "4. Waterproofing: nitrogen-filled bodies do not fog up.\n"
    "5. Close focus: under 2.5 m helps with butterflies too.\n"
    "Within 200 euros I recommend the Nikon Prostaff P7 8x42; the Kite Lynx 8x30 is a "
    "lighter option.\n"
    "6. Try them in a shop before you buy, if you can.\n"
    "7. Keep the lens caps on when you walk."
)


def turn(month: int, minute: int, role: str, content: str) -> dict[str, str]:
    return {"role": role, "content": content,
            "timestamp": f"2026-0{month}-02T18:{minute:02d}:00+00:00"}  # fmt: skip


SESSIONS = [
    [
        turn(3, 0, "user", "Hi! I'm Sam. I just started birdwatching and I live in Berlin."),
        turn(3, 1, "assistant", "Welcome to birding, Sam! Do you have binoculars yet?"),
        turn(3, 2, "user", "Not yet. Which binoculars should I buy? My budget is 200 euros."),
        turn(3, 3, "assistant", ANSWER),
    ],
    [
        turn(4, 0, "user", "Update: I've seen 27 species so far this year!"),
        turn(4, 1, "assistant", "That's a great start! Which one was your favourite?"),
        turn(4, 2, "user", "A kingfisher on the Spree. I go out every Saturday morning now."),
    ],
    [
        turn(5, 0, "user", "Big news: I moved to Hamburg last week!"),
        turn(5, 1, "assistant", "Congratulations! The Elbe marshes are wonderful for waders."),
        turn(5, 2, "user", "And I'm at 32 species now."),
    ],
]

#: An item line of the markdown context: "- **<date>[ <label>]**: <text>".
ITEM = re.compile(r"^- \*\*(\d{4}-\d{2}-\d{2})( earlier)?\*\*: (.*)$")


def items(context: str, title: str) -> list[tuple[str, bool, str]]:
    """(date, marked earlier, text) of each item of one ``## title`` section."""
    _, found, rest = context.partition(f"## {title}")
    assert found, f"no {title!r} section in:\n{context}"
    lines = rest.split("\n## ", 1)[0].splitlines()
    parsed = [ITEM.match(line) for line in lines if line.startswith("- ")]
    assert all(parsed), f"an item of {title!r} without its date:\n{context}"
    return [(m[1], m[2] is not None, m[3]) for m in parsed if m is not None]


async def test_a_chat_gives_passages_newer_values_first_and_dates(drive: Drive) -> None:
    async with drive() as d:
        for n, turns in enumerate(SESSIONS, start=1):
            await d.ingest(SAM.in_session(f"chat-{n}"), turns)
        asking = SAM.in_session("chat-4")

        context = await d.assemble(asking, "Which binoculars did you recommend?", 250)
        (answer,) = [text for _, _, text in items(context, "Past episodes") if "Nikon" in text]
        # the passage around the line that answers, with its handle to fetch the rest ...
        assert "Within 200 euros I recommend the Nikon Prostaff P7 8x42" in answer
        named = re.search(r"\(id ([0-9a-f]{10})\)$", answer)
        assert named, answer
        # ... not the whole seven-point list
        assert "1. Magnification" not in answer
        assert "…" in answer
        # which this interface reads whole by that handle
        whole = await d.read(named[1])
        assert whole["kind"] == "episode"
        assert whole["id"].endswith(named[1])
        assert "1. Magnification" in whole["record"]["description"]
        assert (await d.read(whole["id"]))["record"] == whole["record"]

        context = await d.assemble(asking, "How many bird species have I seen?", 250)
        episodes = items(context, "Past episodes")
        counts = [(date, earlier) for date, earlier, text in episodes if "species" in text]
        assert counts[:2] == [("2026-05-02", False), ("2026-04-02", True)], context
        # facts are dated too, by since when they hold: "last week", told on Saturday
        # 2 May, is the week that began on Monday 20 April; Berlin was closed by the move
        facts = {text: date for date, _, text in items(context, "Known facts")}
        assert facts.get("sam lives in Hamburg.") == "2026-04-20", context
        assert not any("Berlin" in text for text in facts)

        # what points at something said elsewhere is no fact: "making this" of what?
        said = "Look at my new birdhouse! I love making this. I love the taste of it."
        await d.ingest(SAM.in_session("chat-5"), [turn(6, 0, "user", said)])
        context = await d.assemble(asking, "What do I love making?", 400)
        assert "birdhouse" in context  # the turn is there, as an episode
        known = " ".join(text for _, _, text in items(context, "Known facts"))
        assert "making this" not in known, context
        assert "taste of it" not in known, context

        # who the user is, said in passing and in agreement, describes them in any context
        said = (
            "Oh, I love hiking too! I'm an environmentalist, so I walk everywhere. "
            "I used to be in the military. I want to be a marine biologist."
        )
        await d.ingest(SAM.in_session("chat-6"), [turn(7, 0, "user", said)])
        context = await d.assemble(asking, "What do you know about me?", 400)
        known = [text for _, _, text in items(context, "Known facts")]
        assert "sam is an environmentalist." in known, context
        assert "sam aims to become a marine biologist." in known, context
        context = await d.assemble(asking, "Did I serve in the military?", 400)
        known = [text for _, _, text in items(context, "Known facts")]
        assert "sam used to be in the military." in known, context
        context = await d.assemble(asking, "Do I like hiking?", 400)
        assert "sam likes hiking." in [text for _, _, text in items(context, "Known facts")]

        # what the user has, and the car sold for another a session later
        said = "I have a vintage Land Rover Defender, so I can reach the marshes at dawn."
        await d.ingest(SAM.in_session("chat-7"), [turn(8, 0, "user", said)])
        sold = "I also sold the Defender and bought an electric Volvo, fuel cost too much."
        await d.ingest(SAM.in_session("chat-8"), [turn(9, 0, "user", sold)])
        context = await d.assemble(asking, "What car do I drive?", 400)
        known = [text for _, _, text in items(context, "Known facts")]
        assert "sam drives an electric Volvo." in known, context
        assert not any("Defender" in text for text in known), context
        context = await d.assemble(asking, "Do I still have the Land Rover?", 400)
        assert not any("Defender" in text for _, _, text in items(context, "Known facts"))
        turns = {text: early for _, early, text in items(context, "Past episodes")}
        assert turns.get(f"user: {said}") is True, context  # what it said no longer holds


async def test_a_question_about_yesterday_draws_that_day(drive: Drive) -> None:
    """ "Yesterday" counts from the memory's own clock, whichever interface asks: forty
    better-worded days of news do not keep yesterday's one turn out."""
    now = datetime.now(UTC)
    news = [
        {"role": "user", "timestamp": (now - timedelta(days=60 - n)).isoformat(),
         "content": f"Exciting news to share: the garden project {n} is going great!"}
        for n in range(40)
    ]  # fmt: skip
    gym = {"role": "user", "timestamp": (now - timedelta(days=1)).isoformat(),
           "content": "Big news, I joined a gym last week!"}  # fmt: skip
    async with drive() as d:
        await d.ingest(SAM.in_session("garden"), news)
        await d.ingest(SAM.in_session("gym"), [gym])
        yesterday = now - timedelta(days=1)
        for asked in ("yesterday", f"on {yesterday:%d %B, %Y}"):
            context = await d.assemble(SAM, f"What exciting news did I share {asked}?", 300)
            first = next(line for line in context.splitlines() if line.startswith("- "))
            assert "joined a gym" in first, context


FAMILY = [
    [
        turn(2, 0, "user", "Hi, I'm Priya. I need help planning weeknight dinners for my family."),
        turn(2, 1, "assistant", "Happy to help! Who are you cooking for?"),
        turn(2, 2, "user", "My husband Arjun and our two kids, Maya who is 7 and Dev who is 4. "
                           "Arjun is vegetarian and Dev can't have dairy."),
    ],
    [
        turn(3, 0, "user", "Arjun started eating fish again, by the way, so he's pescatarian now."),
        turn(3, 1, "user", "I live in Leeds, but we're moving to Manchester in April."),
    ],
    [
        turn(4, 0, "user", "We finally moved! Maya turns 8 next week and wants a unicorn cake."),
    ],
]  # fmt: skip


async def known_facts(d: Driver, asking: Who, question: str) -> tuple[str, list[str]]:
    """The context for ``question`` (300 tokens) and the texts of its known facts."""
    context = await d.assemble(asking, question, 300)
    return context, [text for _, _, text in items(context, "Known facts")]


async def test_the_family_told_once_is_known_by_name_in_later_sessions(drive: Drive) -> None:
    """A husband and two children introduced in the first session are spoken of by name
    afterwards: what is said of them then updates what is known of them, and "we finally
    moved" is the move planned before, whichever interface asks."""
    priya = Who(user="priya", agent_type="assistant")
    async with drive() as d:
        for n, turns in enumerate(FAMILY, start=1):
            await d.ingest(priya.in_session(f"family-{n}"), turns)
        asking = priya.in_session("family-4")

        context, known = await known_facts(d, asking, "What does Arjun eat?")
        assert "Arjun is pescatarian." in known, context
        assert "Arjun is vegetarian." not in known, context

        context, known = await known_facts(d, asking, "How old is Maya?")
        assert "Maya is 8 years old." in known, context
        assert "Maya is 7 years old." not in known, context

        context, known = await known_facts(d, asking, "What should I cook tonight?")
        assert "Dev does not eat dairy." in known, context

        # "We finally moved!" is the move planned a session before
        context, known = await known_facts(d, asking, "Where do I live?")
        assert "priya lives in Manchester." in known, context
        assert "priya lives in Leeds." not in known, context

        context, known = await known_facts(d, asking, "How many kids do I have?")
        assert "priya has 2 children." in known, context


CASUAL = [
    [
        turn(2, 0, "user", "hey! im ana, i live in leeds and im a nurse btw"),
        turn(2, 1, "assistant", "Nice to meet you, Ana! How can I help today?"),
        turn(2, 2, "user", "Please keep your answers short. im at 88 kg now"),
    ],
    [turn(3, 0, "user", "Down to 85 kg!")],
]


async def test_chat_typed_casually_and_a_standing_request(drive: Drive) -> None:
    """Turns typed as people chat ("im a nurse btw"), a standing request about answers and
    a weight reported as progress, told through any interface, are in later contexts."""
    ana = Who(user="ana", agent_type="assistant")
    async with drive() as d:
        for n, turns in enumerate(CASUAL, start=1):
            await d.ingest(ana.in_session(f"casual-{n}"), turns)
        asking = ana.in_session("casual-3")
        context, known = await known_facts(d, asking, "How much do I weigh now?")
        assert "ana weighs 85 kg." in known, context
        assert "ana weighs 88 kg." not in known, context
        context, known = await known_facts(d, asking, "What do I do for work?")
        assert "ana works as a nurse." in known, context
        # how to answer is part of every context, whatever is asked
        context, known = await known_facts(d, asking, "Any tips for my garden?")
        assert "ana prefers short answers." in known, context


DAYS = [
    [
        turn(2, 0, "user", "hi! quick one - I take metformin for my diabetes, anything I "
                           "should avoid eating?"),
        turn(2, 1, "assistant", "With metformin, limit alcohol and keep carbs steady."),
        turn(2, 2, "user", "Thanks. Also looking for a gift for my husband, he's really into "
                           "golf and whiskey."),
    ],
    [
        turn(3, 0, "user", "I have a job interview at Google on Friday! I'm a nurse at "
                           "St. Mary's now."),
        turn(3, 1, "user", "We decided to go with the blue sofa in the end, by the way."),
    ],
    # what she says of birthdays holds the later question's words, not its answer
    [turn(4, m, "user", said) for m, said in enumerate([
        "My birthday is June 5.", "My mom's birthday is May 2.",
        "My sister's birthday is July 9.", "My dad's birthday is March 3.",
        "My brother's birthday is May 20.", "I always get up early on birthdays.",
        "My boss's birthday is May 1.", "I live in Leeds.", "I bike to work.",
        "I have a dog named Rex.", "I'm learning Spanish.", "I hate cilantro.",
    ])],
]  # fmt: skip


async def test_what_was_said_in_passing_answers_later_questions(drive: Drive) -> None:
    """A medicine, a husband's tastes, an interview and a choice, each said in passing in a
    chatty turn, answer questions that share none of their words, through any interface:
    the asker's facts of the kind asked, and a relative's, are read beside the search."""
    jo = Who(user="jo", agent_type="assistant")
    async with drive() as d:
        for n, turns in enumerate(DAYS, start=1):
            await d.ingest(jo.in_session(f"days-{n}"), turns)
        asking = jo.in_session("days-4")
        context, known = await known_facts(d, asking, "What medication am I on?")
        assert "jo takes metformin." in known, context
        question = "What should I get my husband for his birthday?"
        context, known = await known_facts(d, asking, question)
        # (at 300 tokens the second, alike in words, may give way to a birthday)
        assert {"jo's spouse likes golf.", "jo's spouse likes whiskey."} & set(known), context
        context, known = await known_facts(d, asking, "When is my interview?")
        assert "jo has a job interview at Google." in known, context
        context, known = await known_facts(d, asking, "Which sofa did we pick?")
        assert "jo chose the blue sofa." in known, context
