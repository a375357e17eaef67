"""Turning a session's working state into an episode: summary, actions, importance."""

from __future__ import annotations

from memstrata.types.longterm import Outcome
from memstrata.types.working import ScratchpadEntry, TaskState

__all__ = ["MAX_ACTIONS", "actions_of", "importance_of", "summarise"]

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
