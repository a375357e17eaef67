"""Context assembly: fetch every tier in parallel, rank, and pack into a token budget.

Tiers, in the order they appear: pinned blocks (always first), working state (task,
keys, the newest scratchpad notes), matching procedures, facts true and believed now,
episodes. Long-term tiers are searched across every session of the scope's owner; facts and
episodes of the asking session get a small boost (:data:`SESSION_BOOST`), and both sections
are put in maximal-marginal-relevance order (:mod:`sedimem.context.diversity`: a near-copy
of a memory already in yields to a distinct one). Packing (quotas, the exact token count,
the report) is :mod:`sedimem.context`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING

from sedimem import observe
from sedimem.context.diversity import diversify
from sedimem.context.models import AssembledContext, ContextFormat, ContextItem
from sedimem.context.packing import pack
from sedimem.context.tokens import Tokenizer
from sedimem.longterm.arguments import check_query
from sedimem.scope import Scope
from sedimem.types.longterm import Episode, Fact
from sedimem.types.search import Hit

if TYPE_CHECKING:
    from sedimem.memory import Memory

__all__ = ["SESSION_BOOST", "assemble"]

_SCRATCHPAD_NOTES = 10
_PER_TIER = 20
#: Facts and episodes recorded in the session asking rank this much higher (x 1.1): every
#: session of the owner is searched, and what this session learned is the likeliest to
#: matter to its next step. Small, so a much better match from another session still wins.
SESSION_BOOST = 0.1


async def _blocks(memory: Memory, scope: Scope) -> list[ContextItem]:
    return [
        ContextItem(id=b.id, text=b.content, label=b.name, score=1.0)
        for b in await memory.blocks(scope).list()
        if b.content
    ]


async def _working(memory: Memory, scope: Scope) -> list[ContextItem]:
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


async def _procedures(memory: Memory, query: str, scope: Scope) -> list[ContextItem]:
    hits = await memory.procedures.find_matching(query, scope=scope.owner, k=5)
    return [
        ContextItem(
            id=h.record.id,
            label=h.record.name,
            text="; ".join(f"{i}. {step}" for i, step in enumerate(h.record.steps, start=1)),
            score=h.score,
        )
        for h in hits
    ]


def _boosted(scope: Scope, hit: Hit[Fact] | Hit[Episode]) -> float:
    """A hit's score, raised a little when it was recorded in the session asking."""
    own = scope.session is not None and hit.record.scope.session == scope.session
    return hit.score * (1.0 + SESSION_BOOST) if own else hit.score


def _ranked(items: list[ContextItem]) -> list[ContextItem]:
    # stable: ties keep their rank; then near-copies yield to distinct memories
    return diversify(sorted(items, key=lambda item: -item.score))


async def _facts(memory: Memory, query: str, scope: Scope) -> list[ContextItem]:
    hits = await memory.facts.recall(query, scope=scope, k=_PER_TIER)
    return _ranked(
        [
            ContextItem(id=h.record.id, text=h.record.statement, score=_boosted(scope, h))
            for h in hits
        ]
    )


async def _episodes(memory: Memory, query: str, scope: Scope) -> list[ContextItem]:
    hits = await memory.episodes.recall(query, scope=scope, k=_PER_TIER)
    items = []
    for h in hits:
        e = h.record
        text = e.description
        if e.lessons_learned:
            text += " Lessons: " + "; ".join(e.lessons_learned)
        label = f"{e.occurred_at:%Y-%m-%d} {e.outcome.value}"
        items.append(ContextItem(id=e.id, text=text, label=label, score=_boosted(scope, h)))
    return _ranked(items)


@observe.operation("assemble")
async def assemble(
    memory: Memory,
    query: str,
    scope: Scope,
    budget_tokens: int,
    *,
    quotas: Mapping[str, float] | None = None,
    format: ContextFormat = "markdown",
    tokenizer: Tokenizer | None = None,
) -> AssembledContext:
    """The most useful memories for ``query``, packed into at most ``budget_tokens``."""
    check_query(query)
    blocks, working, procedures, facts, episodes = await asyncio.gather(
        _blocks(memory, scope),
        _working(memory, scope),
        _procedures(memory, query, scope),
        _facts(memory, query, scope),
        _episodes(memory, query, scope),
    )
    sections = {
        "blocks": blocks,
        "working": working,
        "procedures": procedures,
        "facts": facts,
        "episodes": episodes,
    }
    return pack(sections, budget_tokens, quotas=quotas, format=format, tokenizer=tokenizer)
