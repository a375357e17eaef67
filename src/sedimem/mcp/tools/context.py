"""``assemble_context``: the memories that matter for a query, packed into a token budget."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    Budget,
    Project,
    Query,
    SessionFilter,
    User,
)
from sedimem.mcp.tools.base import ToolEnv, dump

__all__ = ["ContextTool"]


class ContextTool:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def assemble_context(
        self,
        query: Annotated[Query, Field(description="What the next step is about.")],
        budget_tokens: Budget = 2000,
        session: Annotated[
            SessionFilter,
            Field(description="Include this session's working state (task, keys, notes)."),
        ] = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Build a ready-to-paste markdown context for the next prompt: pinned blocks, the
        session's working state, matching procedures, current facts and relevant episodes,
        ranked and packed into at most budget_tokens tokens (counted exactly). Use it at
        the start of a task or step instead of several recall calls. Returns the text,
        tokens used, and per tier what was included and dropped."""
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        context = await self._env.memory.assemble(query, scope, budget_tokens)
        report = context.report
        return {
            "text": context.text,
            "tokens_used": context.tokens_used,
            "budget_tokens": context.budget_tokens,
            "tokenizer": context.tokenizer,
            "tiers": [dump(t) for t in report.tiers],
            "included": len(report.included),
            "dropped": len(report.dropped),
            "truncated": len(report.truncated),
        }
