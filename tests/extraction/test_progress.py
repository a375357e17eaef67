"""Progress a user reports: a weight now, a weight aimed at, a drink given up."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sedimem.extraction import extract_statements

AT = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


def read(text: str) -> list[tuple[str, str | None, bool]]:
    return [
        (s.fact.predicate or "", s.fact.object, s.ends)
        for s in extract_statements(text, "ben", AT, role="user")
    ]


@pytest.mark.parametrize(
    ("text", "weight"),
    [
        ("Down to 89 kg!", "89 kg"),
        ("Finally down to 180 lbs now.", "180 lbs"),
        ("I'm at 87 kg now.", "87 kg"),
        ("I'm 87 kg.", "87 kg"),
        ("I'm down to 79.5 kg.", "79.5 kg"),
    ],
)
def test_a_weight_reported_is_the_speakers_weight_now(text: str, weight: str) -> None:
    assert read(text) == [("weight", weight, False)]


@pytest.mark.parametrize(
    "text", ["Prices are down to 50 kg.", "I'm at 5k steps.", "Down to the last 10 kg!"]
)
def test_a_number_that_is_no_weight_of_the_speaker_is_not_read(text: str) -> None:
    assert not [r for r in read(text) if r[0] == "weight"]


@pytest.mark.parametrize(
    ("text", "goal"),
    [
        ("I want to get under 85 kg by summer.", "reach a weight under 85 kg by summer"),
        ("I'm trying to get down to 180 lbs.", "reach a weight of 180 lbs"),
        ("I'd like to get under 70 kg.", "reach a weight under 70 kg"),
    ],
)
def test_a_weight_aimed_at_is_a_goal(text: str, goal: str) -> None:
    assert ("goal", goal, False) in read(text)


def test_a_weight_aimed_at_beside_the_weight_now() -> None:
    found = read("I'm 34, I weigh 92 kg and I want to get under 85 by summer.")
    assert ("weight", "92 kg", False) in found
    assert ("goal", "reach a weight under 85 by summer", False) in found


def test_getting_under_something_else_is_no_goal() -> None:
    assert read("I want to get under the bridge.") == []


@pytest.mark.parametrize(
    ("text", "drink"),
    [("I quit coffee, it was messing with my sleep.", "coffee"), ("I gave up alcohol.", "alcohol")],
)
def test_a_drink_given_up_ends_drinking_it(text: str, drink: str) -> None:
    assert ("drinks", drink, True) in read(text)


@pytest.mark.parametrize(
    "text",
    [
        "Change of plans: we're going in November instead, the flights were cheaper.",
        "We're going back next week, after all.",
    ],
)
def test_a_plan_that_says_only_when_names_no_plan(text: str) -> None:
    """ "going [in November] instead": the date cut out, nothing of the plan is left."""
    assert read(text) == []


def test_a_plan_with_a_place_stays_a_plan() -> None:
    assert read("I'm flying to Lisbon on Friday.") == [("plans", "flying to Lisbon", False)]
