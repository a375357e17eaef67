"""Hybrid search over one kind of record: keyword and vector candidates, fused.

The two searches run concurrently (each on its own store connection where the store has a
pool) and bring their records with them (``*_search_records``): fusion needs each
candidate's time and importance, and a ``get`` of every candidate afterwards would be one
more round trip on the critical path.

In hybrid mode the fused top ``rerank_depth`` records (not only the top ``k``) are read and
re-scored by the second stage (:mod:`sedimem.retrieval.rerank`: query-word coverage, the
time the query names, session mass) before the top ``k`` are returned.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Literal, NamedTuple, Protocol, cast

from sedimem.embed.base import Embedder
from sedimem.errors import ValidationError
from sedimem.longterm.arguments import check_k, check_query
from sedimem.retrieval.fusion import (
    Candidate,
    Fused,
    RetrievalSettings,
    fuse_ranked,
    fusion_rule,
)
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.retrieval.rerank import RerankCandidate, Reranked, RerankWeights, rerank
from sedimem.retrieval.terms import query_terms
from sedimem.storage.longterm.base import (
    FusedSearch,
    LongTermStore,
    Peek,
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
        # Stems for the second stage (the keyword index's rules); one per searcher, used on
        # the event loop's thread only (its cache is not thread-safe).
        self._analyzer = Analyzer()
        self._weights = RerankWeights(
            coverage=settings.coverage_weight,
            time=settings.time_weight,
            when=settings.when_weight,
            session=settings.session_weight,
            time_half_life_days=settings.time_half_life_days,
        )
        # What the store can do (protocol checks cost tens of microseconds: made once).
        self._checked: _Capabilities | None = None

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
        depth = k
        # The second stage re-scores the top ``rerank_depth`` fused candidates, or the top
        # k when more are asked for: a deep search is ordered by the same rules as a short
        # one (its first ten are the short search's ten).
        second = mode == "hybrid" and self.settings.rerank_depth > 0
        if second:
            depth = max(k, min(pool, self.settings.rerank_depth))
        able = self._capabilities()
        fused, peeks = able.fused, able.peeks
        if second and fused and peeks:
            store = cast(_PeekingStore, self.store)
            return await self._fused_peeked(store, tenant, flt, query, k, depth, pool, now)
        if fused:
            found = await self._fused(
                cast(FusedSearch, self.store), tenant, flt, query, depth, pool, mode, now
            )
        else:
            found = await self._separate(tenant, flt, query, depth, pool, mode, now)
        if second:
            candidates = [
                RerankCandidate(row.id, row.text, row.occurred_at, row.session, why.score)
                for row, why in found
            ]
            ranked = self._rerank(query, candidates, now)[:k]
            rows = {row.id: (row, why) for row, why in found}
            return [(rows[r.id][0], _explained(rows[r.id][1], r)) for r in ranked]
        return [(row, why.explain()) for row, why in found[:k]]

    def _capabilities(self) -> _Capabilities:
        """What the store can do (checked once per store)."""
        store = self.store
        if self._checked is None or self._checked.store is not store:
            fused = isinstance(store, FusedSearch)
            self._checked = _Capabilities(
                store, fused, isinstance(store, Peek), fused and _takes_fusion(store)
            )
        return self._checked

    def _rerank(
        self,
        query: str,
        candidates: list[RerankCandidate],
        now: float,
        terms: list[str] | None = None,
    ) -> list[Reranked]:
        stems = self._analyzer.query_terms(query_terms(query) if terms is None else terms)
        return rerank(
            query, stems, candidates, matcher=self._analyzer, now=now, weights=self._weights
        )

    async def _fused_peeked(
        self,
        store: _PeekingStore,
        tenant: str,
        flt: RecordFilter,
        query: str,
        k: int,
        depth: int,
        pool: int,
        now: float,
    ) -> list[tuple[StoredRecord, ScoreBreakdown]]:
        """Hybrid search with the second stage on a store that can peek: the search reads
        no record, then one read brings text, session and time of all ``depth`` candidates
        (no body, no vector), and one more the whole records of the top ``k`` the second
        stage ranks (the fused top ``k`` is rarely that: reading it with the search meant
        a third read for the records lifted into it). When no more candidates than ``k``
        are found (an assembly's episodes: 40 asked, 40 re-scored), all are returned: one
        read of their whole records serves both."""
        vector = (await self.embedder.aembed([query]))[0]
        terms = query_terms(query)
        fused: list[tuple[str, Fused]] = []

        def pick(keyword: list[Ranked], similar: list[Ranked], traits: Traits) -> list[str]:
            candidates = {rid: Candidate(*pair) for rid, pair in traits.items()}
            fused.extend(
                fuse_ranked(
                    keyword, similar, candidates, now=now, settings=self.settings, limit=depth
                )
            )
            return []

        await store.fused_search(tenant, flt, terms, vector, pool, pick)
        if not fused:
            return []
        why_of = dict(fused)
        ids = [rid for rid, _ in fused]
        rows: dict[str, StoredRecord] = {}
        if len(ids) <= k:
            # every candidate is returned: their whole records in one read, not a preview
            # read and then a second read of the same rows
            rows = {row.id: row for row in await store.records_now(tenant, ids)}
            previews = {rid: (r.text, r.session, r.occurred_at) for rid, r in rows.items()}
        else:
            previews = await store.previews(tenant, ids)
        candidates = []
        for rid, why in fused:
            preview = previews.get(rid)
            if preview is not None:  # absent: deleted since the search
                text, session, occurred_at = preview
                candidates.append(RerankCandidate(rid, text, occurred_at, session, why.score))
        ranked = self._rerank(query, candidates, now, terms)
        result: list[tuple[StoredRecord, ScoreBreakdown]] = []
        at = 0
        while len(result) < k and at < len(ranked):
            # whole records for the next ones short of k (a record deleted meanwhile is
            # skipped and the next candidate taken)
            batch = ranked[at : at + k - len(result)]
            at += len(batch)
            unread = [r.id for r in batch if r.id not in rows]
            if unread:
                rows.update((row.id, row) for row in await store.records_now(tenant, unread))
            result.extend((rows[r.id], _explained(why_of[r.id], r)) for r in batch if r.id in rows)
        return result

    async def _separate(
        self,
        tenant: str,
        flt: RecordFilter,
        query: str,
        k: int,
        pool: int,
        mode: Mode,
        now: float,
    ) -> list[tuple[StoredRecord, Fused]]:
        keyword, vector = await asyncio.gather(
            self._keyword(tenant, flt, query, pool) if mode != "vector" else _nothing(),
            self._vector(tenant, flt, query, pool) if mode != "keyword" else _nothing(),
        )
        rows = {row.id: row for row, _ in keyword}
        rows.update((row.id, row) for row, _ in vector)
        candidates = {rid: Candidate(r.occurred_at, r.importance) for rid, r in rows.items()}
        fused = fuse_ranked(
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
    ) -> list[tuple[StoredRecord, Fused]]:
        terms = query_terms(query) if mode != "vector" else []
        vector = None
        if mode != "keyword":
            vector = (await self.embedder.aembed([query]))[0]
        fused: list[tuple[str, Fused]] = []

        def pick(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
            candidates = {rid: Candidate(*pair) for rid, pair in traits.items()}
            fused.extend(
                fuse_ranked(keyword, vector, candidates, now=now, settings=self.settings, limit=k)
            )
            return [rid for rid, _ in fused]

        rule = fusion_rule(self.settings, now=now, limit=k)
        rows = await store.fused_search(
            tenant,
            flt,
            terms,
            vector,
            pool,
            pick,
            # a store written before ``fusion=`` existed fuses in ``pick`` alone
            **({"fusion": rule} if self._capabilities().takes_fusion else {}),
        )
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


class _Capabilities(NamedTuple):
    store: LongTermStore
    fused: bool  # a FusedSearch
    peeks: bool  # a Peek
    takes_fusion: bool  # its fused_search accepts ``fusion=``


def _takes_fusion(store: object) -> bool:
    """Whether ``store.fused_search`` accepts ``fusion=`` (by name or through ``**kwargs``)."""
    try:
        parameters = inspect.signature(store.fused_search).parameters.values()  # type: ignore[attr-defined]
    except (TypeError, ValueError):  # no signature to read: assume today's protocol
        return True
    return any(p.name == "fusion" or p.kind is p.VAR_KEYWORD for p in parameters)


async def _nothing() -> list[ScoredRecord]:
    return []


def _explained(why: Fused, reranked: Reranked) -> ScoreBreakdown:
    return ScoreBreakdown(
        vector=why.vector,
        vector_rank=why.vector_rank,
        keyword=why.keyword,
        keyword_rank=why.keyword_rank,
        recency=why.recency,
        importance=why.importance,
        fused=why.fused,
        coverage=reranked.coverage,
        time=reranked.time,
        session=reranked.session,
        score=reranked.score,
    )


class _PeekingStore(FusedSearch, Peek, Protocol):
    """A store with both optional capabilities (the protocols are checked at run time)."""
