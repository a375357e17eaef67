"""Hybrid search over one kind of record: keyword and vector candidates, fused."""

from __future__ import annotations

import asyncio
from typing import Literal

from memstrata.embed.base import Embedder
from memstrata.errors import ValidationError
from memstrata.longterm.arguments import check_k, check_query
from memstrata.retrieval.fusion import Candidate, RetrievalSettings, fuse
from memstrata.retrieval.terms import query_terms
from memstrata.storage.longterm.base import LongTermStore, Ranked, RecordFilter, StoredRecord
from memstrata.types.search import ScoreBreakdown

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
        keyword, vector = await asyncio.gather(
            self._keyword(tenant, flt, query, pool) if mode != "vector" else _nothing(),
            self._vector(tenant, flt, query, pool) if mode != "keyword" else _nothing(),
        )
        ids = list(dict.fromkeys([rid for rid, _ in keyword] + [rid for rid, _ in vector]))
        rows = {row.id: row for row in await self.store.get(tenant, ids)} if ids else {}
        candidates = {rid: Candidate(r.occurred_at, r.importance) for rid, r in rows.items()}
        fused = fuse(keyword, vector, candidates, now=now, settings=self.settings, limit=k)
        return [(rows[rid], breakdown) for rid, breakdown in fused]

    async def _keyword(self, tenant: str, flt: RecordFilter, query: str, pool: int) -> list[Ranked]:
        terms = query_terms(query)
        if not terms:
            return []
        return await self.store.keyword_search(tenant, flt, terms, pool)

    async def _vector(self, tenant: str, flt: RecordFilter, query: str, pool: int) -> list[Ranked]:
        vectors = await self.embedder.aembed([query])
        return await self.store.vector_search(tenant, flt, vectors[0], pool)


async def _nothing() -> list[Ranked]:
    return []
