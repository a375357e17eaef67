"""Misses a review of real chats found, on sentences written for these tests.

Each case names what a reader would note (and, for a change, what it ends); the plans and
asides around the fact must not become facts of their own.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sedimem.consolidation import RuleExtractor
from sedimem.extraction import extract_statements
from sedimem.scope import Scope
from sedimem.types.longterm import Episode

NOW = datetime(2023, 11, 8, 15, 30, tzinfo=UTC)  # a Wednesday


def read(text: str) -> list[tuple[str, str | None, bool]]:
    """(predicate, object, ends) of each statement ``text`` makes about Ana."""
    return [
        (s.fact.predicate or "", s.fact.object, s.ends)
        for s in extract_statements(text, "Ana", NOW)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My favorite TV show is Lost", [("favorite_tv_show", "Lost", False)]),
        ("my favourite TV series is The Wire.", [("favorite_tv_series", "The Wire", False)]),
        ("Lost is my favorite TV show", [("favorite_tv_show", "Lost", False)]),
        (
            "I love cooking, my favorite dish is ramen",
            [("likes", "cooking", False), ("favorite_dish", "ramen", False)],
        ),
        (
            "I'm a teacher, my favourite subject is history.",
            [("works_as", "teacher", False), ("favorite_subject", "history", False)],
        ),
    ],
)
def test_favorites_with_an_upper_case_category_or_after_a_comma(
    text: str, expected: list[tuple[str, str | None, bool]]
) -> None:
    assert read(text) == expected


def test_a_favorite_category_in_upper_case_is_phrased_as_said() -> None:
    (said,) = extract_statements("My favorite TV show is Lost", "Ana", NOW)
    assert said.fact.statement == "Ana's favorite TV show is Lost."


@pytest.mark.parametrize(
    "text",
    [
        "I'm a nurse and will start nights next week",
        "I'm a nurse so I'll start nights next week",
        "I'm a nurse and I'll start nights next week",
        "I'm a nurse, and I will be starting nights next week.",
        "I'm a nurse and am going to start nights next week",
    ],
)
def test_a_plan_beside_a_fact_keeps_the_fact_and_drops_the_plan(text: str) -> None:
    assert read(text) == [("works_as", "nurse", False)]


@pytest.mark.parametrize(
    "text",
    [
        "I will start nights next week",
        "I'll be a nurse soon",
        "I'm going to move to Austin",
    ],
)
def test_a_plan_alone_is_no_fact(text: str) -> None:
    assert read(text) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I sold my Civic and bought a Tesla",
            [
                ("drives", "Civic", True),
                ("habit", "drives", True),  # any driving told as a habit: the car is gone
                ("owns", "Civic", True),
                ("drives", "a Tesla", False),
                ("bought", "a Tesla", False),
            ],
        ),
        (
            "We traded in our old Prius for a Model 3",
            [
                ("drives", "Prius", True),  # "old": how it is called, not which one
                ("habit", "drives", True),
                ("owns", "Prius", True),
                ("drives", "a Model 3", False),
                ("bought", "a Model 3", False),
            ],
        ),
        (
            "I sold my car last month",
            [
                ("drives", None, True),  # whichever car was said ("a Honda Civic")
                ("habit", "drives", True),
                ("owns", "car", True),
            ],
        ),
        ("I sold my old guitar", [("owns", "guitar", True)]),
        (
            "I sold my bike and bought a kayak",
            [
                ("rides", "bike", True),  # and the habit of riding it, as for a car
                ("habit", "rides bike", True),
                ("habit", "rides Ana's bike", True),
                ("owns", "bike", True),
                ("owns", "a kayak", False),
                ("bought", "a kayak", False),
            ],
        ),
    ],
)
def test_what_was_sold_ends_and_what_was_bought_is_the_new_one(
    text: str, expected: list[tuple[str, str | None, bool]]
) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I gave up on Spanish", [("learning", "Spanish", True)]),
        ("I stopped learning Spanish", [("learning", "Spanish", True)]),
        ("I quit studying German last year", [("learning", "German", True)]),
        ("I've given up on learning the piano", [("learning", "the piano", True)]),
        (
            "I quit tennis, my knee can't take it",
            [("plays", "tennis", True), ("habit", "plays tennis", True)],
        ),
        (
            "I gave up golf",
            [("plays", "golf", True), ("habit", "plays golf", True)],
        ),
        (
            "I stopped playing the piano",
            [("plays", "the piano", True), ("habit", "plays the piano", True)],
        ),
    ],
)
def test_a_subject_or_sport_given_up_ends_the_learning_or_the_playing(
    text: str, expected: list[tuple[str, str | None, bool]]
) -> None:
    assert read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I gave up on him",  # a person, not a habit
        "I quit my complaining",
        "I gave up on the idea",
        "I quit Facebook",  # not a language, a sport or a game
    ],
)
def test_giving_up_something_else_ends_nothing(text: str) -> None:
    assert [t for t in read(text) if t[0] in ("learning", "plays", "habit")] == []


def test_a_graduation_is_dated_and_ends_being_a_student_there() -> None:
    said = extract_statements("I graduated from NYU last May", "Ana", NOW)
    assert [(s.fact.predicate, s.fact.object, s.ends) for s in said] == [
        ("graduated_from", "NYU", False),
        ("works_as", "student", True),
        ("works_at", "NYU", True),
    ]
    assert {s.fact.valid_from.date().isoformat() for s in said} == {"2023-05-01"}
    assert said[0].fact.statement == "Ana graduated from NYU."


def test_a_graduation_from_a_school_without_a_name_ends_being_a_student() -> None:
    assert read("I just graduated from college!") == [
        ("graduated_from", "college", False),
        ("works_as", "student", True),
        ("works_at", "college", True),
    ]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Luna passed away", "2023-11-08"),
        ("Sadly, Luna died last week.", "2023-10-30"),
        ("Our sweet Biscuit passed away yesterday", "2023-11-07"),
        ("Sad news: Luna passed away", "2023-11-08"),
    ],
)
def test_a_name_that_died_ends_the_pet_of_that_name(text: str, day: str) -> None:
    (said,) = extract_statements(text, "Ana", NOW)
    name = text.split(" passed")[0].split(" died")[0].split()[-1]
    assert (said.fact.predicate, said.fact.object, said.ends) == (
        "has_pet",
        f"pet named {name}",
        True,
    )
    assert said.fact.statement == f"Ana no longer has a pet named {name}."
    assert said.fact.valid_from.date().isoformat() == day


@pytest.mark.parametrize(
    "text",
    [
        "Grandma passed away last year",  # a relative, said as a name
        "Mom died when I was ten",
        "It died",
        "Yesterday passed quickly",
    ],
)
def test_a_relative_or_no_name_that_died_ends_no_pet(text: str) -> None:
    assert [t for t in read(text) if t[0] == "has_pet"] == []


def test_a_relative_named_in_the_turn_who_died_is_no_pet() -> None:
    said = extract_statements("My uncle Joe was a sailor. Joe passed away in May.", "Ana", NOW)
    assert [(s.fact.subject, s.fact.predicate, s.ends) for s in said] == [
        ("Ana", "uncle", False),
        ("Joe", "died", False),
    ]


async def test_the_endings_of_a_name_that_died_reach_every_kind_of_pet() -> None:
    """The store ends a fact whose object begins or ends with the ending's words: "pet named
    Luna" is filed as "cat named Luna" (or dog, kitten ...), which "named Luna" ends."""
    episode = Episode(
        task_type="conversation",
        description="Luna passed away",
        input_text="Luna passed away",
        occurred_at=NOW,
        scope=Scope(user="ana", session="s1"),
        metadata={"role": "user", "subject": "Ana"},
    )
    ended = await RuleExtractor().endings(episode)
    objects = {f.object for f in ended}
    assert objects == {"pet named Luna", "named Luna"}
    assert {(f.subject, f.predicate) for f in ended} == {("Ana", "has_pet")}
    assert all(f.metadata == {"ends": True} and f.valid_from == NOW for f in ended)
    assert await RuleExtractor().extract(episode) == []


def test_a_sale_of_something_vague_is_no_change() -> None:
    assert read("I sold my car and bought something") == []
    assert read("I sold it") == []


async def test_other_endings_reach_the_store_as_they_are() -> None:
    episode = Episode(
        task_type="conversation",
        description="I no longer eat meat",
        input_text="I no longer eat meat",
        occurred_at=NOW,
        scope=Scope(user="ana", session="s1"),
        metadata={"role": "user", "subject": "Ana"},
    )
    ended = await RuleExtractor().endings(episode)
    assert [(f.predicate, f.object) for f in ended] == [("eats", "meat"), ("habit", "eats meat")]
