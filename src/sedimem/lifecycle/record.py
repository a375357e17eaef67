"""Recording a session's episode at most once, whoever ends the session.

The episode carries the unique key ``terminated:<scope digest>`` (the record's ``name``) and
is written through ``update_locked`` under that key: atomic and serialised across processes,
so ``Lifecycle.terminate`` and consolidation's ``sessions`` job, called any number of times
and concurrently, record one episode per session between them.
"""

from __future__ import annotations

from sedimem.embed.base import Embedder
from sedimem.longterm import records
from sedimem.longterm.vectors import embed_all
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.types.longterm import Episode

__all__ = ["episode_key", "is_recorded", "record_once"]


def episode_key(scope: Scope) -> str:
    return f"terminated:{scope.digest}"


async def is_recorded(store: LongTermStore, scope: Scope) -> bool:
    """Whether the session's episode exists (a cheap look before embedding one)."""
    key = episode_key(scope)
    rows = await store.find(scope.tenant, RecordFilter(kind=records.EPISODE, name=key), limit=1)
    return bool(rows)


async def record_once(store: LongTermStore, embedder: Embedder, episode: Episode) -> bool:
    """Write the session's episode unless one exists; True when this call wrote it."""
    (vector,) = await embed_all(embedder, [episode.search_text()])
    key = episode_key(episode.scope)
    written: list[StoredRecord] = []

    def decide(existing: list[StoredRecord]) -> list[StoredRecord]:
        if existing:
            return []
        written.append(records.episode_row(episode, vector, name=key))
        return written

    await store.update_locked(
        episode.scope.tenant, key, RecordFilter(kind=records.EPISODE, name=key), decide
    )
    return bool(written)
