"""Erasure and portability: forget, export and import (JSON Lines).

The rules are the service's (:meth:`sedimem.memory.Memory.forget` and its neighbours),
checked on the key's access: a key narrowed to a user reaches only that user's data; keys
narrowed to a project or an agent are refused (a user's data spans those); import writes
whatever the lines name, so it needs a key of the whole tenant.
"""

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from sedimem.api.auth import Caller
from sedimem.api.responses import ImportCounts
from sedimem.api.schemas import ForgetRequest
from sedimem.api.state import MemoryDep
from sedimem.errors import ValidationError
from sedimem.gdpr import ForgetReceipt
from sedimem.scope import Identifier

__all__ = ["NDJSON", "router"]

router = APIRouter(prefix="/v1", tags=["gdpr"])

NDJSON = "application/x-ndjson"
_LINES = {"schema": {"type": "string", "description": 'JSON Lines: {"kind": ..., "record": ...}'}}


@router.post("/forget", summary="Erase what matches, everywhere; returns what was erased")
async def forget(body: ForgetRequest, caller: Caller, memory: MemoryDep) -> ForgetReceipt:
    """Erases everything matching the conditions given (a user, a session, a time) in every tier
    and every derived record, and makes the erasure physical in the stores. Answers with the
    counts per kind.
    """
    return await memory.forget(
        caller.access, user=body.user, session=body.session, before=body.before
    )


@router.get(
    "/export",
    response_class=StreamingResponse,
    responses={200: {"content": {NDJSON: _LINES}, "description": "One record a line."}},
    summary="A user's records as JSON Lines (no user: the records naming no user)",
)
async def export(
    caller: Caller,
    memory: MemoryDep,
    user: Annotated[
        Identifier | None,
        Query(description="Whose records (default: the key's user; none: records naming no user)."),
    ] = None,
) -> StreamingResponse:
    """Streams a user's records (episodes, facts, procedures, blocks) as JSON Lines, one record a
    line, ready for `POST /v1/import`.
    """
    lines = memory.export(caller.access, user)
    first = await anext(lines, None)  # a failure before the first line is still a problem
    return StreamingResponse(_ndjson(first, lines), media_type=NDJSON)


@router.post(
    "/import",
    openapi_extra={"requestBody": {"required": True, "content": {NDJSON: _LINES}}},
    summary="Read an export into the key's tenant (every line checked before any write)",
)
async def import_(request: Request, caller: Caller, memory: MemoryDep) -> ImportCounts:
    """Reads the JSON Lines of an export into the key's tenant. Every line is checked before
    anything is written; vectors are recomputed. Needs a key narrowed to nothing.
    """
    body = b"".join([chunk async for chunk in request.stream()])
    try:
        text = body.decode()
    except UnicodeDecodeError as exc:
        raise ValidationError("body", f"is not UTF-8 ({exc.reason})", allowed="UTF-8") from exc
    counts = await memory.import_(caller.access, text.splitlines())
    return ImportCounts.of(counts)


async def _ndjson(first: str | None, rest: AsyncIterator[str]) -> AsyncIterator[str]:
    if first is None:
        return
    yield first + "\n"
    async for line in rest:
        yield line + "\n"
