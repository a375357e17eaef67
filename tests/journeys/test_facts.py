"""Journeys of facts that change: a changed preference leaves one current value in context
and both values in history, each with the interval it held; a possible conflict is shown to
the agent, which resolves it; a wrong memory is corrected or deleted by id."""

from __future__ import annotations

from datetime import datetime

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Refused, Who

pytestmark = pytest.mark.slow  # real server processes, six runs each

ANA = Who(user="ana", agent_type="concierge", agent="concierge-1")


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


async def test_a_changed_preference_leaves_only_the_new_value_in_context(drive: Drive) -> None:
    async with drive() as d:
        first = ANA.in_session("booking-1")
        await d.spawn(first, {"goal": "book Ana's flight to Lisbon"})
        window = await d.learn(
            first,
            "Ana prefers a window seat",
            subject="Ana",
            predicate="prefers_seat",
            object="window",
            cardinality="one",
        )
        assert window.action == "inserted"
        await d.terminate(first, "success")

        second = ANA.in_session("booking-2")
        await d.spawn(second, {"goal": "book Ana's flight to Porto"})
        aisle = await d.learn(
            second,
            "Ana prefers an aisle seat",
            subject="Ana",
            predicate="prefers_seat",
            object="aisle",
            cardinality="one",
        )
        assert aisle.action == "superseded"
        await d.terminate(second, "success")

        third = ANA.in_session("booking-3")
        await d.spawn(third, {"goal": "book Ana's flight to Faro"})
        text = await d.assemble(third, "Which seat should I book for Ana?")
        assert "Ana prefers an aisle seat" in text
        assert "window" not in text

        history = await d.history(ANA, "Ana", "prefers_seat")
        assert [f["object"] for f in history] == ["window", "aisle"]
        old, new = history
        assert old.get("valid_to") is not None
        assert _at(old["valid_to"]) == _at(new["valid_from"])  # the old held until the new
        assert _at(old["valid_from"]) < _at(old["valid_to"])
        assert new.get("valid_to") is None  # the new one holds now (MCP leaves out nulls)


async def test_a_possible_conflict_is_resolved_and_the_predicate_declared_single_valued(
    drive: Drive,
) -> None:
    def airport(code: str) -> dict[str, str]:
        return {"subject": "Ana", "predicate": "home_airport", "object": code}

    async with drive() as d:
        first = ANA.in_session("airport-1")
        await d.spawn(first, {"goal": "book Ana's flights"})
        lisbon = await d.learn(first, "Ana flies from Lisbon", **airport("LIS"))
        await d.terminate(first, "success")

        second = ANA.in_session("airport-2")
        await d.spawn(second, {"goal": "book Ana's flights"})
        porto = await d.learn(second, "Ana flies from Porto", **airport("OPO"))
        assert porto.action == "inserted"  # home_airport is not declared single-valued ...
        assert porto.possible_conflicts == (lisbon.id,)  # ... so the agent is told
        await d.invalidate_fact(lisbon.id)  # and decides: Lisbon no longer holds
        await d.declare_single_valued(["home_airport"])  # nor will any old value again
        await d.terminate(second, "success")

        third = ANA.in_session("airport-3")
        await d.spawn(third, {"goal": "book Ana's flights"})
        text = await d.assemble(third, "Which airport does Ana fly from?")
        assert "Ana flies from Porto" in text
        assert "Lisbon" not in text
        faro = await d.learn(third, "Ana flies from Faro", **airport("FAO"))
        assert faro.action == "superseded"
        assert faro.superseded == (porto.id,)
        assert faro.possible_conflicts == ()
        await d.terminate(third, "success")

        fourth = ANA.in_session("airport-4")
        await d.spawn(fourth, {"goal": "book Ana's flights"})
        text = await d.assemble(fourth, "Which airport does Ana fly from?")
        assert "Ana flies from Faro" in text
        assert "Porto" not in text
        assert "Lisbon" not in text
        history = await d.history(ANA, "Ana", "home_airport")
        assert [f["object"] for f in history] == ["OPO", "FAO"]  # Lisbon was retracted


async def test_memories_corrected_or_deleted_by_id_are_gone_from_the_next_context(
    drive: Drive,
) -> None:
    async with drive() as d:
        first = ANA.in_session("dentist-1")
        await d.spawn(first, {"goal": "book Ana's dentist appointment"})
        wrong_fact = await d.learn(
            first,
            "Ana's dentist is Dr Silva",
            subject="Ana",
            predicate="dentist",
            object="Dr Silva",
        )
        wrong_episode = await d.record_episode(
            first, "Booked Ana's dentist appointment with Dr Costa at nine"
        )
        await d.terminate(first, "success")

        corrected = await d.correct_fact(
            wrong_fact.id, statement="Ana's dentist is Dr Sousa", object="Dr Sousa"
        )
        assert corrected.id != wrong_fact.id
        assert corrected.superseded == (wrong_fact.id,)
        await d.delete("episodes", wrong_episode)

        with pytest.raises(Refused) as stale:  # the old version is history now
            await d.correct_fact(wrong_fact.id, statement="Ana's dentist is Dr Silva Jr")
        assert corrected.id in stale.value.message  # the refusal names the current fact
        stranger = await d.stranger()
        with pytest.raises(Refused):  # another tenant's id is as good as absent
            await stranger.delete("facts", corrected.id)

        second = ANA.in_session("dentist-2")
        await d.spawn(second, {"goal": "move Ana's dentist appointment"})
        text = await d.assemble(second, "Ana's dentist appointment")
        assert "Ana's dentist is Dr Sousa" in text
        assert "Silva" not in text
        assert "Dr Costa" not in text
