"""Changes told in passing: an employer left or about to start, a habit kept up for months
and then dropped, a trip planned and come back from."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sedimem.extraction import extract_statements
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import said, user_turn

MARCH = datetime(2026, 3, 25, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I left Spotify last week.", ["ana no longer works at Spotify."]),
        ("I quit Spotify.", ["ana no longer works at Spotify."]),
        ("Starting at Klarna in May as a staff engineer.",
         ["ana works at Klarna.", "ana works as a staff engineer."]),
        ("I'm starting at Klarna in May.", ["ana works at Klarna."]),
        ("I'm joining Klarna as a designer.", ["ana works at Klarna.", "ana works as a designer."]),
        ("I'm joining Sofia for dinner.", []),
        ("I'm joining Klarna.", []),  # joining whom, or what, is unclear without a role
        ("I start with Python.", ["ana starts with Python."]),  # no employer
    ],
)  # fmt: skip
def test_an_employer_left_or_about_to_start(text: str, statements: list[str]) -> None:
    assert said(text) == statements


def test_a_new_employer_named_with_a_month_to_come_starts_then() -> None:
    found = extract_statements("Starting at Klarna in May as a staff engineer.", "ana", MARCH)
    assert {s.fact.valid_from for s in found} == {datetime(2026, 5, 1, tzinfo=UTC)}


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("I've been doing yoga three times a week since January.",
         ["ana does yoga three times a week."]),
        ("I've been running every morning.", ["ana runs every morning."]),
        ("I've been swimming on weekends.", ["ana swims on weekends."]),
        ("I'm doing great every day.", []),
        ("I no longer do yoga.", ["ana no longer does yoga.", "ana no longer does yoga."]),
        ("Back from Lisbon!", ["ana returned from Lisbon."]),
        ("I'm planning a trip to Porto in March with my sister Elena.",
         ["ana's sister is Elena.", "ana is planning a trip to Porto."]),
        ("I'm planning a trip to Porto.", []),  # no date: a wish as much as a plan
        ("We're planning a road trip to Yellowstone in July.",
         ["ana is planning a road trip to Yellowstone."]),
        ("We're planning a family vacation to Disney World next summer.",
         ["ana is planning a family vacation to Disney World."]),
        ("I'm planning a road trip.", []),
        ("I've been playing guitar for about 10 years.", ["ana plays guitar."]),
        ("I've been playing chess for over 20 years.", ["ana plays chess."]),
        ("I'm planning to quit my job.", []),
    ],
)  # fmt: skip
def test_habits_kept_up_and_dropped_and_trips(text: str, statements: list[str]) -> None:
    assert said(text) == statements


async def test_where_one_works_and_what_one_does_follow_the_changes(tmp_path: Path) -> None:
    user = Scope(tenant="t", user="mia")

    def turn(month: int, content: str) -> dict[str, object]:
        return user_turn(content, datetime(2026, month, 5, 10, tzinfo=UTC))

    async with await Memory.open(f"sqlite:///{tmp_path}/mia.db") as memory:
        await memory.ingest(
            [turn(1, "I'm a software engineer at Spotify."),
             turn(2, "I've been doing yoga three times a week since January.")],
            user.with_session("a"),
        )  # fmt: skip
        await memory.ingest(
            [turn(3, "I left Spotify last week. Starting at Klarna in May as a staff engineer."),
             turn(5, "I no longer do yoga, I switched to pilates.")],
            user.with_session("b"),
        )  # fmt: skip
        works = await memory.facts.current("mia", "works_at", scope=user)
        assert [(f.object, f.valid_from.month) for f in works] == [("Klarna", 5)]
        assert await memory.facts.current("mia", "habit", scope=user) == []
        context = await memory.assemble("Where do I work?", user.with_session("s"), 300)
        known = [i.text for i in context.report.included if i.tier == "facts"]
        assert "mia works at Klarna." in known
        assert "mia works at Spotify." not in known
