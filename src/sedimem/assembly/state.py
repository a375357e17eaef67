"""The tiers that are not ranked by the question: pinned blocks and working state."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

from sedimem.context.models import ContextItem
from sedimem.scope import Scope

if TYPE_CHECKING:
    from sedimem.memory import Memory

__all__ = ["block_items", "working_items"]

_SCRATCHPAD_NOTES = 10


async def block_items(memory: Memory, scope: Scope) -> list[ContextItem]:
    """Every non-empty pinned block, in its order."""
    return [
        ContextItem(id=b.id, text=b.content, label=b.name, score=1.0)
        for b in await memory.blocks(scope).list()
        if b.content
    ]


async def working_items(memory: Memory, scope: Scope) -> list[ContextItem]:
    """The session's task state, keys and newest scratchpad notes (none without a session)."""
    if scope.session is None:
        return []
    wm = memory.working(scope)
    state, values, notes = await asyncio.gather(
        wm.get_task_state(), wm.get_all(), wm.get_scratchpad_with_timestamps()
    )
    items: list[ContextItem] = []
    if state is not None:
        steps = f"step {state.current_step}" + (
            f" of {state.total_steps}" if state.total_steps else ""
        )
        items.append(
            ContextItem(
                id=f"task:{state.task_id}",
                label="task",
                text=f"{state.task_id}: {state.status.value}, {steps}, "
                f"{state.progress_percent:g}% done",
                score=1.0,
            )
        )
    for key, value in values.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        items.append(ContextItem(id=f"key:{key}", label=key, text=text, score=0.9))
    for note in reversed(notes[-_SCRATCHPAD_NOTES:]):  # newest first: they matter most
        items.append(ContextItem(id=f"note:{note.id}", label="note", text=note.text, score=0.8))
    return items
