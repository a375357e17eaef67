"""Job ``procedures``: repeated successful action sequences -> procedures.

The job's cursor finds the (task type, agent type) groups that received new episodes; each
such group is recomputed from ALL of its episodes, so the result depends only on the stored
episodes (idempotent by construction). In a group, an action sequence qualifies when it
succeeded in at least ``min_procedure_episodes`` episodes and its success rate among the
episodes that used it is at least ``min_success_rate``; the best one (most successes, then
highest rate, then alphabetical) is recorded as the procedure named after the task type.

A group is one task type within one visibility: episodes are grouped by their ``project``,
``user``, ``agent_type`` and ``agent`` too, and the procedure carries exactly those values.
A derived record thus inherits the narrowest visibility of its sources (docs/longterm.md,
"Visibility"): one user's episodes never combine with another user's, nor an agent's
private episodes with a sibling's, into a record the other can read. The procedure's provenance
(``source_episode_ids``) is the episodes that used its steps; erasure follows it.
Recording the same steps again only adds new sources; other steps make a new version.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sedimem.consolidation.context import JobContext
from sedimem.longterm import records
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter, StoredRecord
from sedimem.types.longterm import Outcome, Procedure

__all__ = ["best_sequence", "run_procedures"]

#: (task type, project, user, agent type, agent): one task type within one visibility
Group = tuple[str, str | None, str | None, str | None, str | None]


@dataclass(slots=True)
class _Tally:
    successes: int = 0
    uses: int = 0
    sources: list[str] = field(default_factory=list)


_WOULD = {
    "recorded": "would_record",
    "refined": "would_refine",
    "sources_added": "would_add_sources",
}


def group_of(row: StoredRecord) -> Group:
    """The group of an episode row: its task type and its visibility fields."""
    return (row.task_type or "general", row.project, row.user, row.agent_type, row.agent)


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


async def _tallies(ctx: JobContext, group: Group) -> dict[tuple[str, ...], _Tally]:
    task_type, _project, user, _agent_type, _agent = group
    tallies: dict[tuple[str, ...], _Tally] = {}
    # ``user`` narrows in the store (indexed); the other fields are compared here, exactly
    # (a filter on them would also match records where they are unset)
    flt = RecordFilter(kind=records.EPISODE, task_type=task_type, user=user)
    cursor: str | None = None
    while True:
        rows = await ctx.store.find(ctx.tenant, flt, limit=500, after=cursor)
        for row in rows:
            if group_of(row) != group:
                continue
            episode = records.episode_from_row(row)
            tally = tallies.setdefault(tuple(episode.actions), _Tally())
            tally.uses += 1
            tally.successes += episode.outcome is Outcome.SUCCESS
            tally.sources.append(episode.id)
        if len(rows) < 500:
            break
        cursor = rows[-1].id
    return tallies


async def _refresh(ctx: JobContext, group: Group) -> None:
    tallies = await _tallies(ctx, group)
    best = best_sequence(
        {seq: (t.successes, t.uses) for seq, t in tallies.items()},
        ctx.settings.min_procedure_episodes,
        ctx.settings.min_success_rate,
    )
    if best is None:
        return
    steps, successes, uses = best
    task_type, project, user, agent_type, agent = group
    procedure = Procedure(
        name=task_type,
        trigger=f"a task of type {task_type}",
        steps=list(steps),
        success_count=successes,
        failure_count=uses - successes,
        source_episode_ids=sorted(tallies[steps].sources),
        scope=Scope(
            tenant=ctx.tenant, project=project, user=user, agent_type=agent_type, agent=agent
        ),
        metadata={"source": "consolidation"},
    )
    existing = [
        records.procedure_from_row(row)
        for row in await ctx.store.find(
            ctx.tenant,
            RecordFilter(kind=records.PROCEDURE, name=records.normalise(task_type), user=user),
            limit=100,
        )
    ]
    mine = [p for p in existing if p.scope.owner == procedure.scope.owner]
    if any(
        p.steps == procedure.steps
        and p.trigger == procedure.trigger
        and set(procedure.source_episode_ids) <= set(p.source_episode_ids)
        for p in mine
    ):
        ctx.add(ctx.counts_out, "unchanged")
        return
    same_steps = any(p.steps == procedure.steps and p.trigger == procedure.trigger for p in mine)
    action = "sources_added" if same_steps else "refined" if mine else "recorded"
    if ctx.dry_run:
        ctx.add(ctx.counts_out, _WOULD[action])
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
            groups[group_of(row)] = None
        for group in groups:
            await _refresh(ctx, group)
            ctx.add(ctx.counts_in, "groups")
        await ctx.advance(rows[-1].id)
