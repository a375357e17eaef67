"""A background asyncio task that runs consolidation for some tenants on a schedule."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from sedimem.consolidation.consolidator import Consolidator
from sedimem.consolidation.models import ConsolidationReport
from sedimem.errors import ConfigurationError, ValidationError

__all__ = ["ConsolidationWorker"]

log = logging.getLogger(__name__)


class ConsolidationWorker:
    """Every ``interval_seconds``: ``consolidator.run(tenant)`` for each tenant, in turn.

    A failed run (or a job that failed inside it) is logged and the worker carries on.
    ``start()`` launches the task in the running loop; ``await stop()`` ends it (an ongoing
    run is cancelled; its lease expires and the next run resumes from the cursor).
    """

    def __init__(
        self, consolidator: Consolidator, tenants: Sequence[str], interval_seconds: float
    ) -> None:
        if not tenants:
            raise ValidationError("tenants", "is empty", allowed="one or more tenant names")
        if not interval_seconds > 0:
            raise ValidationError(
                "interval_seconds", f"{interval_seconds} is out of range", allowed="> 0"
            )
        self._consolidator = consolidator
        self._tenants = list(tenants)
        self._interval = interval_seconds
        self._task: asyncio.Task[None] | None = None
        self.rounds = 0  # completed rounds over every tenant
        self.last_reports: dict[str, ConsolidationReport] = {}

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self.running:
            raise ConfigurationError("the consolidation worker is already running")
        self._task = asyncio.get_running_loop().create_task(self._loop())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        task.cancel()
        # wait(): the worker's cancellation is not raised here, and a cancellation of the
        # caller is not swallowed (suppressing CancelledError would do both)
        await asyncio.wait({task})
        if not task.cancelled():
            task.result()  # the worker failed on its own: raised here, not lost

    async def run_once(self) -> None:
        for tenant in self._tenants:
            try:
                report = await self._consolidator.run(tenant)
            except Exception:
                log.exception("consolidation for tenant %s failed", tenant)
                continue
            self.last_reports[tenant] = report
            for job in report.jobs:
                log.info(
                    "consolidation %s for tenant %s: %s, read %s, changed %s",
                    job.job,
                    tenant,
                    job.status,
                    job.counts_in,
                    job.counts_out,
                )
                for warning in job.warnings:
                    log.warning("consolidation %s for tenant %s: %s", job.job, tenant, warning)
                if job.status == "failed":
                    log.warning(
                        "consolidation job %s for tenant %s failed: %s",
                        job.job,
                        tenant,
                        job.error,
                    )
        self.rounds += 1

    async def _loop(self) -> None:
        while True:
            await self.run_once()
            await asyncio.sleep(self._interval)
