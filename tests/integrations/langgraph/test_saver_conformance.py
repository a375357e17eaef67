"""LangGraph's own checkpointer conformance suite (``langgraph-checkpoint-conformance``),
base and extended capabilities, on every working store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from uuid import uuid4

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES

from sedimem.integrations.langgraph import SedimemSaver
from sedimem.scope import Scope
from tests.integrations.conftest import OpenMemory


async def test_conformance_report_passes_every_capability(open_memory: OpenMemory) -> None:
    @checkpointer_test(name="SedimemSaver")
    async def saver() -> AsyncIterator[SedimemSaver]:
        # a scope of its own per capability suite: list(None) and delete_for_runs span the
        # scope's threads, as they span a LangGraph saver's whole database
        async with open_memory() as memory:
            yield SedimemSaver(memory, Scope(tenant="t1", project=uuid4().hex))

    report = await validate(saver)
    failures = {name: r.failures for name, r in report.results.items() if not r.passed}
    assert failures == {}
    assert {name for name, r in report.results.items() if r.passed} == {
        c.value for c in ALL_CAPABILITIES
    }
    assert report.passed_all_base()
    # every capability ran its tests (none detected-but-skipped)
    assert all(r.tests_passed > 0 and r.tests_failed == 0 for r in report.results.values())
    report.print_report()
