"""Health said in other words, where one has lived, a job once held, an anniversary."""

from __future__ import annotations

import pytest

from sedimem.extraction import extract_statements
from tests.extraction.said import AT, said


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I have a peanut allergy.", "ana is allergic to peanuts."),
        ("I have a severe shellfish allergy.", "ana is allergic to shellfish."),
        ("My son has a nut allergy.", "ana's son is allergic to nuts."),
        ("I'm on medication for anxiety.", "ana has anxiety."),
        ("I take medication for my blood pressure.", "ana has high blood pressure."),
        ("I've lived in Chicago for five years.", "ana lives in Chicago."),
        ("I've been living in Oslo for a while.", "ana lives in Oslo."),
        ("My father was a police officer.", "ana's father used to be a police officer."),
        ("My grandpa was an engineer at Boeing.", "ana's grandfather used to be an engineer."),
        ("I was a teacher for twenty years.", "ana used to be a teacher."),
        ("Our anniversary is on October 12.", "ana's anniversary is October 12."),
        ("Our wedding anniversary is June 3rd.", "ana's anniversary is June 3."),
        ("I broke my arm.", "ana has a broken arm."),
        ("I tore my ACL playing soccer.", "ana has a torn ACL."),
        ("I injured my elbow.", "ana has an injured elbow."),
        ("I broke my ribs.", "ana has broken ribs."),
        ("My knee has been sore since I twisted it skiing.", "ana has a sore knee."),
        ("My back still hurts.", "ana has a sore back."),
        ("My knees have been stiff lately.", "ana has stiff knees."),
    ],
)
def test_read(text: str, statement: str) -> None:
    assert said(text) == [statement]


@pytest.mark.parametrize(
    "text",
    [
        "I have an allergy.",  # to what?
        "I lived in Chicago for five years.",  # and moved away, perhaps
        "I have lived in Paris.",  # once, at some time
        "I was a huge fan of theirs.",
        "It was a doctor who called.",
        "Our anniversary is in October.",  # not a day
        "I broke my phone.",
        "My feet hurt after the hike.",  # for now, not a condition
        "My back is against the wall.",
        "My hands are full.",
    ],
)
def test_not_read(text: str) -> None:
    assert said(text) == []


def test_a_new_anniversary_replaces_the_old() -> None:
    from sedimem.extraction.vocabulary import cardinality_of

    assert cardinality_of("anniversary") == "one"


def test_an_injury_is_dated_by_when_it_happened() -> None:
    (found,) = extract_statements("I broke my arm last month.", "ana", AT, role="user")
    assert found.fact.object == "a broken arm"
    assert (found.fact.valid_from.year, found.fact.valid_from.month) == (2026, 2)
