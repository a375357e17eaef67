"""The run log: one ``consolidation_run`` record per job run (never for a dry run)."""

from __future__ import annotations

from sedimem.consolidation.models import JobReport
from sedimem.ids import new_id
from sedimem.storage.longterm.base import (
    LongTermStore,
    RecordFilter,
    internal_record,
)

__all__ = ["RUN_KIND", "list_runs", "write_run"]

RUN_KIND = "consolidation_run"


async def write_run(store: LongTermStore, report: JobReport) -> JobReport:
    """Store the report as a run record; returns it with ``run_id`` set."""
    run_id = new_id()
    report = report.model_copy(update={"run_id": run_id})
    row = internal_record(
        RUN_KIND,
        report.tenant,
        run_id,
        report.model_dump_json(),
        report.started_at,
        name=report.job,
        outcome=report.status,
    )
    await store.put(report.tenant, [row])
    return report


async def list_runs(
    store: LongTermStore, tenant: str, limit: int, job: str | None = None
) -> list[JobReport]:
    rows = await store.find(
        tenant, RecordFilter(kind=RUN_KIND, name=job), limit=limit, newest_first=True
    )
    return [JobReport.model_validate_json(row.body) for row in rows]
