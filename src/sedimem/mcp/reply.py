"""What a tool answers: compact text lines by default, structured data when asked.

The text is what a model reads cheaply: one line per record, its id first (to pass to
``update_memory`` / ``forget_memory``), scores rounded to three decimals, dates without
seconds, unset fields left out. ``format="json"`` answers with the same result as
``structuredContent`` (and its compact JSON as the text, for hosts that read text only):
records as the record types dump them, for programs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from sedimem.types.longterm import Episode, Fact, Procedure
from sedimem.types.search import Hit

__all__ = [
    "dump",
    "dump_hits",
    "episode_line",
    "fact_line",
    "hit_lines",
    "procedure_line",
    "record_line",
    "reply",
    "when",
]


def reply(format: str, data: dict[str, Any], text: Callable[[], str]) -> CallToolResult:
    """The tool's answer: ``text()`` for ``format="text"``, else ``data`` as JSON."""
    if format == "json":
        compact = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        return CallToolResult(
            content=[TextContent(type="text", text=compact)], structured_content=data
        )
    return CallToolResult(content=[TextContent(type="text", text=text())])


def dump(model: BaseModel) -> dict[str, Any]:
    """A record as JSON-ready data; unset (null) fields are left out."""
    return model.model_dump(mode="json", exclude_none=True)


def dump_hits(hits: Sequence[Hit[Any]]) -> list[dict[str, Any]]:
    """Hits best first, each with its score breakdown (vector, keyword, recency, ...)."""
    return [
        {
            "id": hit.record.id,
            "score": hit.score,
            "explain": dump(hit.explain),
            "record": dump(hit.record),
        }
        for hit in hits
    ]


def when(moment: datetime | None) -> str:
    """``2025-03-01 10:00`` (UTC), or ``?``."""
    return "?" if moment is None else moment.strftime("%Y-%m-%d %H:%M")


def _joined(items: Iterable[str]) -> str:
    return "; ".join(items)


def episode_line(e: Episode) -> str:
    line = f"episode {e.id}: {e.description} [{e.outcome.value}, {when(e.occurred_at)}"
    line += "" if e.task_type == "general" else f", {e.task_type}"
    line += f", importance {round(e.importance, 3)}]"
    if e.outcome_details:
        line += f" why: {e.outcome_details}"
    if e.actions:
        line += f" actions: {_joined(e.actions)}"
    if e.lessons_learned:
        line += f" lessons: {_joined(e.lessons_learned)}"
    return line


def fact_line(f: Fact) -> str:
    line = f"fact {f.id}: {f.statement}"
    notes = []
    if f.subject is not None:
        notes.append(f"{f.subject} / {f.predicate} / {f.object or ''}".rstrip(" /"))
    if f.valid_to is not None:
        notes.append(f"true {when(f.valid_from)} .. {when(f.valid_to)}")
    if f.invalidated_at is not None:
        notes.append(f"not believed since {when(f.invalidated_at)}")
    if f.confidence < 1:
        notes.append(f"confidence {round(f.confidence, 3)}")
    return line + (f" [{'; '.join(notes)}]" if notes else "")


def procedure_line(p: Procedure) -> str:
    uses = p.success_count + p.failure_count
    steps = " ".join(f"{n}. {step}" for n, step in enumerate(p.steps, 1))
    return (
        f"procedure {p.id}: {p.name} v{p.version} [worked {p.success_count}/{uses}, "
        f"success rate {round(p.success_rate, 3)}] when: {p.trigger} steps: {steps}"
    )


def record_line(record: Episode | Fact | Procedure) -> str:
    if isinstance(record, Episode):
        return episode_line(record)
    if isinstance(record, Fact):
        return fact_line(record)
    return procedure_line(record)


def hit_lines(hits: Sequence[Hit[Any]]) -> list[str]:
    """``- 0.734 fact 0190...: statement [...]``, best first."""
    return [f"- {hit.score:.3f} {record_line(hit.record)}" for hit in hits]
