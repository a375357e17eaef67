"""Journeys of what an agent keeps in view and what an operator counts: pinned blocks come
first in every later session's context; a tenant's statistics count every user."""

from __future__ import annotations

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Who

pytestmark = pytest.mark.slow  # real server processes, six runs each

ANA = Who(user="ana", agent_type="planner", agent="planner-1")
BEN = Who(user="ben", agent_type="planner", agent="planner-1")


async def test_pinned_blocks_come_first_in_every_later_sessions_context(drive: Drive) -> None:
    async with drive() as d:
        first = ANA.in_session("pin-1")
        await d.spawn(first, {"goal": "get to know Ana"})
        await d.put_block(ANA, "persona", "You are Ana's travel planner; answer briefly.")
        await d.put_block(ANA, "profile", "Ana lives in Lisbon.")
        await d.terminate(first, "success")

        second = ANA.in_session("pin-2")
        await d.spawn(second, {"goal": "plan a weekend away"})
        text = await d.assemble(second, "plan a weekend away")
        assert text.startswith("## Pinned blocks")
        assert "You are Ana's travel planner; answer briefly." in text
        await d.append_block(ANA, "profile", "Ana is vegetarian.")
        await d.terminate(second, "success")

        third = ANA.in_session("pin-3")
        await d.spawn(third, {"goal": "book a dinner"})
        text = await d.assemble(third, "book a dinner")
        pinned = text.split("## Working state")[0]
        assert "Ana lives in Lisbon.\n  Ana is vegetarian." in pinned

        other = BEN.in_session("ben-1")
        await d.spawn(other, {"goal": "book a dinner"})
        assert "Ana" not in await d.assemble(other, "book a dinner")


async def test_a_tenants_statistics_count_every_users_memories(drive: Drive) -> None:
    async with drive() as d:
        for who, trips in ((ANA, 2), (BEN, 1)):
            for n in range(trips):
                session = who.in_session(f"{who.user}-trip-{n}")
                await d.spawn(session, {"goal": f"plan {who.user}'s trip number {n}"})
                await d.learn(session, f"{who.user} took trip number {n}")
                await d.terminate(session, "success")
        await d.learn(Who(), "The office is closed on public holidays")  # nobody's own

        ana, ben, everyone = await d.stats(ANA), await d.stats(BEN), await d.stats(Who())
        assert (ana["episodes"], ana["facts"]) == (2, 3)  # hers and the shared fact
        assert (ben["episodes"], ben["facts"]) == (1, 2)
        assert (everyone["episodes"], everyone["facts"]) == (3, 4)
