"""Deterministic synthetic episodes whose statistics are known in advance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sedimem.scope import Scope
from sedimem.types import Episode, Outcome

NOW = datetime(2026, 3, 1, tzinfo=UTC)
S, F, P = Outcome.SUCCESS, Outcome.FAILURE, Outcome.PARTIAL


def episode(
    i: int,
    *,
    task_type: str = "deploy",
    actions: list[str] | None = None,
    outcome: Outcome = S,
    days_ago: float | None = None,
    scope: Scope | None = None,
    **extra: Any,
) -> Episode:
    """Episode number ``i``; by default one per hour going back from ``NOW``."""
    when = NOW - (timedelta(hours=i + 1) if days_ago is None else timedelta(days=days_ago))
    return Episode(
        description=f"episode {i}",
        task_type=task_type,
        actions=actions if actions is not None else ["plan", "act"],
        outcome=outcome,
        occurred_at=when,
        scope=scope or Scope(),
        **extra,
    )


def balanced(count: int, *, task_types: tuple[str, ...] = ("deploy",)) -> list[Episode]:
    """No signal at all: every action set, task type and metric value occurs equally often
    with success and with failure (outcomes alternate inside each block of two)."""
    menus = [["plan", "build"], ["build", "test"], ["plan", "test", "ship"], ["read", "edit"]]
    out = []
    for i in range(count):
        block = i // 2
        out.append(
            episode(
                i,
                task_type=task_types[block % len(task_types)],
                actions=menus[(block // len(task_types)) % len(menus)],
                outcome=S if i % 2 == 0 else F,
                duration_seconds=50.0 + (block * 37) % 100,
                tokens_used=1000 + (block * 53) % 200,
                outcome_details="finished",
            )
        )
    return out
