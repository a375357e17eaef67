"""Misses a review of real chats found, on sentences written for these tests.

Each case names what a reader would note (and, for a change, what it ends); the plans and
asides around the fact must not become facts of their own.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sedimem.extraction import extract_statements

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
