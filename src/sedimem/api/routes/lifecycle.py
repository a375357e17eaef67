"""The lifecycle of a session: spawn, pause (checkpoint), resume, terminate (-> an episode).

Each answer is the lifecycle's own result: how long the operation took and which hooks
failed (a failing hook is reported, it does not undo the operation).
"""

from fastapi import APIRouter

from sedimem.api.auth import Writer
from sedimem.api.narrowing import OwnerQuery, resolve
from sedimem.api.routes.working import SessionId
from sedimem.api.schemas import PauseRequest, ResumeRequest, SpawnRequest, TerminateRequest
from sedimem.api.state import MemoryDep
from sedimem.lifecycle.results import LifecycleResult, TerminateResult

__all__ = ["router"]

router = APIRouter(prefix="/v1/sessions/{session}", tags=["lifecycle"])


@router.post("/spawn", summary="Start a session: a task in progress and initial keys")
async def spawn(
    session: SessionId,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
    body: SpawnRequest | None = None,
) -> LifecycleResult:
    """Starts a session: sets the initial keys and a task state in progress, then runs the spawn
    hooks.
    """
    body = body or SpawnRequest()
    scope = resolve(caller, query, body, session=session)
    return await memory.lifecycle.spawn(
        scope, body.initial_state, body.metadata, task_id=body.task_id, total_steps=body.total_steps
    )


@router.post("/pause", summary="Checkpoint the session and mark its task paused")
async def pause(
    session: SessionId,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
    body: PauseRequest | None = None,
) -> LifecycleResult:
    """Takes a checkpoint of the session and marks its task paused."""
    body = body or PauseRequest()
    scope = resolve(caller, query, body, session=session)
    return await memory.lifecycle.pause(scope, body.description)


@router.post("/resume", summary="Restore a checkpoint (the latest when none is named)")
async def resume(
    session: SessionId,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
    body: ResumeRequest | None = None,
) -> LifecycleResult:
    """Restores a checkpoint (the latest when none is named) atomically: exactly the paused
    state. Every checkpoint stays."""
    body = body or ResumeRequest()
    scope = resolve(caller, query, body, session=session)
    return await memory.lifecycle.resume(scope, body.checkpoint_id)


@router.post("/terminate", summary="Record the session as one episode (once), then clean up")
async def terminate(
    session: SessionId,
    body: TerminateRequest,
    caller: Writer,
    memory: MemoryDep,
    query: OwnerQuery,
) -> TerminateResult:
    """Records the session as one episode (once: terminating again records nothing), then removes
    its working state unless `cleanup` is false.
    """
    scope = resolve(caller, query, body, session=session)
    return await memory.lifecycle.terminate(
        scope,
        body.outcome,
        body.task_description,
        body.lessons_learned,
        body.consolidate,
        body.cleanup,
        tokens_used=body.tokens_used,
        task_type=body.task_type,
    )
