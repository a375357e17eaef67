"""Job ``decay``: importance decays with age; forgettable old episodes are pruned.

An episode's effective importance is ``importance * 0.5 ** (age_days / half_life_days)``
(computed, never written back, so running the job again does not decay twice). An episode
whose effective importance is below ``prune_threshold`` and whose age exceeds
``prune_min_age_days`` is deleted, with its derived data: a fact derived only from pruned
episodes is deleted; a fact with other sources loses the pruned one. Facts are handled before
their episode is deleted, so a crash in between is finished by the next run. A dry run
counts what would change and changes nothing. The job scans every episode (no cursor: ages
change).
"""

from __future__ import annotations

from collections.abc import Sequence

from sedimem.consolidation.context import JobContext
from sedimem.longterm import records
from sedimem.storage.longterm.base import RecordFilter, StoredRecord

__all__ = ["decayed", "run_decay"]

DAY = 86_400.0


def decayed(importance: float, age_seconds: float, half_life_days: float) -> float:
    """Importance after ``age_seconds`` with the given half-life (no decay before t=0)."""
    return float(importance * 0.5 ** (max(0.0, age_seconds) / DAY / half_life_days))


async def _unlink(ctx: JobContext, episode_id: str, pruned: set[str]) -> None:
    """Delete the facts derived only from pruned episodes; detach ``episode_id`` elsewhere."""
    flt = RecordFilter(kind=records.FACT, derived_from=(episode_id,))
    rows = await ctx.store.find(ctx.tenant, flt, limit=10_000)
    for row in rows:
        others = [s for s in row.sources if s != episode_id and s not in pruned]
        if not others:
            ctx.add(ctx.counts_out, "would_delete_facts" if ctx.dry_run else "facts_deleted")
            if not ctx.dry_run:
                await ctx.store.delete(ctx.tenant, [row.id])
            continue
        ctx.add(ctx.counts_out, "would_unlink_facts" if ctx.dry_run else "facts_unlinked")
        if not ctx.dry_run:
            await _detach(ctx, row.id, episode_id)


async def _detach(ctx: JobContext, fact_id: str, episode_id: str) -> None:
    def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
        if not rows:
            return []
        fact = records.fact_from_row(rows[0])
        kept = [s for s in fact.source_episode_ids if s != episode_id]
        return [
            records.fact_row(fact.model_copy(update={"source_episode_ids": kept}), rows[0].vector)
        ]

    await ctx.store.update_locked(
        ctx.tenant, f"fact-id:{fact_id}", RecordFilter(ids=(fact_id,)), decide
    )


async def run_decay(ctx: JobContext) -> None:
    settings = ctx.settings
    flt = RecordFilter(kind=records.EPISODE)
    cursor: str | None = None
    pruned: set[str] = set()  # in a dry run: what would have been pruned so far
    while True:
        rows = await ctx.store.find(ctx.tenant, flt, limit=settings.batch_size, after=cursor)
        if not rows:
            return
        now = ctx.clock.now()
        doomed: list[str] = []
        for row in rows:
            ctx.add(ctx.counts_in, "episodes")
            age = now - row.occurred_at
            value = decayed(row.importance, age, settings.decay_half_life_days)
            if value < settings.prune_threshold and age > settings.prune_min_age_days * DAY:
                doomed.append(row.id)
        for episode_id in doomed:
            pruned.add(episode_id)
            await _unlink(ctx, episode_id, pruned)
        if doomed:
            key = "would_prune_episodes" if ctx.dry_run else "episodes_pruned"
            ctx.add(ctx.counts_out, key, len(doomed))
            if not ctx.dry_run:
                await ctx.store.delete(ctx.tenant, doomed)
        cursor = rows[-1].id
        await ctx.renew()
