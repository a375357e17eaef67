"""Journey of a move: a user's memories exported, imported into a fresh deployment, and
the next session's context there is the one it would have been at home."""

from __future__ import annotations

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Who

pytestmark = pytest.mark.slow  # real server processes, six runs each

ANA = Who(user="ana", agent_type="caterer", agent="caterer-1")


async def test_export_then_import_into_a_fresh_server_restores_the_next_context(
    drive: Drive,
) -> None:
    query = "order lunch for Ana's team"
    async with drive() as d:
        first = ANA.in_session("lunch-1")
        await d.spawn(first, {"goal": "order lunch for Ana's team"})
        await d.learn(
            first,
            "Ana is allergic to peanuts",
            subject="Ana",
            predicate="allergic_to",
            object="peanuts",
        )
        await d.terminate(first, "success", lessons=["Ask the caterer for a peanut-free menu"])

        nxt = ANA.in_session("lunch-2")
        home = await d.assemble(nxt, query)
        assert "Ana is allergic to peanuts" in home
        assert "Ask the caterer for a peanut-free menu" in home

        exported = await d.export("ana")
        assert len(exported.splitlines()) == 2  # the fact and the episode

        async with await d.fresh() as moved:
            assert "peanut" not in await moved.assemble(nxt, query)  # a fresh one is empty
            counts = await moved.import_(exported)
            assert counts["facts"] == counts["episodes"] == 1
            there = await moved.assemble(nxt, query)
            assert sorted(there.splitlines()) == sorted(home.splitlines())
            assert await moved.export("ana") == exported
