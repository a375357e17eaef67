"""``erase_memories`` (GDPR erasure) and ``inspect_memory`` (counts, reflection, predicates)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import CallToolResult
from pydantic import Field

from sedimem.errors import ValidationError
from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    Cardinality,
    Format,
    Label,
    OptionalTime,
    Project,
    Session,
    Since,
    Until,
    User,
)
from sedimem.mcp.reply import dump, reply
from sedimem.mcp.tools.base import ToolEnv, time_range
from sedimem.reflection.anomalies import MAX_BASELINE_DAYS
from sedimem.reflection.models import Finding, ReflectionReport
from sedimem.types.edits import MAX_PREDICATES_PER_CALL

__all__ = ["AdminTools"]

Report = Literal["stats", "reflect", "predicates"]


class AdminTools:
    def __init__(self, env: ToolEnv) -> None:
        self._read = env
        self._write = env.writing()

    async def erase_memories(
        self,
        user: User = None,
        session: Session = None,
        before: Annotated[OptionalTime, Field(description="Episodes before this time.")] = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Permanently erase everything of a user, a session or before a time (all given
        conditions), in every tier. Only when erasure is asked for (GDPR); for one wrong
        memory use forget_memory."""
        # the service checks what the key may erase (read-only, narrowing): once, for
        # every interface
        receipt = await self._read.memory.forget(
            self._read.key().access, user=user, session=session, before=before
        )
        erased = dump(receipt)
        counts = ", ".join(f"{n} {k}" for k, n in erased.items() if isinstance(n, int) and n)
        return reply(format, {"erased": erased}, lambda: f"erased: {counts or 'nothing'}")

    async def inspect_memory(
        self,
        report: Annotated[
            Report,
            Field(
                description="reflect: patterns, anomalies and insights from episodes. "
                "predicates: which hold one value."
            ),
        ] = "stats",
        since: Since = None,
        until: Until = None,
        task_types: Annotated[
            list[Label] | None, Field(description="reflect: only these task types.")
        ] = None,
        baseline_days: Annotated[
            float, Field(gt=7, le=MAX_BASELINE_DAYS, description="reflect: days of baseline.")
        ] = 30.0,
        declare: Annotated[
            list[Label] | None,
            Field(
                max_length=MAX_PREDICATES_PER_CALL,
                description="Set these predicates' cardinality for the tenant.",
            ),
        ] = None,
        cardinality: Annotated[
            Cardinality, Field(description="predicates: what to declare.")
        ] = "one",
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
        session: Session = None,
        format: Format = "text",
    ) -> CallToolResult:
        """Count what memory holds, learn from past episodes before a task or after
        failures (reflect), or see and declare which predicates hold one value at a time
        (a new value replaces the old)."""
        # every report first: a scope outside the key's narrowing is refused (403)
        scope = self._read.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        if report == "predicates":
            return await self._predicates(declare, cardinality, format)
        if declare is not None:
            raise ValidationError("declare", "goes with report 'predicates'")
        memory = self._read.memory
        if report == "reflect":
            found = await memory.reflect(
                scope,
                time_range=time_range(since, until),
                task_types=task_types,
                baseline_days=baseline_days,
            )
            return reply(format, dump(found), lambda: _reflection_text(found))
        data: dict[str, Any] = {"longterm": dump(await memory.stats(scope))}
        if scope.session is not None:
            data["working"] = dump(await memory.working(scope).get_stats())
        return reply(format, data, lambda: _stats_text(data))

    async def _predicates(
        self, declare: list[str] | None, cardinality: Cardinality, format: str
    ) -> CallToolResult:
        if declare is not None:
            env = self._write
            found = await env.memory.facts.declare(declare, cardinality, scope=env.scope())
        else:
            found = await self._read.memory.facts.predicates(tenant=self._read.key().tenant)
        data = dump(found)
        single = ", ".join(found.single_valued) or "none"
        return reply(format, data, lambda: f"single-valued predicates: {single}")


def _stats_text(data: dict[str, Any]) -> str:
    lines = []
    for part, counts in data.items():
        shown = ", ".join(f"{k} {v}" for k, v in counts.items() if not isinstance(v, dict | list))
        lines.append(f"{part}: {shown}")
    return "\n".join(lines)


def _reflection_text(report: ReflectionReport) -> str:
    overall = report.patterns.overall
    lines = [
        f"{report.episodes_analyzed} episodes analysed; success rate "
        f"{round(overall.success_rate, 3)} of {overall.total}"
    ]
    findings: dict[str, list[Finding]] = {
        "success patterns": report.patterns.success_patterns,
        "failure patterns": report.patterns.failure_patterns,
        "anomalies": [
            *report.anomalies.duration_anomalies,
            *report.anomalies.token_anomalies,
            *report.anomalies.failure_rate_shifts,
        ],
    }
    for factors in report.success_factors:
        findings[f"{factors.task_type} success factors"] = factors.success_factors
        findings[f"{factors.task_type} risk factors"] = factors.risk_factors
    insights = report.insights.insights
    lines.append("insights:" if insights else "insights: none")
    lines += [f"- {round(i.confidence, 3)} {i.statement}" for i in insights]
    for name, found in findings.items():
        if found:
            lines.append(f"{name}:")
            lines += [f"- {round(f.confidence, 3)} {f.description}" for f in found]
    return "\n".join(lines)
