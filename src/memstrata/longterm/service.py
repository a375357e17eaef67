"""What the long-term services share: a store, an embedder, a clock and a searcher."""

from __future__ import annotations

from memstrata.clock import Clock, SystemClock
from memstrata.embed.base import Embedder
from memstrata.longterm.search import Searcher
from memstrata.retrieval.fusion import RetrievalSettings
from memstrata.storage.longterm.base import LongTermStore

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
