"""The people close to the user, across turns: names told once, then used alone; "he" and
"she" for the one person a sentence named; children named with their ages; what one
"can't have"; an age a birthday brings."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sedimem.extraction import extract_statements
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import AT, said, user_turn


def knowing(text: str, *people: str) -> list[str]:
    """The statements ``text`` files when ``people`` are the user's known relatives."""
    found = extract_statements(text, "ana", AT, role="user", people=people)
    return [s.fact.statement for s in found]


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("Arjun is pescatarian now.", "Arjun is pescatarian."),
        ("Arjun started eating fish again, so he's pescatarian now.", "Arjun is pescatarian."),
        ("Maya turns 8 next week and wants a unicorn cake.", "Maya is 8 years old."),
        ("Maya is allergic to peanuts.", "Maya is allergic to peanuts."),
    ],
)
def test_a_relative_told_in_an_earlier_turn_is_known_by_name(text: str, statement: str) -> None:
    assert statement in knowing(text, "Arjun", "Maya")
    assert statement not in said(text)  # a name nobody introduced is nobody's


def test_he_or_she_is_the_one_person_the_sentence_named() -> None:
    assert "Arjun is vegan." in knowing("Arjun quit dairy, so he's vegan now.", "Arjun")
    # two people named: whose "he" it is is not guessed
    both = knowing("Arjun and Raj came over, and he's vegan now.", "Arjun", "Raj")
    assert not [s for s in both if "vegan" in s], both
    # a sentence later, the one person the sentence before named ("he" opening it)
    later = knowing("Arjun came over. He's vegan now.", "Arjun")
    assert "Arjun is vegan." in later, later
    two = knowing("Arjun and Raj came over. He's vegan now.", "Arjun", "Raj")
    assert not [s for s in two if "vegan" in s], two
    # "my wife's sister": she may be either of them
    either = said("My wife's sister is visiting. She's a doctor.")
    assert not [s for s in either if "doctor" in s], either


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        (
            "My husband Arjun and our two kids, Maya who is 7 and Dev who is 4.",
            ["ana's spouse is Arjun.", "ana has 2 children.", "ana's child is Maya.",
             "ana's child is Dev.", "Maya is 7 years old.", "Dev is 4 years old."],
        ),
        ("I have two kids, Maya (7) and Dev (4).", ["Maya is 7 years old.", "Dev is 4 years old."]),
        ("My kids are Maya and Dev.", ["ana has 2 children.", "ana's child is Dev."]),
        ("I have a son, Tom (12).", ["ana's son is Tom.", "Tom is 12 years old."]),
        ("Arjun is vegetarian and Dev can't have dairy.", []),  # neither is known yet
        (
            "My husband Arjun is vegetarian and Dev can't have dairy.",
            ["Arjun is vegetarian."],  # Dev is nobody's yet
        ),
    ],
)  # fmt: skip
def test_children_named_with_their_ages(text: str, statements: list[str]) -> None:
    found = said(text)
    for statement in statements:
        assert statement in found, found
    if not statements:
        assert found == [], found


def test_a_second_person_after_and_is_a_clause_of_its_own() -> None:
    found = knowing("Arjun is vegetarian and Dev can't have dairy.", "Arjun", "Dev")
    assert found == ["Arjun is vegetarian.", "Dev does not eat dairy."], found


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I can't have dairy.", ["ana does not eat dairy."]),
        ("I can't have dairy or gluten.", ["ana does not eat dairy.", "ana does not eat gluten."]),
        ("I can't have any sugar right now.", ["ana does not eat sugar."]),
        (
            "My wife Mei doesn't eat raw fish.",
            ["ana's spouse is Mei.", "Mei does not eat raw fish."],
        ),
        ("My son doesn't eat meat.", ["ana's son does not eat meat."]),
        ("I'm vegan and gluten-free.", ["ana is vegan.", "ana does not eat gluten."]),
        ("My daughter is dairy-free.", ["ana's daughter does not eat dairy."]),
        ("I work remotely from Lisbon.", ["ana lives in Lisbon."]),
        ("I work remotely from home.", []),
        ("I can't have kids.", []),  # not food
        ("I don't have any siblings.", ["ana has no siblings."]),
        ("I turn 40 next month.", ["ana is 40 years old."]),
        ("I'm turning 30 in May.", ["ana is 30 years old."]),
        ("The company turns 10 this year.", []),
    ],
)
def test_what_one_cannot_have_and_an_age_to_come(text: str, statements: list[str]) -> None:
    assert said(text) == statements


def test_a_plan_for_a_month_to_come_is_dated_in_it() -> None:
    """ "We're moving to Manchester in April", said in March: the coming April."""
    (plan,) = extract_statements(
        "We're moving to Manchester in April.", "ana", datetime(2026, 3, 15, tzinfo=UTC)
    )
    assert plan.fact.valid_from == datetime(2026, 4, 1, tzinfo=UTC)


async def test_relatives_are_known_across_sessions_and_a_reopened_store(tmp_path: Path) -> None:
    """Told once, in the first session: later sessions, in another process's memory,
    update what is known of them; a new diet replaces the old."""
    url = f"sqlite:///{tmp_path}/people.db"
    user = Scope(tenant="t", user="priya")

    def turn(day: int, content: str) -> dict[str, object]:
        return user_turn(content, datetime(2026, 2, day, 19, tzinfo=UTC))

    async with await Memory.open(url) as memory:
        await memory.ingest(
            [turn(3, "My husband Arjun is vegetarian. My daughter Maya is 7.")],
            user.with_session("a"),
        )
    async with await Memory.open(url) as memory:  # another process, later
        await memory.ingest(
            [turn(20, "Arjun started eating fish again, so he's pescatarian now."),
             turn(21, "Maya can't have peanuts, she's allergic.")],
            user.with_session("b"),
        )  # fmt: skip
        diet = await memory.facts.current("Arjun", "diet", scope=user)
        assert [f.object for f in diet] == ["pescatarian"]
        assert [f.statement for f in await memory.facts.history("Arjun", "diet", scope=user)]
        eats = await memory.facts.current_of("Maya", ["does_not_eat"], scope=user)
        assert [f.object for f in eats] == ["peanuts"]
        # another user's "Arjun" is not this one's
        other = Scope(tenant="t", user="zoe")
        await memory.ingest([turn(22, "Arjun is vegan now.")], other.with_session("c"))
        assert await memory.facts.current_of("Arjun", ["diet"], scope=other) == []
        diet = await memory.facts.current("Arjun", "diet", scope=user)
        assert [f.object for f in diet] == ["pescatarian"]


async def test_we_finally_moved_is_the_move_that_was_planned(tmp_path: Path) -> None:
    """ "We finally moved!" names no place: the move planned before ("we're moving to
    Manchester in April") is where the user lives now, and the plan is done."""
    user = Scope(tenant="t", user="priya")

    def turn(month: int, content: str) -> dict[str, object]:
        return user_turn(content, datetime(2026, month, 15, 19, tzinfo=UTC))

    async with await Memory.open(f"sqlite:///{tmp_path}/moves.db") as memory:
        await memory.ingest([turn(2, "I live in Leeds.")], user.with_session("a"))
        await memory.ingest(
            [turn(3, "We're moving to Manchester in April, so I'll be packing a lot.")],
            user.with_session("b"),
        )
        await memory.ingest([turn(4, "We moved the couch into the van.")], user.with_session("c"))
        lives = await memory.facts.current("priya", "lives_in", scope=user)
        assert [f.object for f in lives] == ["Leeds"]  # a couch moved is no move
        await memory.ingest(
            [turn(5, "We finally moved! The new kitchen is tiny though.")],
            user.with_session("d"),
        )
        lives = await memory.facts.current("priya", "lives_in", scope=user)
        assert [(f.object, f.valid_from.month) for f in lives] == [("Manchester", 5)]
        assert await memory.facts.current("priya", "plans", scope=user) == []
        # said without a plan to go by, a move files nothing
        other = Scope(tenant="t", user="zoe")
        await memory.ingest([turn(5, "We finally moved!")], other.with_session("e"))
        assert await memory.facts.current("zoe", "lives_in", scope=other) == []


@pytest.mark.parametrize(
    ("text", "moved"),
    [
        ("We finally moved!", True),
        ("We've moved in, at last.", True),
        ("I just moved last week.", True),
        ("We moved the couch.", False),
        ("We moved to Leeds.", False),  # a place of its own: read as it says
        ("We moved on.", False),
    ],
)
def test_a_move_that_names_no_place(text: str, moved: bool) -> None:
    from sedimem.extraction.changes import MOVED_THERE

    assert (MOVED_THERE.search(text) is not None) is moved
