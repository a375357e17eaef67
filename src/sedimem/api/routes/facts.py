"""Facts: learn one (insert, reinforce or supersede), ask what holds, read a timeline."""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Path, Query

from sedimem.api.auth import Caller
from sedimem.api.narrowing import ScopeQuery, ensure_within, resolve
from sedimem.api.responses import FactList, Learned
from sedimem.api.schemas import FactIn
from sedimem.api.state import MemoryDep
from sedimem.api.values import AS_BOOLEAN, Instant
from sedimem.types.longterm import Fact, Label
from sedimem.types.text import NO_NUL

__all__ = ["router"]

router = APIRouter(prefix="/v1/facts", tags=["facts"])

Subject = Annotated[Label, Query(description="Whom or what the facts are about.")]
Predicate = Annotated[Label, Query(description="Which property, e.g. `lives_in`.")]
KnownAt = Annotated[
    Instant | None, Query(description="As the system believed it then (default: now).")
]


@router.post("", status_code=201, summary="Learn a fact")
async def learn(body: FactIn, caller: Caller, memory: MemoryDep) -> Learned:
    return Learned.of(await memory.facts.learn(body.to_record(resolve(caller, body))))


@router.get("", summary="The values a subject's predicate has at a time")
async def holding(
    subject: Subject,
    predicate: Predicate,
    caller: Caller,
    memory: MemoryDep,
    query: ScopeQuery,
    valid_at: Annotated[
        Instant | None, Query(description="True in the world then (default: now).")
    ] = None,
    known_at: KnownAt = None,
) -> FactList:
    facts = await memory.facts.history(
        subject, predicate, scope=resolve(caller, query), known_at=known_at
    )
    at = valid_at or datetime.now(UTC)
    return FactList(items=[f for f in facts if _holds(f, at)])


@router.get("/history", summary="A subject's predicate over time")
async def history(
    subject: Subject,
    predicate: Predicate,
    caller: Caller,
    memory: MemoryDep,
    query: ScopeQuery,
    known_at: KnownAt = None,
    include_retired: Annotated[
        bool, Query(description="Every version ever recorded, retired ones too."), AS_BOOLEAN
    ] = False,
) -> FactList:
    facts = await memory.facts.history(
        subject,
        predicate,
        scope=resolve(caller, query),
        known_at=known_at,
        include_retired=include_retired,
    )
    return FactList(items=facts)


@router.get("/{fact_id}", summary="One fact")
async def get_fact(
    fact_id: Annotated[str, Path(max_length=64, pattern=NO_NUL)], caller: Caller, memory: MemoryDep
) -> Fact:
    fact = await memory.facts.get(fact_id, tenant=caller.tenant)
    ensure_within(caller, fact.scope, f"fact {fact_id!r}")
    return fact


def _holds(fact: Fact, at: datetime) -> bool:
    # the world-time half of what SemanticMemory.recall filters on; history() has no valid_at
    return fact.valid_from <= at and (fact.valid_to is None or at < fact.valid_to)
