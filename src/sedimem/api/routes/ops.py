"""Operations: liveness, readiness, metrics; and the tenant-wide jobs (reflect,
consolidate and its run log, stats, profile)."""

from typing import Annotated

from fastapi import APIRouter, Query, Response

from sedimem.api.auth import Caller
from sedimem.api.metrics import CONTENT_TYPE
from sedimem.api.narrowing import OwnerQuery, ScopeQuery, resolve
from sedimem.api.responses import Health, RunList
from sedimem.api.schemas import ConsolidateRequest, JobName, ReflectRequest, time_range
from sedimem.api.state import MemoryDep, MetricsDep, SettingsDep
from sedimem.api.values import AS_INTEGER
from sedimem.consolidation import JOBS, ConsolidationReport
from sedimem.limits import MAX_PROFILE_SAMPLE, MAX_RUNS
from sedimem.memory import MemoryHealth, MemoryProfile, MemoryStats
from sedimem.reflection.models import ReflectionReport

__all__ = ["probes", "router"]

probes = APIRouter(tags=["operations"])
router = APIRouter(prefix="/v1", tags=["operations"])


@probes.get("/healthz", summary="The process is up (no store is asked)")
async def healthz() -> Health:
    """Liveness: answers 200 while the process runs, without asking any store."""
    return Health()


@probes.get(
    "/readyz",
    responses={503: {"model": MemoryHealth, "description": "A store does not answer."}},
    summary="Every store answers; reports the backends and working memory's fallback",
)
async def readyz(response: Response, memory: MemoryDep) -> MemoryHealth:
    """Readiness: asks every store. 200 when they answer (`degraded` when working memory runs on
    its fallback), 503 when one does not.
    """
    health = await memory.health()
    response.status_code = 503 if health.status == "unavailable" else 200
    return health


@probes.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE: {"schema": {"type": "string"}}}}},
    summary="Prometheus metrics of this app",
)
async def metrics_text(metrics: MetricsDep, memory: MemoryDep, settings: SettingsDep) -> Response:
    """Prometheus metrics of this app: requests and latencies per route, latencies per service
    operation, store and embedder call, records per tier, store state, consolidation lag and
    runs, and model usage counters.
    """
    await metrics.refresh(memory, settings.server.metrics_refresh_seconds)
    return Response(metrics.render(), media_type=CONTENT_TYPE)


@router.post("/reflect", summary="Patterns, success factors, anomalies and insights")
async def reflect(body: ReflectRequest, caller: Caller, memory: MemoryDep) -> ReflectionReport:
    """Statistics over the episodes the scope sees: outcome rates, recurring action sequences,
    success and risk factors per task type, anomalies against a baseline, and ranked insights.
    No LLM is asked.
    """
    return await memory.reflect(
        resolve(caller, body),
        time_range=time_range(body.since, body.until),
        task_types=body.task_types,
        baseline_days=body.baseline_days,
    )


@router.post("/consolidate", summary="Consolidate the key's tenant (facts, procedures, decay)")
async def consolidate(
    caller: Caller,
    memory: MemoryDep,
    metrics: MetricsDep,
    body: ConsolidateRequest | None = None,
) -> ConsolidationReport:
    """Runs the consolidation jobs for the key's tenant now (sessions to episodes, episodes to
    facts, procedures, decay); a dry run reports what would change. Needs a key narrowed to
    nothing.
    """
    body = body or ConsolidateRequest()
    report = await memory.consolidate(caller.access, jobs=body.jobs or JOBS, dry_run=body.dry_run)
    metrics.consolidated(report)
    return report


@router.get(
    "/consolidation/runs",
    summary="The logged consolidation runs of the key's tenant, newest first",
)
async def consolidation_runs(
    caller: Caller,
    memory: MemoryDep,
    job: Annotated[JobName | None, Query(description="Only this job's runs.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_RUNS, description="How many."), AS_INTEGER] = 50,
) -> RunList:
    """The logged consolidation runs of the key's tenant, newest first, optionally of one job.
    Needs a key narrowed to nothing.
    """
    return RunList(items=await memory.consolidation_runs(caller.access, limit=limit, job=job))


@router.get(
    "/stats",
    summary="How much the scope holds, per tier",
    description="With no user (a key not narrowed to one, no `user` given): every user's "
    "records, which `by_user` splits per user. With a user: what that user sees.",
)
async def stats(
    caller: Caller,
    memory: MemoryDep,
    query: ScopeQuery,
    by_user: Annotated[bool, Query(description="Add the counts per user.")] = False,
) -> MemoryStats:
    return await memory.stats(resolve(caller, query), by_user=by_user)


@router.get("/profile", summary="A scope's footprint: counts, first and last seen, facts")
async def profile(
    caller: Caller,
    memory: MemoryDep,
    query: OwnerQuery,
    sample: Annotated[
        int, Query(ge=0, le=MAX_PROFILE_SAMPLE, description="Facts to include."), AS_INTEGER
    ] = 10,
) -> MemoryProfile:
    """A scope's footprint: counts per tier, first and last seen, recent sessions and a sample of
    its facts.
    """
    return await memory.profile(resolve(caller, query), sample=sample)
