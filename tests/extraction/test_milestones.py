"""Milestones of a user's calendar: appointments and deadlines set for a day, and a
graduation told without its school."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from sedimem.extraction import extract_statements
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import said

#: A Sunday: "on Friday" is the coming one
SUNDAY = datetime(2026, 6, 28, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "statement", "day"),
    [
        ("I have a dentist appointment on Friday.", "ana has a dentist appointment.", "2026-07-03"),
        ("I have a job interview next Tuesday.", "ana has a job interview.", "2026-06-30"),
        ("I've got an exam on July 14.", "ana has an exam.", "2026-07-14"),
        ("I have an appointment with my doctor on Monday.",
         "ana has an appointment with the doctor.", "2026-06-29"),
        ("My thesis is due on May 3.", "ana's thesis is due.", "2027-05-03"),
        ("My tax return is due next week.", "ana's tax return is due.", "2026-06-29"),
        ("I have an exam tomorrow.", "ana has an exam.", "2026-06-29"),
        ("My passport expires in June 2027.", "ana's passport expires.", "2027-06-01"),
        ("My lease ends in August.", "ana's lease expires.", "2026-08-01"),
        ("My son turns 5 tomorrow!", "ana's son is 5 years old.", "2026-06-29"),
    ],
)  # fmt: skip
def test_an_appointment_or_a_deadline_is_dated_on_its_day(
    text: str, statement: str, day: str
) -> None:
    (found,) = extract_statements(text, "ana", SUNDAY)
    assert found.fact.statement == statement
    assert found.fact.valid_from.date().isoformat() == day


@pytest.mark.parametrize(
    "text",
    [
        "I have a dentist appointment.",  # no day: nothing worth keeping
        "I have a meeting on Friday.",  # everyday
        "Do I have an exam on Monday?",
        "I had an exam on Friday.",
        "The report is due Friday.",  # whose?
        "The offer expires Friday.",
        "My membership expires.",  # no day
    ],
)
def test_no_day_or_no_owner_files_nothing(text: str) -> None:
    assert said(text) == []


@pytest.mark.parametrize("text", ["I graduated!", "Finally graduated!", "I just graduated."])
def test_a_graduation_without_its_school_ends_being_a_student(text: str) -> None:
    (found,) = extract_statements(text, "ana", SUNDAY)
    assert found.ends
    assert (found.fact.predicate, found.fact.object) == ("works_as", "student")


async def test_a_deadline_answers_when_it_is_due_and_a_graduation_ends_studies(
    tmp_path: Path,
) -> None:
    async with await Memory.open(f"sqlite:///{tmp_path}/leo.db") as memory:
        await _deadline_and_graduation(memory)


async def _deadline_and_graduation(memory: Memory) -> None:
    user = Scope(tenant="t", user="leo")

    def turn(day: datetime, content: str) -> dict[str, object]:
        return {"role": "user", "content": content, "timestamp": day}

    january = datetime(2026, 1, 10, 10, tzinfo=UTC)
    await memory.ingest(
        [turn(january, "I'm a student at TU Delft. My thesis is due on May 3.")],
        user.with_session("a"),
    )
    context = await memory.assemble("When is my thesis due?", user.with_session("s"), 300)
    (due,) = [i for i in context.report.included if "thesis" in i.text and i.tier == "facts"]
    assert "2026-05-03" in context.text.split(due.text)[0].splitlines()[-1]
    assert await memory.facts.current("leo", "works_as", scope=user) != []
    await memory.ingest([turn(SUNDAY, "Finally graduated!")], user.with_session("b"))
    assert await memory.facts.current("leo", "works_as", scope=user) == []
