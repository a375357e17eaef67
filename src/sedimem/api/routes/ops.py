"""Operations: liveness, readiness, metrics; and the tenant-wide jobs (reflect,
consolidate and its run log, stats, profile)."""

from typing import Annotated

from fastapi import APIRouter, Query, Response

from sedimem.api.auth import Caller, require_unnarrowed
from sedimem.api.metrics import CONTENT_TYPE
from sedimem.api.narrowing import OwnerQuery, ScopeQuery, resolve
from sedimem.api.responses import Health, RunList
from sedimem.api.schemas import ConsolidateRequest, JobName, ReflectRequest, time_range
from sedimem.api.state import MemoryDep, MetricsDep
from sedimem.api.values import AS_INTEGER
from sedimem.consolidation import JOBS, ConsolidationReport
from sedimem.memory import MemoryHealth, MemoryProfile, MemoryStats
from sedimem.reflection.models import ReflectionReport

__all__ = ["probes", "router"]

probes = APIRouter(tags=["operations"])
router = APIRouter(prefix="/v1", tags=["operations"])


@probes.get("/healthz", summary="The process is up (no store is asked)")
async def healthz() -> Health:
    return Health()


@probes.get(
    "/readyz",
    responses={503: {"model": MemoryHealth, "description": "A store does not answer."}},
    summary="Every store answers; reports the backends and working memory's fallback",
)
async def readyz(response: Response, memory: MemoryDep) -> MemoryHealth:
    health = await memory.health()
    response.status_code = 503 if health.status == "unavailable" else 200
    return health


@probes.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE: {"schema": {"type": "string"}}}}},
    summary="Prometheus metrics of this app",
)
async def metrics_text(metrics: MetricsDep) -> Response:
    return Response(metrics.render(), media_type=CONTENT_TYPE)


@router.post("/reflect", summary="Patterns, success factors, anomalies and insights")
async def reflect(body: ReflectRequest, caller: Caller, memory: MemoryDep) -> ReflectionReport:
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
    body = body or ConsolidateRequest()
    require_unnarrowed(caller, "consolidation")
    report = await memory.consolidate(caller.tenant, jobs=body.jobs or JOBS, dry_run=body.dry_run)
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
    limit: Annotated[int, Query(ge=1, le=1000, description="How many."), AS_INTEGER] = 50,
) -> RunList:
    require_unnarrowed(caller, "the consolidation log")
    return RunList(items=await memory.consolidation_runs(caller.tenant, limit=limit, job=job))


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
    sample: Annotated[int, Query(ge=0, le=100, description="Facts to include."), AS_INTEGER] = 10,
) -> MemoryProfile:
    return await memory.profile(resolve(caller, query), sample=sample)
