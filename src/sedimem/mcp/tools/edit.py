"""``update_memory`` and ``forget_memory``: change or remove one long-term record by id.

The id says which kind of record it is (``Memory.kind_of``); the services decide who may
change what (another tenant's id does not exist, a record beyond the key's narrowing is
refused). The fields an update takes per kind are those of the kind's ``*Changes`` type,
with ``text`` standing for the kind's main text.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from sedimem.errors import NotFound, ValidationError
from sedimem.mcp.arguments import (
    FactValue,
    Format,
    Importance,
    ImportanceArg,
    Lessons,
    OptionalTime,
    OutcomeName,
    RecordId,
    Text,
    TextList,
)
from sedimem.mcp.reply import dump, record_line, reply
from sedimem.mcp.tools.base import ToolEnv
from sedimem.memory import RecordKind
from sedimem.types.edits import EpisodeChanges, FactChanges, ProcedureChanges
from sedimem.types.longterm import Episode, Fact, Procedure

__all__ = ["CHANGES", "EditTools"]

#: What ``update_memory`` changes, per kind: the fields of the kind's changes type.
CHANGES: dict[str, type[EpisodeChanges] | type[FactChanges] | type[ProcedureChanges]] = {
    "episode": EpisodeChanges,
    "fact": FactChanges,
    "procedure": ProcedureChanges,
}
#: The field ``text`` stands for, per kind.
TEXT_FIELD = {"episode": "description", "fact": "statement", "procedure": "trigger"}


def _allowed(kind: str) -> str:
    names = ["text" if n == TEXT_FIELD[kind] else n for n in CHANGES[kind].model_fields]
    return ", ".join(names + (["used"] if kind == "procedure" else []))


class EditTools:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def update_memory(
        self,
        id: RecordId,
        text: Annotated[
            Text | None,
            Field(description="New main text (episode description, fact, procedure trigger)."),
        ] = None,
        object: Annotated[FactValue | None, Field(description="fact: the new value.")] = None,
        confidence: Annotated[Importance | None, Field(description="fact: 0..1.")] = None,
        valid_to: Annotated[OptionalTime, Field(description="fact: when it stopped.")] = None,
        outcome: OutcomeName = None,
        lessons_learned: Lessons = None,
        importance: ImportanceArg = None,
        steps: Annotated[
            TextList | None, Field(min_length=1, description="procedure: next version.")
        ] = None,
        used: Annotated[
            Literal["success", "failure"] | None,
            Field(description="procedure: it worked or not (ranks it)."),
        ] = None,
        fields: Annotated[
            dict[str, Any] | None,
            Field(description="More fields, e.g. {metadata: {...}, valid_from} or {actions}."),
        ] = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Correct a memory by id; only the fields given change. A fact's correction is a
        new version (new id; the old one kept as history). After following a procedure,
        report it with used."""
        given = {
            n: v
            for n, v in dict(locals()).items()  # first statement: the tool's arguments
            if n not in ("self", "id", "format", "fields") and v is not None
        }
        for name, value in (fields or {}).items():
            if name in given or name == "text":
                raise ValidationError(f"fields.{name}", "is an argument of its own")
            given[name] = value
        scope = self._env.scope()
        memory = self._env.memory
        kind = await memory.kind_of(id, scope)
        changes = _changes(kind, given)
        if kind == "procedure" and "used" in given:
            if changes:
                raise ValidationError("used", "goes alone: report a use, then edit")
            updated = await memory.procedures.record_outcome(id, used == "success", scope=scope)
            return _changed(kind, updated, None, format)
        if not changes:
            raise ValidationError(
                "changes", "name at least one field to change", allowed=_allowed(kind)
            )
        if kind == "episode":
            episode = await memory.episodes.update(id, EpisodeChanges(**changes), scope=scope)
            return _changed(kind, episode, None, format)
        if kind == "fact":
            learned = await memory.facts.correct(id, FactChanges(**changes), scope=scope)
            return _changed(kind, learned.fact, learned.superseded, format)
        procedure = await memory.procedures.update(id, ProcedureChanges(**changes), scope=scope)
        return _changed(kind, procedure, None, format)

    async def forget_memory(
        self,
        id: RecordId,
        keep_history: Annotated[
            bool,
            Field(description="fact: stop believing it but keep it in its history."),
        ] = False,
        format: Format = "text",
    ) -> CallToolResult:
        """Remove one memory by id: an episode, a fact or a procedure that is wrong or
        must go. Deleted for good, unless keep_history (facts: no longer true)."""
        scope = self._env.scope()
        memory = self._env.memory
        kind = await memory.kind_of(id, scope)
        if keep_history:
            if kind != "fact":
                raise ValidationError("keep_history", f"applies to facts; {id!r} is a {kind}")
            fact = await memory.facts.invalidate(id, scope=scope)
            data = {"kind": kind, "id": id, "invalidated": True, "record": dump(fact)}
            return reply(format, data, lambda: f"no longer believed: {record_line(fact)}")
        if kind == "episode":
            deleted = await memory.episodes.delete(id, scope=scope)
        elif kind == "fact":
            deleted = await memory.facts.delete(id, scope=scope)
        else:
            deleted = await memory.procedures.delete(id, scope=scope)
        if not deleted:
            raise NotFound(f"{kind} {id!r} does not exist")
        return reply(format, {"kind": kind, "deleted": id}, lambda: f"deleted {kind} {id}")


def _changes(kind: RecordKind, given: dict[str, Any]) -> dict[str, Any]:
    """The changes of ``kind`` named as its record names them; refuse other kinds' fields."""
    fields = CHANGES[kind].model_fields
    changes: dict[str, Any] = {}
    for name, value in given.items():
        field = TEXT_FIELD[kind] if name == "text" else name
        if field in fields:
            changes[field] = value
        elif not (name == "used" and kind == "procedure"):
            raise ValidationError(name, f"does not apply to a {kind}", allowed=_allowed(kind))
    return changes


def _changed(
    kind: str,
    record: Episode | Fact | Procedure,
    superseded: list[str] | None,
    format: str,
) -> CallToolResult:
    data: dict[str, Any] = {"kind": kind, "id": record.id, "record": dump(record)}
    if superseded is not None:
        data["superseded"] = superseded

    def text() -> str:
        line = f"updated {record_line(record)}"
        if superseded:
            line += f"\n(new version; replaced {', '.join(superseded)}, kept as history)"
        return line

    return reply(format, data, text)
