"""Journey of a procedure: learned from repeated successes, offered to a new session."""

from __future__ import annotations

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Who

pytestmark = pytest.mark.slow  # real server processes, six runs each

CLERK = Who(user="ana", agent_type="accountant", agent="accountant-1")
STEPS = ["open the billing dashboard", "filter the invoices by month", "download the CSV export"]


async def test_a_procedure_learned_from_repeated_successes_is_offered_to_a_new_session(
    drive: Drive,
) -> None:
    async with drive() as d:
        for month in ("January", "February", "March"):
            session = CLERK.in_session(f"export-{month}")
            await d.spawn(session, {"goal": f"export the invoices of {month}"})
            for step in STEPS:
                await d.note(session, step)
            await d.terminate(session, "success", task_type="invoice_export")
        await d.consolidate(["procedures"])

        april = CLERK.in_session("export-April")
        await d.spawn(april, {"goal": "export the invoices of April"})
        offered = await d.procedures(CLERK, "export the invoices of April")
        assert offered, "no procedure was learned"
        assert offered[0]["steps"] == STEPS
        assert offered[0]["success_count"] == 3
        text = await d.assemble(april, "export the invoices of April")
        assert "1. open the billing dashboard; 2. filter the invoices by month" in text
