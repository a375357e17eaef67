"""``ingest_messages``: the conversation so far, filed and read for facts, once per turn."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from sedimem.mcp.arguments import Agent, AgentType, Format, Project, Session, User
from sedimem.mcp.reply import dump, reply
from sedimem.mcp.tools.base import ToolEnv
from sedimem.types.conversation import MAX_MESSAGES, IngestResult, MessageFields

__all__ = ["ConversationTool"]


class ConversationTool:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def ingest_messages(
        self,
        messages: Annotated[
            list[MessageFields],
            Field(min_length=1, max_length=MAX_MESSAGES, description="The turns, oldest first."),
        ],
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        session: Session = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Store chat turns (yours and the user's) and learn the facts they state. Call it
        after each exchange, or with the whole conversation: turns already stored are
        skipped (by id, else by role, timestamp and content)."""
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        result = await self._env.memory.ingest(messages, scope)
        return reply(format, dump(result), lambda: ingest_text(result))


def ingest_text(result: IngestResult) -> str:
    lines = [f"stored {len(result.stored)} turns, {len(result.duplicates)} already stored"]
    for name in ("inserted", "reinforced", "superseded", "ended"):
        ids: list[str] = getattr(result, name)
        if ids:
            lines.append(f"facts {name}: {', '.join(ids)}")
    if result.possible_conflicts:
        lines.append(
            "possible conflicts (both kept): " + ", ".join(f.id for f in result.possible_conflicts)
        )
    if result.usage is not None:
        u = result.usage
        lines.append(
            f"model: {u.requests} requests, {u.prompt_tokens}+{u.completion_tokens} tokens"
        )
    if result.error:
        lines.append(f"fact extraction failed (the turns are stored): {result.error}")
    return "\n".join(lines)
