"""Journey: a question about something the agent never heard of gets none of the user's
unrelated facts as "known facts", while a question about one of them gets that one.

The relevance floor is relative to the best candidate; when nothing matches well, only
the absolute floor of facts (no word of the question, no clearly closer meaning) keeps a
car and a sport out of the answer to a question about a cat.
"""

from __future__ import annotations

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Who

pytestmark = pytest.mark.slow  # real server processes for REST

MAYA = Who(user="maya", agent_type="assistant", agent="assistant-1")
UNRELATED = (
    "Maya drives a red Tesla",
    "Maya plays tennis every Sunday",
    "Maya collects old stamps",
    "Maya bakes sourdough bread",
)


@pytest.mark.parametrize("interface", ["python", "rest"])
async def test_unrelated_facts_stay_out_and_a_related_one_comes_in(drive: Drive) -> None:
    async with drive() as d:
        first = MAYA.in_session("chat-1")
        await d.spawn(first, {"goal": "chat with Maya"})
        await d.learn(
            first, "Maya lives in Porto", subject="Maya", predicate="lives_in", object="Porto"
        )
        for statement in UNRELATED:
            await d.learn(first, statement)
        await d.terminate(first, "success")

        second = MAYA.in_session("chat-2")
        await d.spawn(second, {"goal": "chat with Maya"})
        cat = await d.assemble(second, "Does Maya still have a cat?")
        for statement in UNRELATED:
            assert statement not in cat
        assert "Maya lives in Porto" in cat  # who asks is shown whatever the question

        tennis = await d.assemble(second, "When does Maya play tennis?")
        assert "Maya plays tennis every Sunday" in tennis
        assert "Maya drives a red Tesla" not in tennis
