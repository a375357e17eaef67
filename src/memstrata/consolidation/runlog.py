"""The run log: one ``consolidation_run`` record per job run (never for a dry run)."""

from __future__ import annotations

from memstrata.consolidation.models import JobReport
from memstrata.ids import new_id
from memstrata.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord

__all__ = ["RUN_KIND", "list_runs", "write_run"]

RUN_KIND = "consolidation_run"


async def write_run(store: LongTermStore, report: JobReport) -> JobReport:
    """Store the report as a run record; returns it with ``run_id`` set."""
    run_id = new_id()
    report = report.model_copy(update={"run_id": run_id})
    row = StoredRecord(
        id=run_id,
        kind=RUN_KIND,
        tenant=report.tenant,
        project=None,
        user=None,
        agent_type=None,
        agent=None,
        session=None,
        text="",
        occurred_at=report.started_at,
        importance=0.0,
        body=report.model_dump_json(),
        outcome=report.status,
        name=report.job,
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
