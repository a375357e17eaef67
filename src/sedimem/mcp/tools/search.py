"""``recall``, ``search_procedures`` and ``record_outcome``: read long-term memory."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from sedimem.mcp import limits
from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    FromSession,
    Importance,
    K,
    Label,
    OptionalTime,
    OutcomeName,
    Project,
    Query,
    RecordId,
    SessionFilter,
    TierName,
    User,
)
from sedimem.mcp.tools.base import ToolEnv, dump_hits, time_range
from sedimem.types.longterm import Procedure

__all__ = ["SearchTools"]

_ALL_TIERS: tuple[TierName, ...] = ("episodic", "semantic", "procedural")


class SearchTools:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def recall(
        self,
        query: Query,
        k: K = 10,
        tiers: Annotated[
            list[TierName] | None,
            Field(
                min_length=1,
                max_length=3,
                description="Tiers to search (default all three): episodic, semantic, procedural.",
            ),
        ] = None,
        outcome: Annotated[
            OutcomeName | None, Field(description="episodic: only episodes that ended so.")
        ] = None,
        task_type: Annotated[
            Label | None, Field(description="episodic: only this kind of task.")
        ] = None,
        min_importance: Annotated[
            Importance | None, Field(description="episodic: only this important or more, 0..1.")
        ] = None,
        since: Annotated[
            OptionalTime, Field(description="episodic: only episodes at or after this time.")
        ] = None,
        until: Annotated[
            OptionalTime, Field(description="episodic: only episodes at or before this time.")
        ] = None,
        valid_at: Annotated[
            OptionalTime,
            Field(description="semantic: facts true in the world at this time (default now)."),
        ] = None,
        known_at: Annotated[
            OptionalTime,
            Field(description="semantic: facts as the system believed them at this time."),
        ] = None,
        subject: Annotated[
            Label | None, Field(description="semantic: only facts about this.")
        ] = None,
        predicate: Annotated[
            Label | None, Field(description="semantic: only this relation, e.g. 'lives_in'.")
        ] = None,
        include_history: Annotated[
            bool, Field(description="semantic: also facts that are no longer true in the world.")
        ] = False,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        session: SessionFilter = None,
        from_session: FromSession = None,
    ) -> dict[str, Any]:
        """Search long-term memory by meaning and keywords before acting: past episodes (what
        was tried and how it ended), facts (true now unless valid_at / include_history say
        otherwise) and procedures (ranked by match x success rate), from every earlier
        session (from_session: only one). Filters apply to their own tier. Returns, per
        tier, hits best first, each with its id, score, a breakdown of the score (vector,
        keyword, recency, importance, fused) and the record."""
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        memory = self._env.memory
        result: dict[str, Any] = {"query": query}
        chosen = tiers or _ALL_TIERS
        # one tier after the other: a failure then stops the call with nothing left running
        if "episodic" in chosen:
            episodes = await memory.episodes.recall(
                query,
                scope=scope,
                k=k,
                time_range=time_range(since, until),
                outcome=outcome,
                task_type=task_type,
                min_importance=min_importance,
                session=from_session,
            )
            result["episodic"] = dump_hits(episodes)
        if "semantic" in chosen:
            facts = await memory.facts.recall(
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
            result["semantic"] = dump_hits(facts)
        if "procedural" in chosen:
            procedures = await memory.procedures.find_matching(
                query, scope=scope, k=k, session=from_session
            )
            result["procedural"] = dump_hits(procedures)
        return result

    async def search_procedures(
        self,
        task: Annotated[
            str,
            Field(
                min_length=1,
                max_length=limits.MAX_QUERY_CHARS,
                description="The task you are about to do, in natural language.",
            ),
        ],
        k: Annotated[int, Field(ge=1, le=limits.MAX_K, description="How many procedures.")] = 5,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Find stored procedures (named step lists) for a task, ranked by how well they match
        times how often they worked (Laplace-smoothed success rate). Use before planning a
        task you may have done before; after using one, call record_outcome with its id.
        Returns hits best first with id, score, score breakdown, success_rate and the
        procedure (name, trigger, steps, version, success and failure counts)."""
        scope = self._env.scope(project=project, user=user, agent_type=agent_type, agent=agent)
        hits = await self._env.memory.procedures.find_matching(task, scope=scope, k=k)
        dumped = dump_hits(hits)
        for row, hit in zip(dumped, hits, strict=True):
            row["success_rate"] = hit.record.success_rate
        return {"task": task, "procedures": dumped}

    async def record_outcome(
        self,
        procedure_id: Annotated[RecordId, Field(description="The procedure's id.")],
        success: Annotated[bool, Field(description="Whether following it worked this time.")],
    ) -> dict[str, Any]:
        """Count one use of a procedure as a success or a failure, so ranking learns which
        procedures work. Returns the procedure's new counts and success rate."""
        updated = await self._env.memory.procedures.record_outcome(
            procedure_id, success, scope=self._env.scope()
        )
        return _counts(updated)


def _counts(p: Procedure) -> dict[str, Any]:
    return {
        "id": p.id,
        "name": p.name,
        "version": p.version,
        "success_count": p.success_count,
        "failure_count": p.failure_count,
        "success_rate": p.success_rate,
        "last_used_at": None if p.last_used_at is None else p.last_used_at.isoformat(),
    }
