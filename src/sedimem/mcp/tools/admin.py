"""``forget``, ``reflect`` and ``get_memory_stats``: erase, learn from, and size up memory."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from sedimem.errors import PermissionDenied
from sedimem.mcp import limits
from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    Label,
    OptionalTime,
    Project,
    SessionFilter,
    User,
)
from sedimem.mcp.tools.base import ToolEnv, dump, time_range

__all__ = ["AdminTools"]


class AdminTools:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def forget(
        self,
        user: Annotated[
            User, Field(description="Erase this user's memories (and working sessions).")
        ] = None,
        session: Annotated[
            SessionFilter, Field(description="Erase this session's memories and working state.")
        ] = None,
        before: Annotated[
            OptionalTime, Field(description="Erase episodes that occurred before this time.")
        ] = None,
    ) -> dict[str, Any]:
        """Permanently erase memories (GDPR erasure): everything matching ALL given conditions
        (at least one of user, session, before), in every tier: pinned blocks, working
        state and checkpoints, episodes, facts, procedures, records derived from them
        (erased when all their sources are, re-derived when some are) and run logs naming
        them; then scrubbed from the store's files. A key narrowed to a user erases only
        that user's data; a key narrowed to a project or agent cannot erase (erasure spans
        projects and agents).
        Returns how many records of each kind were erased."""
        key = self._env.key()
        if key.project is not None or key.agent is not None:
            raise PermissionDenied(
                "forget erases across projects and agents; this key is narrowed to "
                f"project={key.project!r}, agent={key.agent!r} (use a tenant or user key)"
            )
        scope = key.narrow(user=user, session=session)
        receipt = await self._env.memory.forget(
            key.tenant, user=scope.user, session=scope.session, before=before
        )
        return {"erased": dump(receipt)}

    async def reflect(
        self,
        since: Annotated[
            OptionalTime, Field(description="Analyse episodes from this time (default all).")
        ] = None,
        until: Annotated[OptionalTime, Field(description="... up to this time.")] = None,
        task_types: Annotated[
            list[Label] | None,
            Field(
                max_length=limits.MAX_TASK_TYPES,
                description="Only these task types (default the most frequent ones).",
            ),
        ] = None,
        baseline_days: Annotated[
            float,
            Field(
                gt=0,
                le=limits.MAX_BASELINE_DAYS,
                description="Days of history anomalies are judged against; must exceed the "
                "7-day recent window.",
            ),
        ] = 30.0,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        session: SessionFilter = None,
    ) -> dict[str, Any]:
        """Learn from past episodes (statistics, no LLM): recurring success and failure
        patterns, success and risk factors per task type, anomalies in duration, tokens and
        failure rate, and insights drawn from them. Use it to review what works before a
        task or after a streak of failures. Each finding carries its confidence and the ids
        of the episodes it rests on."""
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        report = await self._env.memory.reflect(
            scope,
            time_range=time_range(since, until),
            task_types=task_types,
            baseline_days=baseline_days,
        )
        return dump(report)

    async def get_memory_stats(
        self,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        session: SessionFilter = None,
    ) -> dict[str, Any]:
        """How much memory the scope holds: episodes, facts (and how many are current),
        procedures (with no user: every user's records; with a user: what that user sees),
        the backends in use, and, with a session, that session's working memory (keys,
        scratchpad entries, checkpoints, task state). Cheap: counts only."""
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        memory = self._env.memory
        result = {"scope": dump(scope), "longterm": dump(await memory.stats(scope))}
        if scope.session is not None:
            result["working"] = dump(await memory.working(scope).get_stats())
        return result
