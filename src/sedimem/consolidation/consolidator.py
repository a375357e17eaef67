"""The consolidator: runs the jobs for a tenant, each under its lease, and logs every run."""

from __future__ import annotations

import asyncio
import collections
import logging
import secrets
from collections.abc import Sequence

from sedimem import observe
from sedimem.clock import Clock, SystemClock
from sedimem.config import WorkingSettings
from sedimem.consolidation.context import JobContext, JobFunction
from sedimem.consolidation.decay_job import run_decay
from sedimem.consolidation.facts_job import run_facts
from sedimem.consolidation.lag import success_ages
from sedimem.consolidation.lease import LeaseLost, Leases
from sedimem.consolidation.models import ConsolidationReport, JobReport, JobStatus
from sedimem.consolidation.procedures_job import run_procedures
from sedimem.consolidation.runlog import list_runs, write_run
from sedimem.consolidation.sessions_job import run_sessions
from sedimem.consolidation.settings import JOBS, ConsolidationSettings, session_idle_seconds
from sedimem.embed.base import Embedder
from sedimem.errors import ConfigurationError, ValidationError
from sedimem.extraction.protocols import Extractor
from sedimem.extraction.rules import RuleExtractor
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.procedural import ProceduralMemory
from sedimem.longterm.semantic import SemanticMemory
from sedimem.storage.longterm.base import LongTermStore
from sedimem.storage.working.base import WorkingStore

__all__ = ["Consolidator"]

log = logging.getLogger(__name__)

# jobs that start from the beginning every run (what they look at changes with time)
_NO_CURSOR = frozenset({"decay"})

_JOBS: dict[str, JobFunction] = {
    "sessions": run_sessions,
    "facts": run_facts,
    "procedures": run_procedures,
    "decay": run_decay,
}


class Consolidator:
    """Ended sessions -> episodes, episodes -> facts and procedures, decay and pruning.

    The ``sessions`` job needs the working store (``working``, its ``working_settings`` and
    the ``embedder`` of the long-term store); without one, the consolidator runs the other
    jobs only.

    Each job runs under a lease per (tenant, job) kept in the store, so two workers (or two
    processes) never run the same job of a tenant at once: the second one reports
    ``skipped``. Progress is a cursor beside the lease; a crashed run is resumed by the next
    run once its lease expires (``lease_ttl_seconds``). While a job runs, its lease is
    renewed every third of the TTL, so a slow step (an LLM call with its retries) does not
    let it expire under a live run.
    """

    def __init__(
        self,
        store: LongTermStore,
        episodes: EpisodicMemory,
        facts: SemanticMemory,
        procedures: ProceduralMemory,
        *,
        settings: ConsolidationSettings | None = None,
        extractor: Extractor | None = None,
        clock: Clock | None = None,
        working: WorkingStore | None = None,
        working_settings: WorkingSettings | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        if working is not None and embedder is None:
            raise ConfigurationError(
                "a consolidator with a working store needs the long-term store's embedder"
            )
        self._store = store
        self._episodes = episodes
        self._facts = facts
        self._procedures = procedures
        self._settings = settings or ConsolidationSettings()
        self._extractor = extractor or RuleExtractor()
        self._clock = clock or SystemClock()
        self._leases = Leases(store, self._settings.lease_ttl_seconds)
        self._working = working
        self._working_settings = working_settings or WorkingSettings()
        self._embedder = embedder
        # checked now, not at the first run: a threshold past the TTL would never fire
        self._idle_seconds = session_idle_seconds(
            self._settings, self._working_settings.session_ttl_seconds
        )
        #: Job runs in this process (dry runs left out), by (job, status): what ``/metrics``
        #: counts, whichever caller started them (the API, the background worker).
        self.outcomes: collections.Counter[tuple[str, JobStatus]] = collections.Counter()

    @property
    def settings(self) -> ConsolidationSettings:
        return self._settings

    @property
    def jobs(self) -> tuple[str, ...]:
        """The jobs this consolidator can run (``sessions`` only with a working store)."""
        return JOBS if self._working is not None else tuple(j for j in JOBS if j != "sessions")

    @property
    def session_idle_seconds(self) -> float:
        """The idle threshold in force for the ``sessions`` job."""
        return self._idle_seconds

    async def run(
        self, tenant: str, jobs: Sequence[str] | None = None, dry_run: bool = False
    ) -> ConsolidationReport:
        """Run ``jobs`` (in the given order; None: all of :attr:`jobs`) for ``tenant``; a
        failing job does not stop the others. ``dry_run`` reports what would change, takes
        no lease, writes nothing."""
        if not tenant:
            raise ValidationError("tenant", "is empty", allowed="a tenant name")
        jobs = self.jobs if jobs is None else jobs
        unknown = [j for j in jobs if j not in self.jobs]
        if unknown or not jobs:
            hint = "" if self._working is not None else " (sessions needs a working store)"
            raise ValidationError(
                "jobs", f"unknown or no jobs: {unknown}{hint}", allowed=", ".join(self.jobs)
            )
        reports = [await self._run_job(tenant, job, dry_run) for job in dict.fromkeys(jobs)]
        return ConsolidationReport(tenant=tenant, dry_run=dry_run, jobs=reports)

    async def runs(
        self, tenant: str, limit: int = 50, *, job: str | None = None
    ) -> list[JobReport]:
        """The logged runs of ``tenant`` (optionally of one job), newest first."""
        if not 1 <= limit <= 1000:
            raise ValidationError("limit", f"{limit} is out of range", allowed="1..1000")
        return await list_runs(self._store, tenant, limit, job)

    async def lag(self) -> dict[str, float]:
        """Per job, the worst tenant's seconds since the job last succeeded for it, from
        the run log (every process's runs; see :mod:`sedimem.consolidation.lag`)."""
        return await success_ages(self._store, self.jobs, self._clock.now())

    async def _run_job(self, tenant: str, job: str, dry_run: bool) -> JobReport:
        name = f"consolidate.{job}"
        attributes = {"sedimem.operation": name, observe.TENANT: observe.tenant_digest(tenant)}
        with observe.span("service", name, attributes) as span:
            try:
                report = await self._run_job_once(tenant, job, dry_run)
            except Exception:  # the store failed around the job (its lease, its log)
                if not dry_run:
                    self.outcomes[job, "failed"] += 1
                raise
            span.set("sedimem.status", report.status)
        if not dry_run:
            self.outcomes[job, report.status] += 1
        return report

    async def _run_job_once(self, tenant: str, job: str, dry_run: bool) -> JobReport:
        started = self._clock.now()
        owner = secrets.token_hex(16)
        if dry_run:
            cursor = (await self._leases.peek(tenant, job)).cursor
        else:
            taken, cursor = await self._leases.acquire(tenant, job, owner, started)
            if not taken:
                skipped = JobReport(
                    job=job,
                    tenant=tenant,
                    status="skipped",
                    started_at=started,
                    finished_at=self._clock.now(),
                    error="the lease is held by another worker",
                )
                return await write_run(self._store, skipped)
        ctx = JobContext(
            tenant=tenant,
            job=job,
            owner=owner,
            cursor=None if job in _NO_CURSOR else cursor,
            dry_run=dry_run,
            store=self._store,
            episodes=self._episodes,
            facts=self._facts,
            procedures=self._procedures,
            extractor=self._extractor,
            settings=self._settings,
            clock=self._clock,
            leases=self._leases,
            working=self._working,
            working_settings=self._working_settings,
            embedder=self._embedder,
            idle_seconds=self._idle_seconds,
        )
        status: JobStatus = "ok"
        error: str | None = None
        heartbeat = None if dry_run else asyncio.create_task(self._keep(tenant, job, owner))
        try:
            await _JOBS[job](ctx)
        except LeaseLost as exc:
            status, error = "failed", str(exc)
            log.warning("consolidation %s for tenant %s stopped: %s", job, tenant, exc)
        except Exception as exc:  # a job failure is reported and logged, not raised
            status, error = "failed", f"{type(exc).__name__}: {exc}"
            log.exception("consolidation %s for tenant %s failed", job, tenant)
        finally:
            if heartbeat is not None:
                heartbeat.cancel()
                # wait() raises neither the heartbeat's cancellation nor swallows this
                # run's own: a run cancelled right here (the worker stopping) must end
                await asyncio.wait({heartbeat})
            if not dry_run:
                await self._leases.release(tenant, job, owner)
        report = JobReport(
            job=job,
            tenant=tenant,
            status=status,
            dry_run=dry_run,
            started_at=started,
            finished_at=self._clock.now(),
            counts_in={**ctx.counts_in, **ctx.usage.counts("llm_")},
            counts_out=ctx.counts_out,
            error=error,
            warnings=ctx.warnings,
        )
        return report if dry_run else await write_run(self._store, report)

    async def _keep(self, tenant: str, job: str, owner: str) -> None:
        """Renew a running job's lease every third of its TTL until cancelled."""
        while True:
            await asyncio.sleep(self._settings.lease_ttl_seconds / 3)
            try:
                await self._leases.renew(tenant, job, owner, self._clock.now())
            except LeaseLost:
                return  # taken over: the job stops at its next cursor move (fenced)
            except Exception as exc:  # a store hiccup: the next beat tries again
                log.warning("renewing the lease of %s for tenant %s failed: %s", job, tenant, exc)
