"""Hybrid search over one kind of record: keyword and vector candidates, fused.

The two searches run concurrently (each on its own store connection where the store has a
pool) and bring their records with them (``*_search_records``): fusion needs each
candidate's time and importance, and a ``get`` of every candidate afterwards would be one
more round trip on the critical path.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from sedimem.embed.base import Embedder
from sedimem.errors import ValidationError
from sedimem.longterm.arguments import check_k, check_query
from sedimem.retrieval.fusion import Candidate, RetrievalSettings, fuse
from sedimem.retrieval.terms import query_terms
from sedimem.storage.longterm.base import (
    FusedSearch,
    LongTermStore,
    Ranked,
    RecordFilter,
    ScoredRecord,
    StoredRecord,
    Traits,
)
from sedimem.types.search import ScoreBreakdown

__all__ = ["Mode", "Searcher"]

Mode = Literal["hybrid", "keyword", "vector"]


class Searcher:
    """Runs keyword and vector search concurrently and fuses their ranks."""

    def __init__(
        self, store: LongTermStore, embedder: Embedder, settings: RetrievalSettings
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings

    async def search(
        self,
        tenant: str,
        flt: RecordFilter,
        query: str,
        k: int,
        *,
        mode: Mode = "hybrid",
        now: float,
    ) -> list[tuple[StoredRecord, ScoreBreakdown]]:
        check_query(query)
        check_k(k)
        if mode not in ("hybrid", "keyword", "vector"):
            raise ValidationError("mode", f"{mode!r} is unknown", allowed="hybrid, keyword, vector")
        pool = max(k, self.settings.candidates)
        if isinstance(self.store, FusedSearch):
            return await self._fused(self.store, tenant, flt, query, k, pool, mode, now)
        keyword, vector = await asyncio.gather(
            self._keyword(tenant, flt, query, pool) if mode != "vector" else _nothing(),
            self._vector(tenant, flt, query, pool) if mode != "keyword" else _nothing(),
        )
        rows = {row.id: row for row, _ in keyword}
        rows.update((row.id, row) for row, _ in vector)
        candidates = {rid: Candidate(r.occurred_at, r.importance) for rid, r in rows.items()}
        fused = fuse(
            [(row.id, score) for row, score in keyword],
            [(row.id, score) for row, score in vector],
            candidates,
            now=now,
            settings=self.settings,
            limit=k,
        )
        return [(rows[rid], breakdown) for rid, breakdown in fused]

    async def _fused(
        self,
        store: FusedSearch,
        tenant: str,
        flt: RecordFilter,
        query: str,
        k: int,
        pool: int,
        mode: Mode,
        now: float,
    ) -> list[tuple[StoredRecord, ScoreBreakdown]]:
        terms = query_terms(query) if mode != "vector" else []
        vector = None
        if mode != "keyword":
            vector = (await self.embedder.aembed([query]))[0]
        fused: list[tuple[str, ScoreBreakdown]] = []

        def pick(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
            candidates = {rid: Candidate(*pair) for rid, pair in traits.items()}
            fused.extend(
                fuse(keyword, vector, candidates, now=now, settings=self.settings, limit=k)
            )
            return [rid for rid, _ in fused]

        rows = await store.fused_search(tenant, flt, terms, vector, pool, pick)
        return [(rows[rid], why) for rid, why in fused if rid in rows]

    async def _keyword(
        self, tenant: str, flt: RecordFilter, query: str, pool: int
    ) -> list[ScoredRecord]:
        terms = query_terms(query)
        if not terms:
            return []
        return await self.store.keyword_search_records(tenant, flt, terms, pool)

    async def _vector(
        self, tenant: str, flt: RecordFilter, query: str, pool: int
    ) -> list[ScoredRecord]:
        vectors = await self.embedder.aembed([query])
        return await self.store.vector_search_records(tenant, flt, vectors[0], pool)


async def _nothing() -> list[ScoredRecord]:
    return []
