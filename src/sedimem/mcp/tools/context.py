"""``assemble_context``: the memories that matter for a query, packed into a token budget."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult

from sedimem.mcp.arguments import Agent, AgentType, Budget, Format, Project, Query, Session, User
from sedimem.mcp.reply import dump, reply
from sedimem.mcp.tools.base import ToolEnv

__all__ = ["ContextTool"]


class ContextTool:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def assemble_context(
        self,
        query: Query,
        budget_tokens: Budget = 2000,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        session: Session = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Get the context for the next step in one call: core memory, the session's
        state, matching procedures, facts and episodes, packed into budget_tokens. Use
        it at the start of a task or a step."""
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        context = await self._env.memory.assemble(query, scope, budget_tokens)
        report = context.report
        data: dict[str, Any] = {
            "text": context.text,
            "tokens_used": context.tokens_used,
            "budget_tokens": context.budget_tokens,
            "tokenizer": context.tokenizer,
            "tiers": [dump(t) for t in report.tiers],
            "included": len(report.included),
            "dropped": len(report.dropped),
            "truncated": len(report.truncated),
        }

        def text() -> str:
            head = (
                f"<!-- {context.tokens_used}/{context.budget_tokens} tokens; "
                f"{len(report.included)} memories included, {len(report.dropped)} left out -->"
            )
            return f"{head}\n{context.text}"

        return reply(format, data, text)
