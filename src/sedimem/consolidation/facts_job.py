"""Job ``facts``: episodes -> facts, each episode once, in id (creation) order.

Episodes are read a batch at a time after the job's cursor; after a batch is fully processed
the cursor moves to its last id (fenced by the lease). A crash between learning and moving the
cursor replays that batch; the replay is harmless because a fact is learned from episode E
only if no fact derived from E (any version, current or retired) already says the same thing.

An extractor that reads endings too (:class:`EndingExtractor`, such as the rule extractor:
"I no longer eat meat") has each ending close the matching current facts after the episode's
facts are learned; a replay finds them closed already and changes nothing.

An episode whose extraction fails for good (an LLM that never gave valid JSON:
:class:`~sedimem.errors.ExtractionFailed`) is counted (``extraction_failed``) and reported
in the run's warnings, and the job goes on: the episode itself stays stored.
"""

from __future__ import annotations

from sedimem.consolidation.context import JobContext
from sedimem.errors import ExtractionFailed, ValidationError
from sedimem.extraction.protocols import EndingExtractor, MeteredExtractor
from sedimem.longterm import records
from sedimem.storage.longterm.base import RecordFilter
from sedimem.types.longterm import Episode, Fact

__all__ = ["run_facts"]


async def _known_keys(ctx: JobContext, episode: Episode) -> set[str]:
    keys: set[str] = set()
    cursor: str | None = None
    flt = RecordFilter(kind=records.FACT, derived_from=(episode.id,))
    while True:
        rows = await ctx.store.find(ctx.tenant, flt, limit=500, after=cursor)
        keys.update(row.name for row in rows if row.name)
        if len(rows) < 500:
            return keys
        cursor = rows[-1].id


async def _extract(ctx: JobContext, episode: Episode) -> list[Fact] | None:
    """The candidate facts of ``episode``; None (reported) when extraction failed."""
    extractor = ctx.extractor
    try:
        if isinstance(extractor, MeteredExtractor):
            return await extractor.extract_metered(episode, ctx.usage)
        return await extractor.extract(episode)
    except ExtractionFailed as exc:
        ctx.add(ctx.counts_out, "extraction_failed")
        ctx.warn(str(exc))
        return None


async def run_facts(ctx: JobContext) -> None:
    flt = RecordFilter(kind=records.EPISODE)
    batches = 0
    while ctx.settings.max_batches_per_run is None or batches < ctx.settings.max_batches_per_run:
        batches += 1
        rows = await ctx.store.find(
            ctx.tenant, flt, limit=ctx.settings.batch_size, after=ctx.cursor
        )
        if not rows:
            return
        for row in rows:
            episode = records.episode_from_row(row)
            ctx.add(ctx.counts_in, "episodes")
            candidates = await _extract(ctx, episode)
            if candidates is None:
                continue
            ctx.add(ctx.counts_in, "candidates", len(candidates))
            known = await _known_keys(ctx, episode)
            for fact in candidates:
                if records.statement_key(fact) in known:
                    ctx.add(ctx.counts_out, "already_learned")
                    continue
                if ctx.dry_run:
                    ctx.add(ctx.counts_out, "would_learn")
                    continue
                try:
                    result = await ctx.facts.learn(fact)
                except ValidationError as exc:
                    # e.g. its episode erased meanwhile (provenance is checked): one fact
                    # refused is reported, it does not fail the tenant's job
                    ctx.add(ctx.counts_out, "refused")
                    ctx.warn(f"episode {episode.id}: a derived fact was refused ({exc.field})")
                    continue
                ctx.add(ctx.counts_out, result.action)
            if isinstance(ctx.extractor, EndingExtractor):
                for ended in await ctx.extractor.endings(episode):
                    if ctx.dry_run:
                        ctx.add(ctx.counts_out, "would_end")
                        continue
                    ctx.add(ctx.counts_out, "ended", len(await ctx.facts.end(ended)))
        await ctx.advance(rows[-1].id)
