"""A question is embedded once, however many searches ask for its vector.

``assemble`` searches three tiers (episodes, facts, procedures) for one question at the same
moment, and each search embeds the question: with a model such as ``minilm`` (several
milliseconds a sentence) that was three times the work for one vector. Agents also ask the
same question again within a turn or two. :class:`SharedQueries` wraps the embedder a
:class:`~sedimem.memory.Memory` uses: a call for one text (a question) is looked up in a
small LRU of recent questions (:class:`~sedimem.embed.cache.EmbeddingCache`), a question
another call is embedding right now is waited for rather than embedded again, and batches
(ingest, imports) go straight to the embedder. Erasure clears it, as it clears every
embedder's cache of text (:func:`~sedimem.embed.base.forget_cached_text`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sedimem.embed.base import Embedder, Matrix, check_texts, forget_cached_text
from sedimem.embed.cache import CacheCounts, EmbeddingCache, Plan, fetched

__all__ = ["QUERY_CACHE_SIZE", "SharedQueries", "shared_queries"]

#: Questions kept (vectors of a few KB each): enough for the questions of the last turns
#: of many concurrent agents, small enough to be nothing beside the indexes.
QUERY_CACHE_SIZE = 256


def shared_queries(embedder: Embedder) -> Embedder:
    """An embedder that embeds each question once: ``embedder`` itself when it keeps the
    vectors it fetched (the ``openai`` one: its cache already shares a question between
    concurrent calls), else ``embedder`` wrapped in :class:`SharedQueries`."""
    if isinstance(getattr(embedder, "cache", None), EmbeddingCache):
        return embedder
    return SharedQueries(embedder)


class SharedQueries:
    """``inner``, with each text asked for alone embedded once for all who ask for it."""

    def __init__(self, inner: Embedder, capacity: int = QUERY_CACHE_SIZE) -> None:
        self._inner = inner
        self._cache = EmbeddingCache(capacity)

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    @property
    def inner(self) -> Embedder:
        return self._inner

    def counts(self) -> CacheCounts:
        """Questions served from the cache (or from another call) and those embedded."""
        return self._cache.counts()

    def clear_cache(self) -> None:
        """Drop every kept question and what the embedder keeps of texts (erasure)."""
        self._cache.clear()
        forget_cached_text(self._inner)

    def _plan(self, items: list[str], *, wait: bool) -> Plan | None:
        if len(items) != 1:
            return None
        dimension = self._inner.dimension
        return self._cache.plan(f"{self._inner.name} {dimension}", items, dimension, wait=wait)

    def embed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
        plan = self._plan(items, wait=False)
        if plan is None:
            return self._inner.embed(items)
        if not plan.missing:
            return plan.fill(self._none())
        return plan.fill(self._inner.embed(plan.missing))

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        items = check_texts(texts)
        plan = self._plan(items, wait=True)
        if plan is None:
            return await self._inner.aembed(items)
        return await fetched(plan, self._fetch)

    async def _fetch(self, items: list[str]) -> Matrix:
        return await self._inner.aembed(items) if items else self._none()

    def _none(self) -> Matrix:
        return np.zeros((0, self._inner.dimension), dtype=np.float32)
