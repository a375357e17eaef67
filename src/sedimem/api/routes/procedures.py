"""Procedures: record (a same-named one becomes its next version), match a task, count uses."""

from typing import Annotated

from fastapi import APIRouter, Path

from sedimem.api.auth import Caller
from sedimem.api.narrowing import ensure_within, resolve
from sedimem.api.responses import ProcedureMatches
from sedimem.api.schemas import MatchRequest, OutcomeRequest, ProcedureIn
from sedimem.api.state import MemoryDep
from sedimem.types.longterm import Procedure

__all__ = ["router"]

router = APIRouter(prefix="/v1/procedures", tags=["procedures"])

ProcedureId = Annotated[str, Path(max_length=64)]


@router.post("", status_code=201, summary="Record a procedure")
async def record(body: ProcedureIn, caller: Caller, memory: MemoryDep) -> Procedure:
    return await memory.procedures.record(body.to_record(resolve(caller, body)))


@router.post("/match", summary="Procedures for a task: how well they match x how often they worked")
async def match(body: MatchRequest, caller: Caller, memory: MemoryDep) -> ProcedureMatches:
    hits = await memory.procedures.find_matching(
        body.task_description, scope=resolve(caller, body), k=body.k, mode=body.mode
    )
    return ProcedureMatches(hits=hits)


@router.get("/{procedure_id}", summary="One procedure")
async def get_procedure(procedure_id: ProcedureId, caller: Caller, memory: MemoryDep) -> Procedure:
    procedure = await memory.procedures.get(procedure_id, tenant=caller.tenant)
    ensure_within(caller, procedure.scope, f"procedure {procedure_id!r}")
    return procedure


@router.post("/{procedure_id}/outcome", summary="Count a use of the procedure")
async def record_outcome(
    procedure_id: ProcedureId, body: OutcomeRequest, caller: Caller, memory: MemoryDep
) -> Procedure:
    await get_procedure(procedure_id, caller, memory)  # outside the key's reach: 404
    return await memory.procedures.record_outcome(procedure_id, body.success, tenant=caller.tenant)
