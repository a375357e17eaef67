"""What kind of fact a question asks for, and the asker's facts of that kind read beside
the search."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sedimem.assembly.kinds import asked, pets, relatives
from sedimem.assembly.question import read_question
from sedimem.memory import Memory
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.scope import Scope

AT = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("What medication am I on?", {"takes", "has_condition"}),  # "medic"
        (
            "How many kids do I have?",
            {"number_of_children", "child", "son", "daughter", "has_child"},
        ),
        ("Do I have a driver's license?", {"holds"}),
        ("Which college did my son get into?", {"admitted_to", "attends"}),
        ("Where am I from?", {"comes_from", "grew_up_in", "moved_from", "nationality"}),
        ("What am I studying at school?", {"learning", "studying_for", "admitted_to", "attends"}),
        ("What should I cook tonight?", {"allergic_to", "diet", "does_not_eat"}),
        ("Any dietary restrictions?", {"allergic_to", "diet", "does_not_eat"}),
        ("What time do I usually go to bed?", {"habit"}),
        (
            "Where did I live before I moved here?",
            {"lives_in", "lives", "moved_from", "lives_with"},
        ),
        ("Who do I live with?", {"lives_in", "lives", "moved_from", "lives_with"}),
        ("What did Caroline research about adoption agencies?", set()),
        ("?", set()),
    ],
)
def test_the_kinds_a_question_asks_for(question: str, kinds: set[str]) -> None:
    assert asked(read_question(question, Analyzer())) == kinds


def turn(content: str) -> dict[str, object]:
    return {"role": "user", "content": content, "timestamp": AT}


async def test_the_askers_facts_of_the_kind_asked_and_nobody_elses(tmp_path: Path) -> None:
    ana, ben = Scope(tenant="t", user="ana"), Scope(tenant="t", user="ben")
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        await memory.ingest(
            [turn("I take metformin for my diabetes."), turn("I play guitar on weekends."),
             turn("I'm a nurse at St. Mary's."), turn("I have a dog named Rex.")],
            ana.with_session("a"),
        )  # fmt: skip
        await memory.ingest([turn("I take ibuprofen for my back pain.")], ben.with_session("b"))
        context = await memory.assemble("What medication am I on?", ana.with_session("s"), 120)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert "ana takes metformin." in facts
        assert not [f for f in facts if "ibuprofen" in f]  # ben's, never ana's context
        context = await memory.assemble("What medication am I on?", ben.with_session("s"), 120)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert "ben takes ibuprofen." in facts
        assert not [f for f in facts if "metformin" in f]


def test_the_relatives_a_question_names_by_kind() -> None:
    analyzer = Analyzer()
    assert relatives(read_question("What should I get my husband?", analyzer)) == ["spouse"]
    assert relatives(read_question("Gift ideas for mom and my sister?", analyzer)) == [
        "mother",
        "sister",
    ]
    assert relatives(read_question("What should I cook tonight?", analyzer)) == []
    # a relation in several words is read whole: a father-in-law is no father
    question = read_question("What can my father-in-law eat?", analyzer)
    assert relatives(question) == ["father-in-law"]
    question = read_question("A gift for my best friend and my stepdad?", analyzer)
    assert relatives(question) == ["friend", "stepfather"]


async def test_a_relative_named_by_kind_brings_what_was_said_of_them(tmp_path: Path) -> None:
    jo, kim = Scope(tenant="t", user="jo"), Scope(tenant="t", user="kim")
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        await memory.ingest(
            [turn("Looking for a gift for my husband, he's really into golf and whiskey."),
             turn("I'm a nurse at St. Mary's."), turn("I play guitar on weekends."),
             turn("I take metformin for my diabetes."), turn("I have a dog named Rex."),
             turn("I live in Leeds."), turn("I bike to work."), turn("I'm learning Spanish."),
             turn("I hate cilantro."), turn("I'm afraid of heights."), turn("I use VS Code."),
             turn("I drive a Tesla Model 3."), turn("I have two sisters."),
             turn("I grew up in Texas."), turn("I prefer aisle seats."),
             turn("I work from home on Fridays."), turn("I'm training for a marathon."),
             # the question's own words, in facts that do not answer it
             turn("My birthday is June 5."), turn("My mom's birthday is May 2."),
             turn("My sister's birthday is July 9."), turn("My dad's birthday is March 3."),
             turn("My brother's birthday is May 20."), turn("I usually wake up at 6am."),
             turn("I always get up early on birthdays."), turn("My boss's birthday is May 1.")],
            jo.with_session("a"),
        )  # fmt: skip
        await memory.ingest([turn("My husband loves fishing.")], kim.with_session("b"))
        question = "What should I get my husband for his birthday?"
        context = await memory.assemble(question, jo.with_session("s"), 300)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert {"jo's spouse likes golf.", "jo's spouse likes whiskey."} <= set(facts), facts
        assert not [f for f in facts if "fishing" in f]  # kim's husband, never jo's context


def test_the_pets_a_question_names_by_kind() -> None:
    analyzer = Analyzer()
    assert pets(read_question("How is my cat doing?", analyzer)) == ["cat"]
    assert pets(read_question("Are the puppies and the dogs fed?", analyzer)) == ["dog", "puppy"]
    assert pets(read_question("What should I cook tonight?", analyzer)) == []


async def test_a_relative_or_pet_the_user_named_is_found_by_its_kind(tmp_path: Path) -> None:
    """What was said of Mia and Luna is filed under their names ("Luna has diabetes"); a
    question about "my sister" or "my cat" shares no word with it, and finds it through
    the fact that named them ("ana has a cat named Luna")."""
    ana, kim = Scope(tenant="t", user="ana"), Scope(tenant="t", user="kim")
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        filler = [turn(f"Can you help me plan step {i} of the garden project?") for i in range(30)]
        await memory.ingest(
            [turn("Our cat Luna was diagnosed with diabetes."),
             turn("My sister Mia is a nurse in Chicago."),
             turn("I have a dog named Rex."), turn("I work at Acme."), *filler],
            ana.with_session("a"),
        )  # fmt: skip
        # another user's sister and cat of the same names: never in ana's context
        await memory.ingest(
            [turn("My sister Mia is a pilot."), turn("My cat Luna is a Siamese.")],
            kim.with_session("b"),
        )
        for question, wanted in (
            ("How is my cat doing?", {"ana has a cat named Luna.", "Luna has diabetes."}),
            ("What does my sister do?", {"ana's sister is Mia.", "Mia works as a nurse."}),
        ):
            context = await memory.assemble(question, ana.with_session("s"), 200)
            facts = [i.text for i in context.report.included if i.tier == "facts"]
            assert wanted <= set(facts), (question, facts)
            assert not [f for f in facts if "pilot" in f or "Siamese" in f], facts
        # the dog is no cat: "How is my cat doing?" brought Luna's facts, not Rex's
        context = await memory.assemble("How is my cat doing?", ana.with_session("s"), 200)
        assert "Rex" not in "".join(i.text for i in context.report.included if i.tier == "facts")


async def test_news_of_a_relative_told_by_name_in_a_later_session(tmp_path: Path) -> None:
    """ "My wife Priya" in one session, "Quick one: Priya is pregnant!" in another: the
    news is Priya's (her name is known from the first), and "Is my wife expecting?"
    (no word of it) finds it through "sam's spouse is Priya"."""
    sam = Scope(tenant="t", user="sam")
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        await memory.ingest(
            [turn("My wife Priya sometimes comes to the gym with me.")], sam.with_session("a")
        )
        later = {"role": "user", "content": "Quick one: Priya is pregnant! So I might have less "
                 "time soon.", "timestamp": datetime(2026, 3, 20, 9, 0, tzinfo=UTC)}  # fmt: skip
        await memory.ingest([later], sam.with_session("b"))
        (news,) = await memory.facts.current("Priya", "has_condition", scope=sam)
        assert news.object == "a pregnancy"
        context = await memory.assemble("Is my wife expecting?", sam.with_session("c"), 200)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert {"sam's spouse is Priya.", "Priya has a pregnancy."} <= set(facts), facts


async def test_a_trip_planned_answers_where_one_travels(tmp_path: Path) -> None:
    """ "Where am I traveling this summer?" shares no word with "dana is planning a trip to
    Portugal": a plan is the kind of fact travel asks for."""
    dana = Scope(tenant="t", user="dana")
    said = [
        "Hi, I'm Dana. I'm a pediatric nurse at Boston Children's and I live in Somerville.",
        "I'm allergic to peanuts, shellfish and eggs.",
        "My husband Raj is a software engineer at HubSpot. We have two kids, Aria (6) and Leo (3).",
        "I play the cello in a community orchestra and I run 5k every Saturday.",
        "We have a golden retriever named Mango.",
        "I'm training for the Boston Marathon in April.",
        "My mom lives with us since her hip surgery.",
        "I drive a Subaru Outback.",
        "I'm trying to cut down on caffeine.",
        "We're planning a trip to Portugal in June.",
    ]
    start = datetime(2025, 2, 1, 18, tzinfo=UTC)
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        for n, text in enumerate(said):  # a session each, the assistant answering
            at = start + timedelta(days=3 * n)
            user = {"role": "user", "content": text, "timestamp": at}
            reply = {"role": "assistant", "content": "Thanks for sharing! Anything else I can "
                     "help with today?", "timestamp": at + timedelta(minutes=1)}  # fmt: skip
            await memory.ingest([user, reply], dana.with_session(f"s{n}"))
        question = "Where am I traveling this summer?"
        context = await memory.assemble(question, dana.with_session("x"), 250)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert "dana is planning a trip to Portugal." in facts, facts


async def test_a_named_relatives_facts_describe_them_not_the_user(tmp_path: Path) -> None:
    """ "My husband Raj is a software engineer at HubSpot": Raj's job is no profile fact of
    the user's (it took a place among the three that describe them in every context), and
    it answers "What does my husband do?"."""
    dana = Scope(tenant="t", user="dana")
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        said = ["My husband Raj is a software engineer at HubSpot.",
                "I'm allergic to peanuts, shellfish and eggs.", "I'm a nurse in Boston.",
                "I'm trying to cut down on caffeine."]  # fmt: skip
        await memory.ingest([turn(t) for t in said], dana.with_session("a"))
        (job,) = await memory.facts.current("Raj", "works_at", scope=dana)
        assert job.metadata["about"] == "other"  # of someone the user named
        context = await memory.assemble("What should I cook tonight?", dana.with_session("x"), 250)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert not [f for f in facts if "Raj" in f], facts
        context = await memory.assemble("What does my husband do?", dana.with_session("x"), 250)
        facts = [i.text for i in context.report.included if i.tier == "facts"]
        assert {"Raj works at HubSpot.", "Raj works as a software engineer."} <= set(facts), facts
