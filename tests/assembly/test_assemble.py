"""What `assemble` puts in a context and why: floor, passages, replies, speakers, time."""

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from sedimem.context.models import DropReason
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.clock import ManualClock
from sedimem.types.longterm import Fact, Procedure

DAY = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
USER = Scope(tenant="t", user="zoe")
MINUTE = timedelta(minutes=1)


@pytest.fixture
async def memory(tmp_path: object) -> AsyncIterator[Memory]:
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as m:
        yield m


def turn(role: str, content: str, at: datetime, name: str | None = None) -> dict[str, object]:
    message: dict[str, object] = {"role": role, "content": content, "timestamp": at}
    if name is not None:
        message["name"] = name
    return message


async def said_by_the_user(memory: Memory, lines: list[str]) -> None:
    """One user turn a minute, from ``DAY``."""
    await memory.ingest(
        [turn("user", c, DAY + timedelta(minutes=i)) for i, c in enumerate(lines)], USER
    )


async def test_facts_must_match_the_question_or_describe_the_user(memory: Memory) -> None:
    owner = USER
    await memory.facts.learn(
        Fact(scope=owner, statement="Zoe lives in Leeds", subject="Zoe", predicate="lives_in",
             object="Leeds")
    )  # fmt: skip
    for thing in ("jazz records", "old maps", "mechanical watches", "paper kites"):
        await memory.facts.learn(Fact(scope=owner, statement=f"Zoe collects {thing}"))
    await memory.facts.learn(Fact(scope=owner, statement="Zoe's sister Ana is a dentist"))
    context = await memory.assemble("What does Zoe's sister do for work?", owner, 400)
    text = context.text or ""
    assert "dentist" in text
    assert "Leeds" in text  # describes the user: kept whatever the question
    assert "kites" not in text
    assert "maps" not in text
    floor = [d for d in context.report.dropped if d.reason is DropReason.BELOW_FLOOR]
    assert floor
    assert all(d.tier == "facts" for d in floor)
    # under half the best, or matching the question by no word and no closer meaning
    assert all("the best" in d.detail or "no word" in d.detail for d in floor)


async def test_when_nothing_matches_no_fact_or_procedure_is_shown_for_want_of_better(
    memory: Memory,
) -> None:
    """The relative floor alone would keep the best of a poor lot: a car and tennis would
    answer a question about a cat."""
    maya = Scope(tenant="t", user="maya")
    await memory.facts.learn(
        Fact(scope=maya, statement="Maya lives in Porto", subject="Maya", predicate="lives_in",
             object="Porto")
    )  # fmt: skip
    for statement in (
        "Maya drives a red Tesla",
        "Maya plays tennis every Sunday",
        "Maya collects old stamps",
        "Maya bakes sourdough bread",
    ):
        await memory.facts.learn(Fact(scope=maya, statement=statement))
    await memory.procedures.record(
        Procedure(scope=maya, name="renew a passport", trigger="when a passport expires",
                  steps=["book an appointment", "bring two photos"])
    )  # fmt: skip
    context = await memory.assemble("Does Maya still have a cat?", maya, 400)
    text = context.text or ""
    for unrelated in ("Tesla", "tennis", "stamps", "sourdough", "passport", "photos"):
        assert unrelated not in text
    assert "Porto" in text  # describes the asker: shown whatever the question
    unmatched = {d.excerpt for d in context.report.dropped if "no word" in d.detail}
    assert "Maya drives a red Tesla" in unmatched
    assert any(d.tier == "procedures" for d in context.report.dropped)
    # a question that holds the fact's word gets it
    tennis = await memory.assemble("When does Maya play tennis?", maya, 400)
    assert "Maya plays tennis every Sunday" in (tennis.text or "")
    assert "Tesla" not in (tennis.text or "")


async def test_the_users_job_and_health_describe_them_for_advice(memory: Memory) -> None:
    """Advice depends on who asks, though the question names none of it."""
    chat = [
        ("user", "I work night shifts as a security guard at the harbour."),
        ("assistant", "Night shifts can be hard on sleep. How can I help?"),
        ("user", "I'm recovering from knee surgery, so no running for now."),
        ("assistant", "Sorry to hear that! Take it easy."),
    ]
    await memory.ingest(
        [turn(r, c, DAY + timedelta(minutes=i)) for i, (r, c) in enumerate(chat)], USER
    )
    context = await memory.assemble(
        "What should I keep in mind when planning my workouts?", USER.with_session("new"), 300
    )
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert any("works as a security guard" in f for f in facts)
    assert any("recovering from knee surgery" in f for f in facts)


async def test_a_question_about_the_asker_shows_what_is_known_of_them(memory: Memory) -> None:
    """ "What do you know about me?" names none of the facts' words: every fact about the
    asker answers it, not the best three profile facts of five searched."""
    for thing in ("jazz records", "old maps", "mechanical watches", "kites"):
        await memory.facts.learn(
            Fact(scope=USER, statement=f"Zoe collects {thing}", subject="Zoe",
                 predicate="collects", object=thing)
        )  # fmt: skip
    chat = "I'm an environmentalist. I used to be in the military. I want to be a nurse."
    await memory.ingest([turn("user", chat, DAY)], USER)
    await memory.facts.learn(Fact(scope=Scope(tenant="t", user="max"), statement="Max skis"))
    context = await memory.assemble("What do you know about me?", USER.with_session("s"), 400)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    for known in ("zoe is an environmentalist.", "zoe used to be in the military.",
                  "zoe aims to become a nurse.", "Zoe collects kites"):  # fmt: skip
        assert known in facts, facts
    assert len(facts) == 7
    assert "Max skis" not in (context.text or "")  # another user's, never shown
    # asked about one thing, the rest must match it
    context = await memory.assemble("What do I collect?", USER.with_session("s"), 400)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert "zoe used to be in the military." not in facts


async def test_advice_sees_what_the_user_said_of_themself_among_many_facts(
    memory: Memory,
) -> None:
    """ "What should I cook tonight?" names nothing of "lactose intolerance": a profile fact
    the first five facts found do not hold is searched for deeper; a relative's home is
    not the user's."""
    chat = [
        "I'm lactose intolerant.",
        "My sister lives in London.",
        "I love Kirkgate Market.",
        "I grew up in Manchester.",
        "We just adopted a rescue dog named Biscuit!",
        "I play the piano.",
        "I like cooking Thai curries.",
        "I collect old cookbooks.",
        "I drive a Honda Civic.",
    ]
    await said_by_the_user(memory, chat)
    context = await memory.assemble("What should I cook tonight?", USER.with_session("s"), 400)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert "zoe has lactose intolerance." in facts, facts
    assert not any("sister" in f for f in facts), facts
    # a fact is found by its kind too: "has_pet" is what "pets" asks
    context = await memory.assemble("Do I have any pets?", USER.with_session("s"), 400)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert "zoe has a dog named Biscuit." in facts, facts


async def test_a_question_in_other_words_than_the_facts_kind_finds_it(memory: Memory) -> None:
    """ "What do I own?" (a word keyword search drops) and "How much can I spend?" (no
    word of "budget") ask for a kind of fact by words its statement does not hold."""
    chat = [
        "I have a small cabin near Lake Tahoe.",
        "My budget is about $15,000.",
        "I play the cello in an orchestra.",
        "I'm allergic to shellfish.",
        "I work at Zalando as a staff engineer.",
        "I live in Berlin.",
        "I like hiking in the Alps.",
    ]
    await said_by_the_user(memory, chat)
    for question, answer in (
        ("What do I own?", "zoe owns a small cabin near Lake Tahoe."),
        ("How much can I spend on the remodel?", "zoe's budget is $15,000."),
    ):
        context = await memory.assemble(question, USER.with_session("s"), 400)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert answer in facts, (question, facts)


async def test_what_the_user_eats_answers_a_question_about_food(memory: Memory) -> None:
    """ "What should I cook tonight?" names no diet, yet what the user does not eat, is
    allergic to or follows is what answers it, ahead of other things that describe them."""
    chat = [
        "im a nurse and i live in leeds btw",
        "Please keep your answers short.",
        "I want to run a marathon next year.",
        "i dont eat meat",
        "I'm allergic to peanuts.",
    ]
    await said_by_the_user(memory, chat)
    for question in ("What should I cook tonight?", "Any restaurant tips for lunch?"):
        context = await memory.assemble(question, USER.with_session("s"), 300)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert "zoe does not eat meat." in facts, (question, facts)
        assert "zoe is allergic to peanuts." in facts, (question, facts)
    context = await memory.assemble("Where do I work?", USER.with_session("s"), 300)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert not [f for f in facts if "meat" in f or "peanut" in f], facts


async def test_a_weight_reported_over_sessions_answers_with_the_latest(memory: Memory) -> None:
    sessions = [
        "I'm 34, I weigh 92 kg and I want to get under 85 by summer.",
        "Down to 89 kg! Also my daughter Lily started kindergarten this week.",
        "I'm at 87 kg now. I signed up for the Berlin half marathon.",
    ]
    for n, said in enumerate(sessions):
        await memory.ingest([turn("user", said, DAY + n * timedelta(days=30))], USER)
    context = await memory.assemble("How much do I weigh now?", USER.with_session("s"), 300)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert "zoe weighs 87 kg." in facts, facts
    assert not [f for f in facts if "92 kg" in f or "89 kg" in f], facts
    context = await memory.assemble("What's my target weight?", USER.with_session("s"), 300)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert "zoe aims to reach a weight under 85 by summer." in facts, facts


async def test_a_budget_changed_in_a_later_session_answers_with_the_new_one(
    memory: Memory,
) -> None:
    """ "Our budget is about $6,000", then "the budget went up to $8,000" (no "my"): the
    new value replaces the old, and the turn that told the old one is marked earlier."""
    sessions = [
        "I'm planning a trip to Japan with my girlfriend Mei. Our budget is about $6,000.",
        "Change of plans: we're going in November instead, and the budget went up to $8,000.",
    ]
    for n, said in enumerate(sessions):
        await memory.ingest([turn("user", said, DAY + n * timedelta(days=10))], USER)
    (budget,) = await memory.facts.current("zoe", "budget", scope=USER)
    assert budget.object == "$8,000"
    context = await memory.assemble("What's our budget for Japan?", USER.with_session("s"), 300)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert "zoe's budget is $8,000." in facts, facts
    assert not [f for f in facts if "$6,000" in f], facts
    (older,) = [line for line in (context.text or "").splitlines() if "$6,000" in line]
    assert "earlier" in older, context.text


def test_profile_predicates_are_ones_the_extractor_files() -> None:
    from sedimem.assembly.kinds import KIND_WORDS
    from sedimem.assembly.ranked import PROFILE
    from sedimem.extraction.vocabulary import KNOWN_PREDICATES

    assert PROFILE <= KNOWN_PREDICATES
    # "number_of_<things>" is filed for any thing counted ("has 2 children")
    assert {p for p in KIND_WORDS if not p.startswith("number_of_")} <= KNOWN_PREDICATES


async def test_a_long_assistant_answer_contributes_its_passage(memory: Memory) -> None:
    steps = [
        f"{i}. Check the {w} twice before you leave home." for i, w in enumerate("abcdefghijkl")
    ]
    answer = "Here is a checklist.\n" + "\n".join(steps[:6]) + (
        "\nFor birding, 8x42 binoculars are the usual choice.\n"
    ) + "\n".join(steps[6:])  # fmt: skip
    await memory.ingest(
        [
            turn("user", "Which binoculars should I take birding?", DAY),
            turn("assistant", answer, DAY + timedelta(seconds=5)),
        ],
        USER.with_session("s1"),
    )
    context = await memory.assemble("binoculars for birding", USER, 300)
    text = context.text or ""
    assert "8x42" in text
    assert "Check the a twice" not in text  # not the whole list
    line = next(line for line in text.splitlines() if "8x42" in line)
    assert "…" in line
    assert "(id " in line
    assert "2025-03-01" in line  # dated


async def test_a_matched_turn_brings_its_reply(memory: Memory) -> None:
    filler = [
        turn("user", f"Today I cleaned shelf number {i}.", DAY + timedelta(minutes=i))
        for i in range(30)
    ]
    qa = [
        turn("assistant", "Which band played at the festival?", DAY + timedelta(hours=2)),
        turn("user", "It was Matt Patterson, amazing voice.", DAY + timedelta(hours=2, seconds=9)),
    ]
    await memory.ingest(filler, USER.with_session("s1"))
    await memory.ingest(qa, USER.with_session("s2"))
    context = await memory.assemble("Which band played at the festival?", USER, 120)
    text = context.text or ""
    assert "festival" in text
    assert "Matt Patterson" in text
    assert text.index("festival") < text.index("Matt Patterson")  # the reply follows


async def test_the_users_own_words_come_before_the_assistants_general_answers(
    memory: Memory,
) -> None:
    # The user says it in passing, in other words than the question's; the assistant's
    # general answers hold the question's words more often. A question about the user
    # is answered by the user's turn: it must lead the episodes.
    general = [
        "Volunteering on Saturdays is a lovely habit! Shelters often need volunteers on "
        "Saturdays for walking dogs, and many shelters train new volunteers first.",
        "Saturday volunteering at a shelter or a food bank builds routine; volunteers "
        "who come every Saturday are the ones shelters value most.",
        "Where to volunteer depends on you: animal shelters, libraries and food banks all "
        "look for Saturday volunteers.",
    ]
    said = (
        "Long week: I help out at the Elm Street shelter on Saturdays, and tonight I want a "
        "quick dinner recipe with chickpeas and spinach, nothing fancy. My oven is broken, "
        "so the stove only, and my flatmate is allergic to nuts."
    )
    messages = [turn("user", said, DAY)]
    for i, text in enumerate(general):
        at = DAY + timedelta(days=i + 1)
        messages += [turn("user", "Any thoughts?", at), turn("assistant", text, at)]
    await memory.ingest(messages, USER.with_session("s1"))
    context = await memory.assemble("Where do I volunteer on Saturdays?", USER, 300)
    episodes = (context.text or "").split("## Past episodes")[1]
    first = next(line for line in episodes.splitlines() if line.startswith("- "))
    assert "Elm Street" in first, context.text
    # asked what the assistant said, its answers lead
    context = await memory.assemble("Where did you suggest I volunteer on Saturdays?", USER, 300)
    episodes = (context.text or "").split("## Past episodes")[1]
    first = next(line for line in episodes.splitlines() if line.startswith("- "))
    assert "assistant:" in first, context.text


async def test_a_long_reply_brought_beside_a_turn_is_its_passage(memory: Memory) -> None:
    tips = " ".join(
        f"Tip {i}: keep the {w} box dry and labelled." for i, w in enumerate("abcdefgh")
    )
    await memory.ingest(
        [
            turn("user", "Is a Brompton folding bike good for a commute by train?", DAY),
            turn("assistant", f"Great choice! {tips} Enjoy the rides.", DAY + timedelta(seconds=5)),
        ],
        USER.with_session("s1"),
    )
    filler = [
        turn("user", f"Today I cleaned shelf number {i} of the garage.", DAY) for i in range(40)
    ]
    await memory.ingest(filler, USER.with_session("s0"))  # the search's depth is full
    context = await memory.assemble("folding bike for a train commute", USER, 400)
    lines = (context.text or "").split("## Past episodes")[1].splitlines()
    reply = next(line for line in lines if "assistant:" in line)
    assert "Brompton" in (context.text or "")
    assert "(id " in reply  # cut, with the id to fetch it whole
    assert "Tip 7" not in reply or "Tip 0" not in reply  # never the whole answer


async def test_the_named_speakers_own_words_come_first(memory: Memory) -> None:
    scope = Scope(tenant="t", project="chat")
    at = DAY
    turns = []
    for i in range(6):
        turns.append(turn("user", f"Caroline, did you like painting number {i}?", at, "Melanie"))
        at += timedelta(seconds=1)
    turns.append(turn("user", "I love painting sunsets by the lake.", at, "Caroline"))
    await memory.ingest(turns, scope.with_session("s1"))
    context = await memory.assemble("What does Caroline like painting?", scope, 60)
    first = next(line for line in (context.text or "").splitlines() if line.startswith("- "))
    assert "sunsets" in first


async def test_a_turn_whose_value_was_replaced_is_earlier(memory: Memory) -> None:
    """The turn that stated a value since replaced ranks after the one that replaced it,
    labelled earlier; it is still there for "what was it before?"."""
    await memory.ingest(
        [turn("user", "My budget for the trip is 2000 euros.", DAY)], USER.with_session("s1")
    )
    await memory.ingest(
        [turn("user", "We raised the budget to 3000 euros.", DAY + timedelta(days=5))],
        USER.with_session("s2"),
    )
    context = await memory.assemble("What is my budget for the trip?", USER, 300)
    episodes = (context.text or "").split("## Past episodes")[1]
    old = next(line for line in episodes.splitlines() if "2000 euros" in line)
    new = next(line for line in episodes.splitlines() if "3000 euros" in line)
    assert "earlier" in old
    assert "earlier" not in new
    assert episodes.index(new) < episodes.index(old)
    facts = (context.text or "").split("## Known facts")[1].split("##")[0]
    assert "3000 euros" in facts
    assert "2000 euros" not in facts


async def test_a_turn_that_also_told_other_things_is_earlier_for_the_value_replaced(
    memory: Memory,
) -> None:
    await memory.ingest(
        [turn("user", "I'm planning a trip with my husband Tom. Our budget is 5000 dollars.",
              DAY)],
        USER.with_session("s1"),
    )  # fmt: skip
    await memory.ingest(
        [turn("user", "We raised the trip budget to 6500 dollars.", DAY + timedelta(days=9))],
        USER.with_session("s2"),
    )
    context = await memory.assemble("What is my budget for the trip?", USER, 400)
    episodes = (context.text or "").split("## Past episodes")[1]
    old = next(line for line in episodes.splitlines() if "5000 dollars" in line)
    new = next(line for line in episodes.splitlines() if "6500 dollars" in line)
    assert "earlier" in old
    assert "earlier" not in new
    assert episodes.index(new) < episodes.index(old)


async def test_the_older_turn_comes_after_the_one_that_replaced_it(memory: Memory) -> None:
    """The old turn matches the question's words better ("live", "work"), yet the turn
    that replaced its values is read first."""
    await memory.ingest(
        [turn("user", "I live in Denver and I work at Acme.", DAY)], USER.with_session("s1")
    )
    await memory.ingest(
        [turn("user", "We moved to Austin, and I changed jobs, I'm at Spotify now.",
              DAY + timedelta(days=30))],
        USER.with_session("s2"),
    )  # fmt: skip
    context = await memory.assemble("Where do I live and work?", USER, 400)
    episodes = (context.text or "").split("## Past episodes")[1]
    old = next(line for line in episodes.splitlines() if "Denver" in line)
    new = next(line for line in episodes.splitlines() if "Austin" in line)
    assert "earlier" in old
    assert episodes.index(new) < episodes.index(old)


async def test_the_reply_to_an_earlier_turn_is_earlier_too(memory: Memory) -> None:
    await memory.ingest(
        [
            turn("user", "I live in Denver.", DAY),
            turn("assistant", "Denver is a lovely city with great hiking.", DAY + MINUTE),
        ],
        USER.with_session("s1"),
    )
    await memory.ingest(
        [turn("user", "We moved to Austin last month.", DAY + timedelta(days=40))],
        USER.with_session("s2"),
    )
    context = await memory.assemble("Where do I live?", USER, 400)
    lines = (context.text or "").split("## Past episodes")[1].splitlines()
    said = next(line for line in lines if "I live in Denver" in line)
    answered = next(line for line in lines if "Denver is a lovely city" in line)
    moved = next(line for line in lines if "moved to Austin" in line)
    assert "earlier" in said
    assert "earlier" in answered
    assert "earlier" not in moved


async def test_of_two_values_the_newer_comes_first(memory: Memory) -> None:
    session = USER.with_session("s1")
    await memory.ingest(
        [turn("user", "I have seen 27 bird species so far this year.", DAY)], session
    )
    await memory.ingest(
        [
            turn(
                "user",
                "I have now seen 32 bird species so far this year!",
                DAY + timedelta(days=30),
            )
        ],
        USER.with_session("s2"),
    )
    context = await memory.assemble("How many bird species have I seen?", USER, 400)
    text = context.text or ""
    assert text.index("32") < text.index("27")
    older = next(line for line in text.splitlines() if "27 bird" in line)
    assert "earlier" in older
    # the running count is a fact of one value at a time: only the newer is known
    facts = text.partition("## Known facts")[2].split("\n## ", 1)[0]
    assert "count of bird species is 32" in facts
    assert "27" not in facts


async def test_questions_about_time_get_items_in_time_order(memory: Memory) -> None:
    for days, place in ((40, "Rome"), (0, "Oslo"), (20, "Lima")):
        await memory.ingest(
            [turn("user", f"I flew to {place} for a conference trip.", DAY + timedelta(days=days))],
            USER.with_session(place),
        )
    context = await memory.assemble("Which conference trip came first?", USER, 400)
    text = context.text or ""
    assert text.index("Oslo") < text.index("Lima") < text.index("Rome")


async def test_a_question_naming_a_day_draws_what_was_said_that_day(memory: Memory) -> None:
    """Forty days of exciting news outrank, by their words, the one turn of the day the
    question names; that turn is drawn from the day itself and comes first."""
    for n in range(40):
        at = DAY + timedelta(days=n)
        said = f"Exciting news to share: the garden project {n} is going great!"
        await memory.ingest([turn("user", said, at)], USER.with_session(f"day-{n}"))
    gym = DAY + timedelta(days=60)
    await memory.ingest(
        [turn("user", "Big news, I joined a gym last week!", gym)], USER.with_session("gym")
    )
    dated = await memory.assemble(f"What exciting news did I share on {gym:%d %B, %Y}?", USER, 300)
    first = next(line for line in (dated.text or "").splitlines() if line.startswith("- "))
    assert "joined a gym" in first, dated.text
    undated = await memory.assemble("What exciting news did I share?", USER, 300)
    assert "joined a gym" not in (undated.text or "")


async def test_a_question_naming_a_time_relative_to_now_draws_what_was_said_then(
    tmp_path: object,
) -> None:
    """ "Yesterday" counts from the memory's clock: forty better-worded days of news do not
    keep yesterday's one turn out; the same question a week later names another day."""
    gym = DAY + timedelta(days=60)
    clock = ManualClock((gym + timedelta(days=1)).timestamp())
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db", clock=clock) as memory:
        for n in range(40):
            said = f"Exciting news to share: the garden project {n} is going great!"
            await memory.ingest(
                [turn("user", said, DAY + timedelta(days=n))], USER.with_session(f"day-{n}")
            )
        await memory.ingest(
            [turn("user", "Big news, I joined a gym last week!", gym)], USER.with_session("gym")
        )
        asked = "What exciting news did I share yesterday?"
        context = await memory.assemble(asked, USER, 300)
        first = next(line for line in (context.text or "").splitlines() if line.startswith("- "))
        assert "joined a gym" in first, context.text
        clock.advance(timedelta(days=7).total_seconds())
        assert "joined a gym" not in ((await memory.assemble(asked, USER, 300)).text or "")


@pytest.mark.parametrize("question", ["?", "x", "¿Dónde vive Zoe ahora?", "猫の名前は"])
async def test_odd_questions_and_tiny_budgets(memory: Memory, question: str) -> None:
    await memory.ingest([turn("user", "I live in Leeds with my cat Miso.", DAY)], USER)
    for budget in (1, 5, 50):
        context = await memory.assemble(question, USER, budget)
        assert context.tokens_used <= budget
        placed = {i.id for i in context.report.included}
        assert placed.isdisjoint({d.id for d in context.report.dropped})
        if budget == 1:
            assert not placed
            assert context.report.dropped  # said, not silently left out
