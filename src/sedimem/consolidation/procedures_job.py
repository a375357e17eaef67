"""Job ``procedures``: repeated successful action sequences -> procedures.

The job's cursor finds the (task type, agent type) groups that received new episodes; each
such group is recomputed from ALL of its episodes, so the result depends only on the stored
episodes (idempotent by construction). In a group, an action sequence qualifies when it
succeeded in at least ``min_procedure_episodes`` episodes and its success rate among the
episodes that used it is at least ``min_success_rate``; the best one (most successes, then
highest rate, then alphabetical) is recorded as the procedure named after the task type,
owned by the agent type. Recording the same steps again is a no-op; other steps make a new
version of the procedure.
"""

from __future__ import annotations

from dataclasses import dataclass

from sedimem.consolidation.context import JobContext
from sedimem.longterm import records
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter
from sedimem.types.longterm import Outcome, Procedure

__all__ = ["best_sequence", "run_procedures"]

Group = tuple[str, str | None]  # (task type, agent type)


@dataclass(slots=True)
class _Tally:
    successes: int = 0
    uses: int = 0


def best_sequence(
    tallies: dict[tuple[str, ...], tuple[int, int]], min_successes: int, min_rate: float
) -> tuple[tuple[str, ...], int, int] | None:
    """The qualifying sequence with (successes, uses), or None."""
    ranked = [
        (seq, ok, uses)
        for seq, (ok, uses) in tallies.items()
        if seq and ok >= min_successes and ok / uses >= min_rate
    ]
    if not ranked:
        return None
    return min(ranked, key=lambda t: (-t[1], -t[1] / t[2], t[0]))


async def _tallies(ctx: JobContext, group: Group) -> dict[tuple[str, ...], tuple[int, int]]:
    task_type, agent_type = group
    tallies: dict[tuple[str, ...], _Tally] = {}
    flt = RecordFilter(kind=records.EPISODE, task_type=task_type)
    cursor: str | None = None
    while True:
        rows = await ctx.store.find(ctx.tenant, flt, limit=500, after=cursor)
        for row in rows:
            if row.agent_type != agent_type:
                continue
            episode = records.episode_from_row(row)
            tally = tallies.setdefault(tuple(episode.actions), _Tally())
            tally.uses += 1
            tally.successes += episode.outcome is Outcome.SUCCESS
        if len(rows) < 500:
            break
        cursor = rows[-1].id
    return {seq: (t.successes, t.uses) for seq, t in tallies.items()}


async def _refresh(ctx: JobContext, group: Group) -> None:
    best = best_sequence(
        await _tallies(ctx, group),
        ctx.settings.min_procedure_episodes,
        ctx.settings.min_success_rate,
    )
    if best is None:
        return
    steps, successes, uses = best
    task_type, agent_type = group
    procedure = Procedure(
        name=task_type,
        trigger=f"a task of type {task_type}",
        steps=list(steps),
        success_count=successes,
        failure_count=uses - successes,
        scope=Scope(tenant=ctx.tenant, agent_type=agent_type),
        metadata={"source": "consolidation"},
    )
    existing = [
        records.procedure_from_row(row)
        for row in await ctx.store.find(
            ctx.tenant,
            RecordFilter(kind=records.PROCEDURE, name=records.normalise(task_type)),
            limit=100,
        )
    ]
    mine = [p for p in existing if p.scope.owner == procedure.scope.owner]
    if any(p.steps == procedure.steps and p.trigger == procedure.trigger for p in mine):
        ctx.add(ctx.counts_out, "unchanged")
        return
    action = "refined" if mine else "recorded"
    if ctx.dry_run:
        ctx.add(ctx.counts_out, "would_refine" if mine else "would_record")
        return
    await ctx.procedures.record(procedure)
    ctx.add(ctx.counts_out, action)


async def run_procedures(ctx: JobContext) -> None:
    flt = RecordFilter(kind=records.EPISODE)
    batches = 0
    while ctx.settings.max_batches_per_run is None or batches < ctx.settings.max_batches_per_run:
        batches += 1
        rows = await ctx.store.find(
            ctx.tenant, flt, limit=ctx.settings.batch_size, after=ctx.cursor
        )
        if not rows:
            return
        groups: dict[Group, None] = {}
        for row in rows:
            ctx.add(ctx.counts_in, "episodes")
            groups[(row.task_type or "general", row.agent_type)] = None
        for group in groups:
            await _refresh(ctx, group)
            ctx.add(ctx.counts_in, "groups")
        await ctx.advance(rows[-1].id)
