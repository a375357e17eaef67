"""Search across tiers (``/v1/recall``), token-budgeted context (``/v1/context``) and one
memory of any tier by its id or handle (``/v1/memories/{id}``)."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter

from sedimem.api.auth import Caller
from sedimem.api.narrowing import resolve
from sedimem.api.paths import id_path
from sedimem.api.responses import Read, Recalled
from sedimem.api.schemas import ContextRequest, RecallRequest, RecallTier, time_range
from sedimem.api.state import MemoryDep
from sedimem.context.models import AssembledContext
from sedimem.memory import Memory, record_kind
from sedimem.scope import Scope

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["search"])

Search = Callable[[Memory, Scope, RecallRequest], Awaitable[list[Any]]]


@router.post("/recall", summary="Memories matching a query, per tier, with score breakdowns")
async def recall(body: RecallRequest, caller: Caller, memory: MemoryDep) -> Recalled:
    """Searches the tiers named (episodes, facts, procedures) by meaning and keywords, fused by
    rank and weighed by recency and importance. Hits come per tier, best first, each with its
    score explained.
    """
    scope = resolve(caller, body)
    tiers = list(dict.fromkeys(body.tiers))
    found = await asyncio.gather(*(_SEARCHES[tier](memory, scope, body) for tier in tiers))
    return Recalled.model_validate(dict(zip(tiers, found, strict=True)))


@router.post("/context", summary="Memories for a query packed into a token budget")
async def context(body: ContextRequest, caller: Caller, memory: MemoryDep) -> AssembledContext:
    """Assembles the memories most useful for a query (pinned blocks, working state, procedures,
    facts, episodes) into a token budget it never exceeds, and reports what was included,
    dropped or truncated and why.
    """
    return await memory.assemble(
        body.query,
        resolve(caller, body),
        body.budget_tokens,
        quotas=body.shares(),
        format=body.format,
    )


@router.get("/memories/{record_id}", summary="One memory of any tier, by id or handle")
async def read(
    record_id: Annotated[
        str, id_path("The record's id, or its handle: the `(id ...)` a context shows.")
    ],
    caller: Caller,
    memory: MemoryDep,
) -> Read:
    """Reads one episode, fact or procedure whole: by its id, or by its handle (the last
    characters of its id, which a context's passages end with). 404 when the key's tenant
    has none, 403 when it lies outside the key's narrowing, 422 when two records the key
    may read share the handle (both ids are named).
    """
    record = await memory.read(record_id, resolve(caller))
    return Read(kind=record_kind(record), id=record.id, record=record)


async def _episodes(memory: Memory, scope: Scope, body: RecallRequest) -> list[Any]:
    return await memory.episodes.recall(
        body.query,
        scope=scope,
        k=body.k,
        time_range=time_range(body.since, body.until),
        outcome=body.outcome,
        task_type=body.task_type,
        min_importance=body.min_importance,
        mode=body.mode,
        session=body.from_session,
    )


async def _facts(memory: Memory, scope: Scope, body: RecallRequest) -> list[Any]:
    return await memory.facts.recall(
        body.query,
        scope=scope,
        k=body.k,
        valid_at=body.valid_at,
        known_at=body.known_at,
        subject=body.subject,
        predicate=body.predicate,
        include_history=body.include_history,
        mode=body.mode,
        session=body.from_session,
    )


async def _procedures(memory: Memory, scope: Scope, body: RecallRequest) -> list[Any]:
    return await memory.procedures.find_matching(
        body.query, scope=scope, k=body.k, mode=body.mode, session=body.from_session
    )


_SEARCHES: dict[RecallTier, Search] = {
    "episodes": _episodes,
    "facts": _facts,
    "procedures": _procedures,
}
