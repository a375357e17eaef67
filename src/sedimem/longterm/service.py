"""What the long-term services share: a store, an embedder, a clock and a searcher."""

from __future__ import annotations

from sedimem.clock import Clock, SystemClock
from sedimem.embed.base import Embedder
from sedimem.longterm.search import Searcher
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.storage.longterm.base import LongTermStore

__all__ = ["LongTermService"]


class LongTermService:
    def __init__(
        self,
        store: LongTermStore,
        embedder: Embedder,
        *,
        settings: RetrievalSettings | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock or SystemClock()
        self._searcher = Searcher(store, embedder, settings or RetrievalSettings())
