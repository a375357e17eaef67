"""Turning a session's working state into an episode: summary, actions, importance.

Shared by ``Lifecycle.terminate`` and by consolidation's ``sessions`` job (a session nobody
terminated), so both record the same kind of episode.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sedimem.clock import utc_from_timestamp
from sedimem.scope import Scope
from sedimem.types.longterm import Episode, Outcome
from sedimem.types.working import ScratchpadEntry, TaskState, TaskStatus
from sedimem.working.memory import WorkingMemory

__all__ = [
    "DESCRIPTION_KEYS",
    "MAX_ACTIONS",
    "MAX_SUMMARY_CHARS",
    "SessionState",
    "actions_of",
    "describe",
    "final_task",
    "importance_of",
    "read_session",
    "session_episode",
    "summarise",
]

MAX_ACTIONS = 50
_MAX_ACTION_CHARS = 500
#: The whole context summary stays within this many characters.
MAX_SUMMARY_CHARS = 2000
_MAX_NOTE_CHARS = 300  # each of the scratchpad's first and last notes
_MAX_VALUE_CHARS = 500  # each working value
_MAX_DESCRIPTION_CHARS = 1000
#: Working keys whose value says what the session's task is, in order of preference.
DESCRIPTION_KEYS = ("goal", "task", "description")

#: The task's final status for each outcome: never left "in progress" in the episode.
_FINAL_STATUS = {
    Outcome.SUCCESS: TaskStatus.COMPLETED,
    Outcome.FAILURE: TaskStatus.FAILED,
    Outcome.PARTIAL: TaskStatus.CANCELLED,  # stopped before it was done
}
_STATUS_PHRASE = {
    TaskStatus.COMPLETED: "completed",
    TaskStatus.FAILED: "failed",
    TaskStatus.CANCELLED: "stopped unfinished",
}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text_of(value: Any) -> str:
    """A working value as text: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def final_task(task: TaskState | None, outcome: Outcome) -> TaskState | None:
    """The task as the outcome leaves it: its final status (and 100% done on success)."""
    if task is None:
        return None
    update: dict[str, Any] = {"status": _FINAL_STATUS[outcome]}
    if outcome is Outcome.SUCCESS:
        update["progress_percent"] = 100.0
    return task.model_copy(update=update)


def describe(scope: Scope, state: SessionState, task_description: str | None = None) -> str:
    """What the session was about: the explicit description, else the working value of
    ``goal`` / ``task`` / ``description``, else the task id, else the first note; never
    the session id (it says nothing a later search could match)."""
    if task_description and task_description.strip():
        return task_description.strip()
    for key in DESCRIPTION_KEYS:
        text = _text_of(state.values.get(key, "")).strip()
        if text:
            return _clip(text, _MAX_DESCRIPTION_CHARS)
    task = state.task
    if task is not None and task.task_id != scope.session:
        return f"Task {task.task_id}"
    if state.scratchpad:
        return _clip(state.scratchpad[0].text, _MAX_DESCRIPTION_CHARS)
    return "A session with no stated task"


def _task_sentence(task: TaskState | None) -> str:
    if task is None:
        return "No task state was recorded."
    phrase = _STATUS_PHRASE.get(task.status, task.status.value.replace("_", " "))
    where = ""
    if task.total_steps:
        where = f" at step {task.current_step} of {task.total_steps}"
    elif task.current_step:
        where = f" at step {task.current_step}"
    return f"Task {task.task_id} {phrase}{where} ({task.progress_percent:g}% done)."


def _notes_sentence(scratchpad: list[ScratchpadEntry]) -> str:
    if not scratchpad:
        return "Scratchpad: empty."
    first = _clip(scratchpad[0].text, _MAX_NOTE_CHARS)
    if len(scratchpad) == 1:
        return f"Scratchpad: 1 note: {first!r}."
    last = _clip(scratchpad[-1].text, _MAX_NOTE_CHARS)
    return f"Scratchpad: {len(scratchpad)} notes, first {first!r}, last {last!r}."


def _values_sentence(values: dict[str, Any], budget: int) -> str:
    """``key: value`` pairs in key order, as many as fit in ``budget`` characters."""
    shown: list[str] = []
    used = len("Working values: .")
    for key in sorted(values):
        pair = f"{key}: {_clip(_text_of(values[key]), _MAX_VALUE_CHARS)}"
        if used + len(pair) + 2 > budget:
            left = len(values) - len(shown)
            shown.append(f"and {left} more")
            break
        shown.append(pair)
        used += len(pair) + 2
    return "Working values: " + "; ".join(shown) + "."


def summarise(
    task: TaskState | None, scratchpad: list[ScratchpadEntry], values: dict[str, Any]
) -> str:
    """Where the task ended, the text of the working values and the scratchpad's first and
    last notes: at most :data:`MAX_SUMMARY_CHARS` characters, all searchable words."""
    head = _task_sentence(task)
    notes = _notes_sentence(scratchpad)
    parts = [head]
    if values:
        budget = MAX_SUMMARY_CHARS - len(head) - len(notes) - 2
        parts.append(_values_sentence(values, budget))
    parts.append(notes)
    return _clip(" ".join(parts), MAX_SUMMARY_CHARS)


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
    """What an episode is made of: the session's task state, scratchpad and values."""

    task: TaskState | None
    scratchpad: list[ScratchpadEntry]
    values: dict[str, Any]

    @property
    def empty(self) -> bool:
        return self.task is None and not self.scratchpad and not self.values


async def read_session(wm: WorkingMemory) -> SessionState:
    return SessionState(
        await wm.get_task_state(), await wm.get_scratchpad_with_timestamps(), await wm.get_all()
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
    """The episode of a session that ended at ``ended_at`` (epoch seconds) with ``outcome``.

    Its duration runs from the task's start (when there is a task state) to ``ended_at``;
    the task is summarised with its final status (:func:`final_task`).
    """
    task = final_task(state.task, outcome)
    start = task.started_at.timestamp() if task and task.started_at else ended_at
    duration = max(0.0, ended_at - start)
    description = describe(scope, state, task_description)
    lessons = list(lessons)
    return Episode(
        scope=scope,
        task_type=task_type,
        description=description,
        actions=actions_of(state.scratchpad),
        outcome=outcome,
        outcome_details=outcome_details,
        context_summary=summarise(task, state.scratchpad, state.values),
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
