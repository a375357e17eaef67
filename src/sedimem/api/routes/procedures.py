"""Procedures: record (a same-named one becomes its next version), list, match a task,
count uses."""

from typing import Annotated

from fastapi import APIRouter, Query

from sedimem.api.auth import Caller, Writer
from sedimem.api.narrowing import ScopeQuery, resolve
from sedimem.api.paths import Cursor, id_path
from sedimem.api.responses import ProcedureMatches
from sedimem.api.schemas import MatchRequest, OutcomeRequest, ProcedureIn, ProcedurePatch
from sedimem.api.state import MemoryDep
from sedimem.api.values import AS_INTEGER
from sedimem.errors import NotFound
from sedimem.limits import MAX_LISTING
from sedimem.types.longterm import Procedure
from sedimem.types.search import Page

__all__ = ["router"]

router = APIRouter(prefix="/v1/procedures", tags=["procedures"])

ProcedureId = Annotated[str, id_path("The procedure's id.")]


@router.post("", status_code=201, summary="Record a procedure")
async def record(body: ProcedureIn, caller: Writer, memory: MemoryDep) -> Procedure:
    """Records a procedure; one of the same name and owner becomes its next version. Answers with
    the procedure as stored.
    """
    return await memory.procedures.record(body.to_record(resolve(caller, body)))


@router.get("", summary="The procedures the scope sees, a page at a time (oldest first)")
async def list_procedures(
    caller: Caller,
    memory: MemoryDep,
    query: ScopeQuery,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTING, description="Page size."), AS_INTEGER] = 100,
    cursor: Cursor = None,
) -> Page[Procedure]:
    """Pages through the procedures the scope sees, oldest first."""
    return await memory.catalog.procedures(resolve(caller, query), limit=limit, cursor=cursor)


@router.post("/match", summary="Procedures for a task: how well they match x how often they worked")
async def match(body: MatchRequest, caller: Caller, memory: MemoryDep) -> ProcedureMatches:
    """Finds the procedures for a task: how well their triggers match it, weighed by how often each
    worked.
    """
    hits = await memory.procedures.find_matching(
        body.task_description,
        scope=resolve(caller, body),
        k=body.k,
        mode=body.mode,
        session=body.from_session,
    )
    return ProcedureMatches(hits=hits)


@router.get("/{procedure_id}", summary="One procedure")
async def get_procedure(procedure_id: ProcedureId, caller: Caller, memory: MemoryDep) -> Procedure:
    """Reads one procedure by id."""
    return await memory.procedures.get(procedure_id, scope=resolve(caller))


@router.patch(
    "/{procedure_id}",
    summary="Change a procedure (new steps make its next version)",
)
async def update_procedure(
    procedure_id: ProcedureId, body: ProcedurePatch, caller: Writer, memory: MemoryDep
) -> Procedure:
    """Changes a procedure's trigger, steps or metadata; new steps make its next version."""
    return await memory.procedures.update(procedure_id, body.to_changes(), scope=resolve(caller))


@router.delete("/{procedure_id}", status_code=204, summary="Delete a procedure")
async def delete_procedure(procedure_id: ProcedureId, caller: Writer, memory: MemoryDep) -> None:
    """Deletes a procedure by id."""
    if not await memory.procedures.delete(procedure_id, scope=resolve(caller)):
        raise NotFound(f"procedure {procedure_id!r} does not exist")


@router.post("/{procedure_id}/outcome", summary="Count a use of the procedure")
async def record_outcome(
    procedure_id: ProcedureId, body: OutcomeRequest, caller: Writer, memory: MemoryDep
) -> Procedure:
    """Counts one use of the procedure as a success or a failure (what its ranking weighs)."""
    return await memory.procedures.record_outcome(procedure_id, body.success, scope=resolve(caller))
