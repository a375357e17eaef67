"""Whom a thing was done with is not the thing, and a vehicle sold is no longer ridden.

Sentences written for these tests (not LoCoMo or Persona-Chat text).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from sedimem.extraction import extract_statements
from sedimem.extraction.clauses import without_company
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import said

NOW = datetime(2023, 11, 8, 15, 30, tzinfo=UTC)


def triples(text: str, speaker: str = "Ana") -> list[tuple[object, ...]]:
    return [
        (s.fact.subject, s.fact.predicate, s.fact.object, s.ends)
        for s in extract_statements(text, speaker, NOW)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I went to the gym with my brother", ("went_to", "the gym")),
        ("I went to Paris with my sister last May", ("went_to", "Paris")),
        ("I went to a concert with friends", ("went_to", "a concert")),
        ("I adopted a dog with my partner", ("adopted", "a dog")),
        # only the company goes: where it was stays
        ("I attended a wedding with my family in Rome", ("attended", "a wedding in Rome")),
        # what belongs to the thing is no company
        ("I bought a house with a garden", ("bought", "a house with a garden")),
    ],
)
def test_an_event_is_what_was_done_not_whom_with(text: str, expected: tuple[str, str]) -> None:
    predicate, obj = expected
    assert ("Ana", predicate, obj, False) in triples(text)
    assert not any("brother" in str(t[2]) or "sister" in str(t[2]) for t in triples(text))


def test_what_the_verb_needs_keeps_its_company() -> None:
    assert without_company("spending time with my family") == "spending time with my family"
    assert without_company("with my brother") == "with my brother"  # nothing would be left


@pytest.mark.parametrize(
    "text",
    [
        "I play tennis with Ana's brother",
        "I play tennis with Tom's kids",
        "I play tennis with my brother",
    ],
)
def test_a_named_companion_is_cut_as_my_companion_is(text: str) -> None:
    """ "with Ana's brother" (a name's possessive, as "my" reads once resolved) was kept:
    "Ana plays tennis with Ana's brother", the name twice and the sport not found again."""
    assert triples(text) == [("Ana", "plays", "tennis", False)]


def test_selling_a_vehicle_ends_riding_it_and_the_habit() -> None:
    got = triples("I sold my Vespa")
    assert ("Ana", "owns", "Vespa", True) in got
    assert ("Ana", "rides", "Vespa", True) in got
    assert ("Ana", "habit", "rides Vespa", True) in got  # "rides a Vespa to work"
    assert ("Ana", "habit", "rides Ana's Vespa", True) in got  # "rides my Vespa to work"
    car = triples("I sold my Civic and bought a Tesla")
    assert ("Ana", "habit", "drives", True) in car  # any driving habit: the car is gone
    assert ("Ana", "drives", "a Tesla", False) in car
    # a thing neither driven nor ridden: only owning it ends
    assert triples("I sold my piano") == [("Ana", "owns", "piano", True)]


@pytest.fixture
async def memory(tmp_path: object) -> AsyncIterator[Memory]:
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as m:
        yield m


@pytest.mark.parametrize(
    "told", ["I ride a Vespa to work every day", "I ride my Vespa to work every day"]
)
async def test_a_sold_vespa_is_no_longer_ridden_to_work(memory: Memory, told: str) -> None:
    ana = Scope(tenant="t", user="ana")
    day = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    for i, text in enumerate((told, "I sold my Vespa")):
        message = {
            "role": "user",
            "content": text,
            "name": "Ana",
            "timestamp": day + timedelta(days=i),
        }
        await memory.ingest([message], ana.with_session(f"chat-{i}"))
    assert await memory.facts.current("Ana", "habit", scope=ana) == []
    context = await memory.assemble("How does Ana get to work?", ana.with_session("next"), 500)
    assert "Known facts" not in (context.text or "")


@pytest.mark.parametrize(
    ("told", "sold"),
    [
        ("I drive a Honda Civic to work every day", "I sold my car last month"),
        ("I drive a Honda Civic to work every day", "I sold my Civic"),
        ("I drive to work every day", "I sold my car and now I take the bus"),
    ],
)
async def test_a_sold_car_is_no_longer_driven(memory: Memory, told: str, sold: str) -> None:
    """The habit told with the car names it ("a Honda Civic"); "my car" sold names none:
    selling one's car ends whatever car one drives, and driving anywhere as a habit."""
    ana = Scope(tenant="t", user="ana")
    day = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    for i, text in enumerate((told, sold)):
        message = {"role": "user", "content": text, "timestamp": day + timedelta(days=i)}
        await memory.ingest([message], ana.with_session(f"chat-{i}"))
        if i == 0 and "Civic" in told:  # the car is a fact of its own, beside the habit
            (car,) = await memory.facts.current("ana", "drives", scope=ana)
            assert car.object == "a Honda Civic"
    assert await memory.facts.current("ana", "habit", scope=ana) == []
    assert await memory.facts.current("ana", "drives", scope=ana) == []
    history = await memory.facts.history("ana", "habit", scope=ana)
    assert [f.valid_to is not None for f in history] == [True]  # kept, as ended


@pytest.mark.parametrize(
    "parted",
    ["We broke up last week.", "I broke up with my boyfriend.", "My boyfriend and I split up."],
)
async def test_a_break_up_ends_the_partner(memory: Memory, parted: str) -> None:
    ana = Scope(tenant="t", user="ana")
    day = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    for i, text in enumerate(("My boyfriend Sam is a chef.", parted)):
        message = {"role": "user", "content": text, "timestamp": day + timedelta(days=i)}
        await memory.ingest([message], ana.with_session(f"chat-{i}"))
    assert await memory.facts.current("ana", "partner", scope=ana) == []
    (sam,) = await memory.facts.history("ana", "partner", scope=ana)
    assert sam.object == "Sam"
    assert sam.valid_to is not None  # kept, as ended


def test_a_separation_ends_the_spouse_and_says_so() -> None:
    assert said("My wife and I separated.") == ["ana no longer has a spouse.", "ana is separated."]
    assert said("I broke up the fight.") == []
