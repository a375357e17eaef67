"""Turning a session's working state into an episode: summary, actions, importance.

Shared by ``Lifecycle.terminate`` and by consolidation's ``sessions`` job (a session nobody
terminated), so both record the same kind of episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sedimem.clock import utc_from_timestamp
from sedimem.scope import Scope
from sedimem.types.longterm import Episode, Outcome
from sedimem.types.working import ScratchpadEntry, TaskState
from sedimem.working.memory import WorkingMemory

__all__ = [
    "MAX_ACTIONS",
    "SessionState",
    "actions_of",
    "importance_of",
    "read_session",
    "session_episode",
    "summarise",
]

MAX_ACTIONS = 50
_MAX_ACTION_CHARS = 500


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def summarise(state: TaskState | None, scratchpad: list[ScratchpadEntry], keys: list[str]) -> str:
    """A few plain sentences on where the task stood and what the agent noted."""
    parts: list[str] = []
    if state is not None:
        steps = f"step {state.current_step}"
        if state.total_steps:
            steps += f" of {state.total_steps}"
        parts.append(
            f"Task {state.task_id} ended {state.status.value.replace('_', ' ')} at {steps} "
            f"({state.progress_percent:g}% done)."
        )
    else:
        parts.append("No task state was recorded.")
    if scratchpad:
        first, last = scratchpad[0].text, scratchpad[-1].text
        parts.append(f"Scratchpad: {len(scratchpad)} entries, from {_clip(first, 200)!r}")
        if len(scratchpad) > 1:
            parts[-1] += f" to {_clip(last, 200)!r}"
        parts[-1] += "."
    else:
        parts.append("Scratchpad: empty.")
    if keys:
        shown = ", ".join(keys[:10]) + (f" and {len(keys) - 10} more" if len(keys) > 10 else "")
        parts.append(f"Working keys: {shown}.")
    return " ".join(parts)


def actions_of(scratchpad: list[ScratchpadEntry]) -> list[str]:
    """The agent's noted steps, oldest first, at most ``MAX_ACTIONS`` (the newest kept)."""
    return [_clip(e.text, _MAX_ACTION_CHARS) for e in scratchpad[-MAX_ACTIONS:]]


def importance_of(outcome: Outcome, duration_seconds: float, lessons: list[str]) -> float:
    """Failures and lessons teach more; long tasks cost more: all raise importance."""
    score = 0.5
    score += {Outcome.FAILURE: 0.2, Outcome.PARTIAL: 0.1, Outcome.SUCCESS: 0.0}[outcome]
    if lessons:
        score += 0.1
    if duration_seconds >= 3600:
        score += 0.1
    return min(1.0, score)


@dataclass(frozen=True, slots=True)
class SessionState:
    """What an episode is made of: the session's task state, scratchpad and key names."""

    task: TaskState | None
    scratchpad: list[ScratchpadEntry]
    keys: list[str]

    @property
    def empty(self) -> bool:
        return self.task is None and not self.scratchpad and not self.keys


async def read_session(wm: WorkingMemory) -> SessionState:
    return SessionState(
        await wm.get_task_state(), await wm.get_scratchpad_with_timestamps(), await wm.list_keys()
    )


def session_episode(
    scope: Scope,
    state: SessionState,
    outcome: Outcome,
    ended_at: float,
    *,
    task_description: str | None = None,
    lessons: Sequence[str] = (),
    tokens_used: int | None = None,
    task_type: str = "session",
    outcome_details: str = "",
    metadata: dict[str, Any] | None = None,
) -> Episode:
    """The episode of a session that ended at ``ended_at`` (epoch seconds).

    Its duration runs from the task's start (when there is a task state) to ``ended_at``.
    """
    task = state.task
    start = task.started_at.timestamp() if task and task.started_at else ended_at
    duration = max(0.0, ended_at - start)
    description = task_description or (
        f"Session {scope.session}" + (f": task {task.task_id}" if task else "")
    )
    lessons = list(lessons)
    return Episode(
        scope=scope,
        task_type=task_type,
        description=description,
        actions=actions_of(state.scratchpad),
        outcome=outcome,
        outcome_details=outcome_details,
        context_summary=summarise(task, state.scratchpad, state.keys),
        lessons_learned=lessons,
        importance=importance_of(outcome, duration, lessons),
        duration_seconds=duration,
        tokens_used=tokens_used,
        occurred_at=utc_from_timestamp(ended_at),
        metadata={
            "session_ended": True,
            "task": None if task is None else task.task_id,
            **(metadata or {}),
        },
    )
