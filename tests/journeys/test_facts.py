"""Journeys of facts that change: a corrected preference leaves one current value in
context and both values in history, each with the interval it held."""

from __future__ import annotations

from datetime import datetime

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Who

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
        assert old["valid_to"] is not None
        assert _at(old["valid_to"]) == _at(new["valid_from"])  # the old held until the new
        assert _at(old["valid_from"]) < _at(old["valid_to"])
        assert new["valid_to"] is None  # the new one holds now
