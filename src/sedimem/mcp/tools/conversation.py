"""``ingest_messages``: the conversation so far, filed and read for facts, once per turn."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from sedimem.mcp.arguments import Agent, AgentType, Project, SessionFilter, User
from sedimem.mcp.tools.base import ToolEnv, dump
from sedimem.types.conversation import MAX_MESSAGES, MessageFields

__all__ = ["ConversationTool"]


class ConversationTool:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def ingest_messages(
        self,
        messages: Annotated[
            list[MessageFields],
            Field(
                min_length=1,
                max_length=MAX_MESSAGES,
                description="Chat turns, oldest first: role, content, optional name, "
                "timestamp and id.",
            ),
        ],
        session: SessionFilter = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Store chat turns (yours and the user's) as memory and learn the facts they
        state. Use it after each exchange, or with the whole conversation: turns already
        stored are skipped (by id, else by role, timestamp and content). Returns the ids of
        the stored and skipped turns and of the facts inserted, reinforced, superseded or
        ended, with possible conflicts."""
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        return dump(await self._env.memory.ingest(messages, scope))
