"""Facts: learn one (insert, reinforce or supersede), ask what holds, read a timeline,
list the current ones, correct, invalidate or delete one by id, and declare which
predicates are single-valued.

By-id routes go through the service with the key's scope: another tenant's id is absent
(404), a record outside the key's narrowing is refused (403).
"""

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query

from sedimem.api.auth import Caller, Writer
from sedimem.api.narrowing import ScopeQuery, resolve
from sedimem.api.paths import Cursor, id_path
from sedimem.api.responses import FactList, Learned
from sedimem.api.schemas import FactIn, FactPatch, PredicatesIn
from sedimem.api.state import MemoryDep
from sedimem.api.values import AS_BOOLEAN, AS_INTEGER, Instant
from sedimem.errors import NotFound
from sedimem.limits import MAX_LISTING
from sedimem.types.edits import PredicateCardinalities
from sedimem.types.longterm import Fact, Label
from sedimem.types.search import Page

__all__ = ["router"]

router = APIRouter(prefix="/v1/facts", tags=["facts"])

Subject = Annotated[Label, Query(description="Whom or what the facts are about.")]
Predicate = Annotated[Label, Query(description="Which property, e.g. `lives_in`.")]
KnownAt = Annotated[
    Instant | None, Query(description="As the system believed it then (default: now).")
]


@router.post("", status_code=201, summary="Learn a fact")
async def learn(body: FactIn, caller: Writer, memory: MemoryDep) -> Learned:
    """Learns a fact: inserts it, reinforces the same fact already believed, or, for a single-
    valued predicate, supersedes the current value (kept as history). `possible_conflicts` lists
    current values kept beside it on a predicate only multi-valued by default.
    """
    return await memory.facts.learn(body.to_record(resolve(caller, body)))


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
    """The values of a subject's predicate that are true in the world at `valid_at` (default now),
    as the system believed at `known_at` (default now).
    """
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
    """Every value a subject's predicate has had, oldest first, as believed at `known_at`; with
    `include_retired`, the versions no longer believed too.
    """
    facts = await memory.facts.history(
        subject,
        predicate,
        scope=resolve(caller, query),
        known_at=known_at,
        include_retired=include_retired,
    )
    return FactList(items=facts)


@router.get("/current", summary="The facts believed now, a page at a time (oldest first)")
async def current_facts(
    caller: Caller,
    memory: MemoryDep,
    query: ScopeQuery,
    subject: Annotated[Label | None, Query(description="Only this subject's facts.")] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTING, description="Page size."), AS_INTEGER] = 100,
    cursor: Cursor = None,
) -> Page[Fact]:
    """Pages through the facts believed now that the scope sees, oldest first, optionally of one
    subject.
    """
    return await memory.catalog.facts(
        resolve(caller, query), subject=subject, limit=limit, cursor=cursor
    )


@router.get("/predicates", summary="Which predicates are single-valued for the tenant")
async def predicates(caller: Caller, memory: MemoryDep) -> PredicateCardinalities:
    """Which predicates are single-valued for the key's tenant: the configured defaults, the
    tenant's own declarations (which win), and the set that results.
    """
    return await memory.facts.predicates(tenant=caller.tenant)


@router.post(
    "/predicates",
    summary="Declare predicates single-valued ('one') or multi-valued ('many')",
    description="For the whole tenant, durably: a new value of a single-valued predicate "
    "supersedes the current one from the next write on. Needs a key narrowed to nothing.",
)
async def declare_predicates(
    body: PredicatesIn, caller: Writer, memory: MemoryDep
) -> PredicateCardinalities:
    return await memory.facts.declare(body.predicates, body.cardinality, scope=resolve(caller))


FactId = Annotated[str, id_path("The fact's id (of any version).")]


@router.get("/{fact_id}", summary="One fact (any version)")
async def get_fact(fact_id: FactId, caller: Caller, memory: MemoryDep) -> Fact:
    """Reads one fact by id, whatever its version (current, superseded or retired)."""
    return await memory.facts.get(fact_id, scope=resolve(caller))


@router.patch(
    "/{fact_id}",
    summary="Correct a current fact",
    description="Records the corrected version (a new id, believed from now) and retires "
    "this one, kept as history. A fact no longer believed cannot be corrected: 409 naming "
    "the current fact of its subject and predicate.",
)
async def correct_fact(
    fact_id: FactId, body: FactPatch, caller: Writer, memory: MemoryDep
) -> Learned:
    return await memory.facts.correct(fact_id, body.to_changes(), scope=resolve(caller))


@router.post("/{fact_id}/invalidate", summary="Stop believing a fact (kept as history)")
async def invalidate_fact(fact_id: FactId, caller: Writer, memory: MemoryDep) -> Fact:
    """Stops believing the fact from now on (`invalidated_at` is set); it stays as history, askable
    with `known_at`.
    """
    return await memory.facts.invalidate(fact_id, scope=resolve(caller))


@router.delete("/{fact_id}", status_code=204, summary="Delete one version of a fact")
async def delete_fact(fact_id: FactId, caller: Writer, memory: MemoryDep) -> None:
    """Deletes one version of a fact physically. To record that a fact stopped being true,
    invalidate or correct it instead.
    """
    if not await memory.facts.delete(fact_id, scope=resolve(caller)):
        raise NotFound(f"fact {fact_id!r} does not exist")


def _holds(fact: Fact, at: datetime) -> bool:
    # the world-time half of what SemanticMemory.recall filters on; history() has no valid_at
    return fact.valid_from <= at and (fact.valid_to is None or at < fact.valid_to)
