"""Consolidation lag, read from the run log: how long since each job last succeeded.

One query per tenant and job (the newest ``ok`` run, by id), so it answers across every
process that consolidates (servers, workers): they all write the same log.
"""

from __future__ import annotations

from collections.abc import Sequence

from sedimem.consolidation.models import JobReport
from sedimem.consolidation.runlog import RUN_KIND
from sedimem.scope import SYSTEM_TENANT
from sedimem.storage.longterm.base import LongTermStore, RecordFilter

__all__ = ["success_ages"]


async def success_ages(store: LongTermStore, jobs: Sequence[str], now: float) -> dict[str, float]:
    """Per job, the most seconds any tenant has gone since that job last succeeded for it
    (the worst tenant's lag). Tenants with no successful run of a job are left out of that
    job's figure; a job no tenant ever completed is absent."""
    ages: dict[str, float] = {}
    for tenant in await store.tenants():
        if tenant == SYSTEM_TENANT:
            continue
        for job in jobs:
            rows = await store.find(
                tenant,
                RecordFilter(kind=RUN_KIND, name=job, outcome="ok"),
                limit=1,
                newest_first=True,
            )
            if not rows:
                continue
            age = max(0.0, now - JobReport.model_validate_json(rows[0].body).finished_at)
            ages[job] = max(ages.get(job, 0.0), age)
    return ages
