"""Working memory of a session: key-value with TTL, task state, scratchpad, checkpoints."""

from typing import Annotated

from fastapi import APIRouter, Path

from sedimem.api.auth import Caller, Writer
from sedimem.api.narrowing import OwnerFields, OwnerQuery, resolve
from sedimem.api.paths import id_path
from sedimem.api.responses import (
    CheckpointList,
    Created,
    Forked,
    KeyEntries,
    KvEntry,
    KvItems,
    Scratchpad,
    SessionList,
)
from sedimem.api.schemas import (
    CheckpointCreate,
    ForkRequest,
    KvPut,
    ScratchpadAppend,
    TaskPatch,
    TaskPut,
)
from sedimem.api.state import MemoryDep
from sedimem.errors import NotFound
from sedimem.keys import ApiKey
from sedimem.limits import MAX_KEY_CHARS
from sedimem.memory import Memory
from sedimem.scope import Identifier
from sedimem.types.text import NO_NUL
from sedimem.types.working import TaskState, WorkingStats
from sedimem.working.memory import WorkingMemory

__all__ = ["SessionId", "listing", "router"]

router = APIRouter(prefix="/v1/sessions/{session}", tags=["working memory"])
listing = APIRouter(prefix="/v1/sessions", tags=["working memory"])

SessionId = Annotated[Identifier, Path(description="The session: working memory's address.")]
Key = Annotated[
    str,
    Path(
        min_length=1,
        max_length=MAX_KEY_CHARS,
        pattern=NO_NUL,
        description=f"A key: 1..{MAX_KEY_CHARS} characters, no NUL, not starting with `__`.",
    ),
]
CheckpointId = Annotated[str, id_path("The checkpoint's id.")]

_ABSENT = object()


@listing.get("", summary="The live sessions (with working state) inside the scope")
async def list_sessions(caller: Caller, memory: MemoryDep, query: OwnerQuery) -> SessionList:
    """The sessions that have working state, each by its full scope, within the scope given."""
    return SessionList(items=await memory.live_sessions(resolve(caller, query)))


def _working(
    memory: Memory, key: ApiKey, session: str, *given: OwnerFields | None
) -> WorkingMemory:
    return memory.working(resolve(key, *given, session=session))


@router.put("/kv/{key:path}", status_code=204, summary="Set a key (any JSON value, optional TTL)")
async def set_value(
    session: SessionId, key: Key, body: KvPut, caller: Writer, memory: MemoryDep, query: OwnerQuery
) -> None:
    """Sets a key of the session's working memory to any JSON value, with an optional TTL of its
    own (default: the key lives as long as the session).
    """
    wm = _working(memory, caller, session, query, body)
    await wm.set(key, body.value, body.ttl_seconds)


@router.get("/kv/{key:path}", summary="Get a key's value")
async def get_value(
    session: SessionId, key: Key, caller: Caller, memory: MemoryDep, query: OwnerQuery
) -> KvEntry:
    """Reads a key's value; 404 when the key is not set (or expired)."""
    value = await _working(memory, caller, session, query).get(key, _ABSENT)
    if value is _ABSENT:
        raise NotFound(f"key {key!r} does not exist in this session")
    return KvEntry(key=key, value=value)


@router.delete("/kv/{key:path}", status_code=204, summary="Delete a key")
async def delete_value(
    session: SessionId, key: Key, caller: Writer, memory: MemoryDep, query: OwnerQuery
) -> None:
    """Deletes a key; 404 when it is not set."""
    if not await _working(memory, caller, session, query).delete(key):
        raise NotFound(f"key {key!r} does not exist in this session")


@router.get("/kv", summary="Every key of the session with its value")
async def get_values(
    session: SessionId, caller: Caller, memory: MemoryDep, query: OwnerQuery
) -> KvItems:
    """Every user key of the session with its value."""
    return KvItems(items=await _working(memory, caller, session, query).get_all())


@router.get("/keys", summary="Every key of the session with its value and the time it has left")
async def get_entries(
    session: SessionId, caller: Caller, memory: MemoryDep, query: OwnerQuery
) -> KeyEntries:
    """Every user key of the session with its value, its expiry and the seconds it has left."""
    return KeyEntries(items=await _working(memory, caller, session, query).entries())


@router.put("/task", summary="Set the task state")
async def set_task(
    session: SessionId, body: TaskPut, caller: Writer, memory: MemoryDep, query: OwnerQuery
) -> TaskState:
    """Sets the session's task state (replacing the previous one) and answers with it as stored."""
    wm = _working(memory, caller, session, query, body)
    await wm.set_task_state(body.to_state())
    state = await wm.get_task_state()
    if state is None:  # the session expired between the two calls
        raise NotFound("the session has no task state")
    return state


@router.get("/task", summary="Get the task state")
async def get_task(
    session: SessionId, caller: Caller, memory: MemoryDep, query: OwnerQuery
) -> TaskState:
    """Reads the session's task state; 404 when none is set."""
    state = await _working(memory, caller, session, query).get_task_state()
    if state is None:
        raise NotFound("the session has no task state")
    return state


@router.patch("/task", summary="Update task progress atomically")
async def update_task(
    session: SessionId, body: TaskPatch, caller: Writer, memory: MemoryDep, query: OwnerQuery
) -> TaskState:
    """Updates the task's step, progress or status atomically: concurrent updates never overwrite
    each other.
    """
    wm = _working(memory, caller, session, query, body)
    return await wm.update_task_progress(body.current_step, body.progress_percent, body.status)


@router.post("/scratchpad", status_code=204, summary="Append a scratchpad entry")
async def append_scratchpad(
    session: SessionId,
    body: ScratchpadAppend,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
) -> None:
    """Appends a timestamped entry to the session's scratchpad (atomically; the oldest entries go
    past the cap).
    """
    await _working(memory, caller, session, query, body).append_scratchpad(body.text)


@router.get("/scratchpad", summary="The scratchpad, oldest entry first")
async def get_scratchpad(
    session: SessionId, caller: Caller, memory: MemoryDep, query: OwnerQuery
) -> Scratchpad:
    """The session's scratchpad entries with their times, oldest first."""
    wm = _working(memory, caller, session, query)
    return Scratchpad(entries=await wm.get_scratchpad_with_timestamps())


@router.post("/checkpoints", status_code=201, summary="Checkpoint the session")
async def create_checkpoint(
    session: SessionId,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
    body: CheckpointCreate | None = None,
) -> Created:
    """Checkpoints the session: its user keys with their remaining TTLs, its task state and
    scratchpad (never other checkpoints). Answers with the checkpoint's id.
    """
    wm = _working(memory, caller, session, query, body)
    return Created(id=await wm.create_checkpoint(body.description if body else ""))


@router.get("/checkpoints", summary="The session's checkpoints, oldest first")
async def list_checkpoints(
    session: SessionId, caller: Caller, memory: MemoryDep, query: OwnerQuery
) -> CheckpointList:
    """The session's checkpoints, oldest first, with what each holds."""
    return CheckpointList(items=await _working(memory, caller, session, query).list_checkpoints())


@router.delete("/checkpoints/{checkpoint_id}", status_code=204, summary="Delete a checkpoint")
async def delete_checkpoint(
    session: SessionId,
    checkpoint_id: CheckpointId,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
) -> None:
    """Deletes one checkpoint of the session."""
    await _working(memory, caller, session, query).delete_checkpoint(checkpoint_id)


@router.post(
    "/checkpoints/{checkpoint_id}/restore",
    status_code=204,
    summary="Restore a checkpoint atomically (checkpoints stay)",
)
async def restore_checkpoint(
    session: SessionId,
    checkpoint_id: CheckpointId,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
) -> None:
    """Restores a checkpoint atomically: the keys (with their TTLs), task state and scratchpad
    become the checkpoint's. Every checkpoint stays.
    """
    await _working(memory, caller, session, query).restore_checkpoint(checkpoint_id)


@router.post(
    "/checkpoints/{checkpoint_id}/fork",
    status_code=201,
    summary="Start a new session from a checkpoint",
)
async def fork_checkpoint(
    session: SessionId,
    checkpoint_id: CheckpointId,
    body: ForkRequest,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
) -> Forked:
    """Starts a new session from a checkpoint of this one; this session is left as it is."""
    forked = await _working(memory, caller, session, query, body).fork(
        checkpoint_id, body.new_session
    )
    return Forked(session=forked.scope.session or body.new_session)


@router.get("/stats", summary="The session's footprint and its store's state")
async def session_stats(
    session: SessionId, caller: Caller, memory: MemoryDep, query: OwnerQuery
) -> WorkingStats:
    """The session's footprint (keys, scratchpad entries, checkpoints) and whether its store runs
    on the fallback.
    """
    return await _working(memory, caller, session, query).get_stats()
