"""``recall``: search long-term memory (episodes, facts, procedures) by meaning and words."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import CallToolResult
from pydantic import Field

from sedimem.errors import ValidationError
from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    Format,
    Importance,
    K,
    Kind,
    Label,
    OptionalTime,
    OutcomeName,
    Project,
    Query,
    RecordId,
    Session,
    Since,
    Until,
    User,
)
from sedimem.mcp.reply import dump, dump_hits, hit_lines, record_line, reply
from sedimem.mcp.tools.base import ToolEnv, time_range
from sedimem.memory import record_kind
from sedimem.types.search import Hit

__all__ = ["RecallTool"]

_ALL: tuple[Kind, ...] = ("fact", "episode", "procedure")


class RecallTool:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def recall(
        self,
        query: Query | None = None,
        id: Annotated[
            RecordId | None,
            Field(description="Instead of a query: read this memory whole (an id or a handle)."),
        ] = None,
        k: K = 10,
        kinds: Annotated[
            list[Kind] | None, Field(min_length=1, description="Default: all three.")
        ] = None,
        outcome: OutcomeName = None,
        task_type: Annotated[Label | None, Field(description="Only this task type.")] = None,
        min_importance: Annotated[
            Importance | None, Field(description="Only episodes this important.")
        ] = None,
        since: Since = None,
        until: Until = None,
        valid_at: Annotated[
            OptionalTime, Field(description="Facts true then (default now).")
        ] = None,
        known_at: Annotated[OptionalTime, Field(description="Facts as believed then.")] = None,
        subject: Annotated[Label | None, Field(description="Only facts about it.")] = None,
        predicate: Annotated[Label | None, Field(description="Only this relation.")] = None,
        include_history: Annotated[bool, Field(description="Also facts no longer true.")] = False,
        from_session: Annotated[
            Session, Field(description="Only what this session recorded.")
        ] = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        session: Session = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Search memory before acting: facts (true now, unless valid_at, known_at or
        include_history), past episodes and procedures that worked, from every earlier
        session. Returns hits best first, with ids and scores. With id: that one memory
        whole (the rest of a passage a context ended with (id ...))."""
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        memory = self._env.memory
        if id is not None:
            if query is not None:
                raise ValidationError("query", "goes without id: search or read one memory")
            record = await memory.read(id, scope)
            read = {"kind": record_kind(record), "id": record.id, "record": dump(record)}
            return reply(format, read, lambda: record_line(record))
        if query is None:
            raise ValidationError("query", "give a query to search (or an id to read)")
        chosen = kinds or _ALL
        found: dict[str, list[Hit[Any]]] = {}
        # one kind after the other: a failure then stops the call with nothing left running
        if "fact" in chosen:
            found["facts"] = list(
                await memory.facts.recall(
                    query,
                    scope=scope,
                    k=k,
                    valid_at=valid_at,
                    known_at=known_at,
                    subject=subject,
                    predicate=predicate,
                    include_history=include_history,
                    session=from_session,
                )
            )
        if "episode" in chosen:
            found["episodes"] = list(
                await memory.episodes.recall(
                    query,
                    scope=scope,
                    k=k,
                    time_range=time_range(since, until),
                    outcome=outcome,
                    task_type=task_type,
                    min_importance=min_importance,
                    session=from_session,
                )
            )
        if "procedure" in chosen:
            found["procedures"] = list(
                await memory.procedures.find_matching(query, scope=scope, k=k, session=from_session)
            )
        data: dict[str, Any] = {"query": query}
        data.update((name, dump_hits(hits)) for name, hits in found.items())

        def text() -> str:
            lines: list[str] = []
            for name, hits in found.items():
                lines.append(f"{name}:" if hits else f"{name}: none")
                lines += hit_lines(hits)
            return "\n".join(lines)

        return reply(format, data, text)
