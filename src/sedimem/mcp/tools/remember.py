"""``remember``: plain text into long-term memory, filed as a note, a fact, an episode or a
procedure."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from sedimem.errors import ValidationError
from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    Cardinality,
    FactValue,
    Format,
    ImportanceArg,
    Label,
    Lessons,
    OutcomeName,
    Project,
    Session,
    Text,
    TextList,
    User,
)
from sedimem.mcp.reply import dump, fact_line, reply
from sedimem.mcp.tools.base import ToolEnv
from sedimem.scope import Scope
from sedimem.types.conversation import IngestResult
from sedimem.types.longterm import Episode, Fact, LearnResult, Procedure

__all__ = ["KIND_FIELDS", "RememberTool"]

RememberKind = Literal["auto", "fact", "episode", "procedure"]

#: The arguments each kind takes besides ``text`` and the scope fields;
#: ``fields`` may also set the record's less common fields named in ``EXTRA_FIELDS``.
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "auto": (),
    "fact": ("subject", "predicate", "object", "cardinality"),
    "episode": ("outcome", "lessons_learned", "importance"),
    "procedure": ("name", "steps"),
}
EXTRA_FIELDS: dict[str, tuple[str, ...]] = {
    "auto": (),
    "fact": ("metadata", "confidence", "valid_from", "valid_to", "source_episode_ids"),
    "episode": (
        "metadata",
        "task_type",
        "occurred_at",
        "actions",
        "outcome_details",
        "context_summary",
        "duration_seconds",
        "tokens_used",
        "input_text",
        "output_text",
    ),
    "procedure": ("metadata",),
}
_TEXT_FIELD = {"fact": "statement", "episode": "description", "procedure": "trigger"}
_OPTIONAL = frozenset(name for names in KIND_FIELDS.values() for name in names)


class RememberTool:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def remember(
        self,
        text: Annotated[Text, Field(description="What to remember, in plain words.")],
        kind: Annotated[
            RememberKind,
            Field(
                description="auto: a note, its facts learned. fact: one statement. "
                "episode: how a task went. procedure: steps (text: when to use them)."
            ),
        ] = "auto",
        subject: Annotated[Label | None, Field(description="fact: who or what.")] = None,
        predicate: Annotated[
            Label | None, Field(description="fact: relation, e.g. lives_in.")
        ] = None,
        object: Annotated[FactValue | None, Field(description="fact: the value.")] = None,
        cardinality: Annotated[
            Cardinality | None,
            Field(description="fact: one = replaces the current value; many = adds."),
        ] = None,
        outcome: OutcomeName = None,
        lessons_learned: Lessons = None,
        importance: ImportanceArg = None,
        name: Annotated[Label | None, Field(description="procedure: its name.")] = None,
        steps: Annotated[
            TextList | None, Field(description="procedure: its steps, in order.")
        ] = None,
        fields: Annotated[
            dict[str, Any] | None,
            Field(description="More fields, e.g. {metadata: {...}, valid_from} or {actions}."),
        ] = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        session: Session = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Store what is worth knowing in a later session: a preference, a decision, how
        a task went, steps that worked. Plain text is enough; a kind files it exactly."""
        given = {
            n: v
            for n, v in dict(locals()).items()  # first statement: the tool's arguments
            if n in _OPTIONAL and v is not None
        }
        record = _fields(kind, given, fields or {})
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        if kind == "auto":
            return await self._note(text, scope, format)
        record[_TEXT_FIELD[kind]] = text
        memory = self._env.memory
        if kind == "fact":
            learned = await memory.facts.learn(Fact(scope=scope, **record))
            return _learned(learned, format)
        if kind == "episode":
            episode = await memory.episodes.record(Episode(scope=scope, **record))
            data = {"kind": kind, "id": episode.id, "record": dump(episode)}
            return reply(format, data, lambda: f"stored episode {episode.id}")
        procedure = await memory.procedures.record(Procedure(scope=scope, **record))
        data = {"kind": kind, "id": procedure.id, "record": dump(procedure)}
        text_line = f"stored procedure {procedure.id} ({procedure.name} v{procedure.version})"
        return reply(format, data, lambda: text_line)

    async def _note(self, text: str, scope: Scope, format: str) -> CallToolResult:
        result = await self._env.memory.remember(text, scope)
        data = {"kind": "auto", **dump(result)}
        learned = [*result.inserted, *result.reinforced]
        facts = {f: await self._env.memory.facts.get(f, tenant=scope.tenant) for f in learned}
        return reply(format, data, lambda: _note_text(result, facts))


def _fields(kind: str, given: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """The record fields of ``kind`` from the given arguments; refuse those of another
    kind (a model that mixed kinds learns which ones apply)."""
    own, more = KIND_FIELDS[kind], EXTRA_FIELDS[kind]
    for name in given:
        if name not in own:
            raise ValidationError(
                name, f"does not apply to kind {kind!r}", allowed=", ".join(own) or "nothing"
            )
    for name in extra:
        if name not in more:
            raise ValidationError(
                f"fields.{name}",
                f"is not a field kind {kind!r} takes here",
                allowed=", ".join(more) or "nothing",
            )
    if kind == "procedure":
        for name in ("name", "steps"):
            if name not in given:
                raise ValidationError(name, "is required for kind 'procedure'")
    return {**extra, **given}


def _learned(learned: LearnResult, format: str) -> CallToolResult:
    fact = learned.fact
    data: dict[str, Any] = {
        "kind": "fact",
        "id": fact.id,
        "action": learned.action,
        "superseded": learned.superseded,
        "closed": [f.id for f in learned.closed],
        "record": dump(fact),
    }
    if learned.possible_conflicts:
        data["possible_conflicts"] = [
            {"id": f.id, "object": f.object, "statement": f.statement}
            for f in learned.possible_conflicts
        ]

    def text() -> str:
        lines = [f"{learned.action} {fact_line(fact)}"]
        if learned.superseded:
            lines.append("replaced (kept as history): " + ", ".join(learned.superseded))
        if learned.possible_conflicts:
            lines.append("possible conflicts (both kept; update or forget one if wrong):")
            lines += [f"- {fact_line(f)}" for f in learned.possible_conflicts]
        return "\n".join(lines)

    return reply(format, data, text)


def _note_text(result: IngestResult, facts: dict[str, Fact]) -> str:
    if result.stored:
        lines = [f"stored note episode {result.stored[0]}"]
    else:
        lines = [f"already noted as episode {', '.join(result.duplicates)}"]
    lines += [f"learned {fact_line(facts[f])}" for f in result.inserted]
    lines += [f"reinforced {fact_line(facts[f])}" for f in result.reinforced]
    if result.superseded:
        lines.append("replaced (kept as history): " + ", ".join(result.superseded))
    if result.error:
        lines.append(f"fact extraction failed (the note is stored): {result.error}")
    return "\n".join(lines)
