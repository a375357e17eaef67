"""The lifecycle of an agent session: spawn, pause, resume, terminate.

Pause and resume use working memory's own checkpoints. ``terminate`` records one episode of
the session (once: a second terminate of the same session records nothing and says so, and
neither does consolidation's ``sessions`` job, which shares the episode code and its unique
key: see ``lifecycle.record``), then removes all of the session's working state. Hooks run
after the core operation; a hook that raises is reported in the result and does not undo the
operation.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sedimem.clock import Clock, SystemClock, utc_from_timestamp
from sedimem.embed.base import Embedder
from sedimem.errors import NotFound, ValidationError
from sedimem.lifecycle.record import record_once
from sedimem.lifecycle.results import HookFailure, LifecycleResult, TerminateResult
from sedimem.lifecycle.summary import SessionState, final_task, read_session, session_episode
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.types.longterm import Episode, Outcome
from sedimem.types.working import CheckpointInfo, TaskState, TaskStatus
from sedimem.working.codec import check_key
from sedimem.working.memory import WorkingMemory

__all__ = ["Hook", "Lifecycle"]

#: A hook receives the scope and the operation's result; it may be sync or async.
Hook = Callable[[Scope, LifecycleResult], Awaitable[None] | None]
H = TypeVar("H", bound=Hook)


class Lifecycle:
    def __init__(
        self,
        working: Callable[[Scope], WorkingMemory],
        longterm: LongTermStore,
        embedder: Embedder,
        *,
        clock: Clock | None = None,
    ) -> None:
        self._working = working
        self._longterm = longterm
        self._embedder = embedder
        self._clock = clock or SystemClock()
        self._hooks: dict[str, list[Hook]] = {
            "spawn": [],
            "pause": [],
            "resume": [],
            "terminate": [],
        }

    # -- hooks ---------------------------------------------------------------------------------

    def on_spawn(self, hook: H) -> H:
        self._hooks["spawn"].append(hook)
        return hook

    def on_pause(self, hook: H) -> H:
        self._hooks["pause"].append(hook)
        return hook

    def on_resume(self, hook: H) -> H:
        self._hooks["resume"].append(hook)
        return hook

    def on_terminate(self, hook: H) -> H:
        self._hooks["terminate"].append(hook)
        return hook

    async def _run_hooks(
        self, operation: str, scope: Scope, result: LifecycleResult
    ) -> list[HookFailure]:
        failures = []
        for hook in self._hooks[operation]:
            try:
                outcome = hook(scope, result)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:  # a hook's failure is reported, never raised
                name = getattr(hook, "__qualname__", repr(hook))
                failures.append(HookFailure(hook=name, error=f"{type(exc).__name__}: {exc}"))
        return failures

    # -- operations ----------------------------------------------------------------------------

    async def spawn(
        self,
        scope: Scope,
        initial_state: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        *,
        task_id: str | None = None,
        total_steps: int | None = None,
    ) -> LifecycleResult:
        """Start a session: a task in progress (its start is the session's start) and keys."""
        started = time.perf_counter()
        wm = self._working(scope)
        if initial_state is not None and not isinstance(initial_state, dict):
            raise ValidationError("initial_state", "must be a mapping", allowed="a dict")
        for key in initial_state or {}:  # check everything before writing anything
            check_key(key)
        await wm.set_task_state(
            TaskState(
                task_id=task_id or (scope.session or "task"),
                status=TaskStatus.IN_PROGRESS,
                total_steps=total_steps,
                started_at=utc_from_timestamp(self._clock.now()),
                metadata=dict(metadata or {}),
            )
        )
        for key, value in (initial_state or {}).items():
            await wm.set(key, value)
        return await self._finish("spawn", scope, started)

    async def pause(self, scope: Scope, description: str = "") -> LifecycleResult:
        """Checkpoint the session as it is, then mark its task paused."""
        started = time.perf_counter()
        wm = self._working(scope)
        checkpoint = await wm.create_checkpoint(description or "pause")
        if await wm.get_task_state() is not None:
            await wm.update_task_progress(status=TaskStatus.PAUSED)
        return await self._finish("pause", scope, started, checkpoint)

    async def resume(self, scope: Scope, checkpoint_id: str | None = None) -> LifecycleResult:
        """Restore a checkpoint (the latest when none is named): exactly the paused state."""
        started = time.perf_counter()
        wm = self._working(scope)
        if checkpoint_id is None:
            checkpoints = await wm.list_checkpoints()
            if not checkpoints:
                raise NotFound(f"session {scope.session!r} has no checkpoint to resume from")
            checkpoint_id = checkpoints[-1].id
        await wm.restore_checkpoint(checkpoint_id)
        return await self._finish("resume", scope, started, checkpoint_id)

    async def list_checkpoints(self, scope: Scope) -> list[CheckpointInfo]:
        return await self._working(scope).list_checkpoints()

    async def terminate(
        self,
        scope: Scope,
        outcome: Outcome | str,
        task_description: str | None = None,
        lessons_learned: Sequence[str] | None = None,
        consolidate: bool = True,
        cleanup: bool = True,
        *,
        tokens_used: int | None = None,
        task_type: str = "session",
    ) -> TerminateResult:
        """Record the session as one episode (once), then remove its working state.

        The task ends with the status ``outcome`` gives it (success: completed, failure:
        failed, partial: cancelled), in the episode and, with ``cleanup=False``, in working
        memory. The episode's description is ``task_description``, else the session's
        ``goal`` / ``task`` / ``description`` value, else the task id; its summary carries
        the working values and the scratchpad's first and last notes."""
        started = time.perf_counter()
        try:
            outcome = Outcome(outcome)
        except ValueError as exc:
            raise ValidationError(
                "outcome", f"{outcome!r} is unknown", allowed="success, failure, partial"
            ) from exc
        if outcome is Outcome.NONE:  # 'none' is for chat turns and notes: a session ends
            raise ValidationError(
                "outcome", "a session cannot end with no outcome",
                allowed="success, failure, partial",
            )  # fmt: skip
        if tokens_used is not None and tokens_used < 0:
            raise ValidationError("tokens_used", f"{tokens_used} is negative", allowed=">= 0")
        lessons = [str(x) for x in lessons_learned or []]
        wm = self._working(scope)
        state = await read_session(wm)
        final = final_task(state.task, outcome)
        episode: Episode | None = None
        if consolidate:  # built before any write, so bad input leaves the session as it was
            episode = _session_episode(
                scope,
                state,
                outcome,
                self._clock.now(),
                task_description,
                lessons,
                tokens_used=tokens_used,
                task_type=task_type,
            )
        if final is not None and not cleanup:  # the session stays: its task says how it ended
            await wm.update_task_progress(
                progress_percent=final.progress_percent, status=final.status
            )
        already = False
        if episode is not None:
            already = not await record_once(self._longterm, self._embedder, episode)
            if already:
                episode = None
        if cleanup:
            await wm.destroy()
        result = TerminateResult(
            operation="terminate",
            session=scope.session or "",
            duration_ms=(time.perf_counter() - started) * 1000,
            episode=episode,
            already_terminated=already,
            cleaned_up=cleanup,
        )
        failures = await self._run_hooks("terminate", scope, result)
        return result.model_copy(update={"hook_failures": failures})

    # -- helpers -------------------------------------------------------------------------------

    async def _finish(
        self, operation: str, scope: Scope, started: float, checkpoint: str | None = None
    ) -> LifecycleResult:
        result = LifecycleResult(
            operation=operation,
            session=scope.session or "",
            checkpoint_id=checkpoint,
            duration_ms=(time.perf_counter() - started) * 1000,
        )
        failures = await self._run_hooks(operation, scope, result)
        return result.model_copy(update={"hook_failures": failures})


def _session_episode(
    scope: Scope,
    state: SessionState,
    outcome: Outcome,
    now: float,
    task_description: str | None,
    lessons: list[str],
    *,
    tokens_used: int | None,
    task_type: str,
) -> Episode:
    """The session's episode, with errors naming terminate's own arguments."""
    try:
        return session_episode(
            scope,
            state,
            outcome,
            now,
            task_description=task_description,
            lessons=lessons,
            tokens_used=tokens_used,
            task_type=task_type,
        )
    except ValidationError as exc:
        if exc.field != "description" or task_description is None:
            raise
        message = str(exc).removeprefix("description: ").split(" (allowed:")[0]
        raise ValidationError("task_description", message, allowed=exc.allowed) from exc
