"""Reciprocal-rank fusion of keyword and vector candidates, adjusted by recency and importance.

    fused   = Σ_lists  weight_list / (rrf_k + rank)           (rank counts from 1)
    score   = fused / max_fused  +  recency_weight · 0.5^(age / half_life)
                                 +  importance_weight · importance

``max_fused`` is what a record ranked first in every list would get, so the first term lies
in 0..1 and the weights of recency and importance read as shares of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from sedimem.settings.retrieval import RetrievalSettings  # configured in Settings.retrieval
from sedimem.storage.longterm.base import Fusion
from sedimem.types.search import ScoreBreakdown

__all__ = [
    "Candidate",
    "Fused",
    "RetrievalSettings",
    "ScoreBreakdown",
    "fuse",
    "fuse_ranked",
    "fusion_rule",
]


@dataclass(frozen=True, slots=True)
class Candidate:
    """What fusion needs to know of a record beyond its ranks."""

    occurred_at: float
    importance: float


class Fused(NamedTuple):
    """One fused candidate: its final score and what made it (a tuple: fusion may keep many
    more candidates than a search returns, and only those returned are explained)."""

    score: float
    fused: float
    recency: float
    importance: float
    keyword: float | None
    keyword_rank: int | None
    vector: float | None
    vector_rank: int | None

    def explain(self) -> ScoreBreakdown:
        return ScoreBreakdown(
            vector=self.vector,
            vector_rank=self.vector_rank,
            keyword=self.keyword,
            keyword_rank=self.keyword_rank,
            recency=self.recency,
            importance=self.importance,
            fused=self.fused,
            score=self.score,
        )


def fuse(
    keyword: Sequence[tuple[str, float]],
    vector: Sequence[tuple[str, float]],
    candidates: dict[str, Candidate],
    *,
    now: float,
    settings: RetrievalSettings,
    limit: int | None = None,
) -> list[tuple[str, ScoreBreakdown]]:
    """Fuse two ranked lists of (id, score), best first, at most ``limit`` of them.

    Ids missing from ``candidates`` (deleted meanwhile) are dropped.
    """
    ranked = fuse_ranked(keyword, vector, candidates, now=now, settings=settings, limit=limit)
    return [(rid, f.explain()) for rid, f in ranked]


def fuse_ranked(
    keyword: Sequence[tuple[str, float]],
    vector: Sequence[tuple[str, float]],
    candidates: dict[str, Candidate],
    *,
    now: float,
    settings: RetrievalSettings,
    limit: int | None = None,
) -> list[tuple[str, Fused]]:
    """:func:`fuse` without the explanations (``Fused.explain`` makes one)."""
    k0 = settings.rrf_k
    weights = (settings.keyword_weight, settings.vector_weight)
    active = [w for ranked, w in zip((keyword, vector), weights, strict=True) if ranked]
    max_fused = sum(active) / (k0 + 1) or 1.0
    fused: dict[str, float] = {}
    prior = fused.get
    for ranked, weight in zip((keyword, vector), weights, strict=True):
        for rank, (rid, _) in enumerate(ranked, start=1):
            fused[rid] = prior(rid, 0.0) + weight / (k0 + rank)
    half_life = settings.recency_half_life_days * 86400.0
    recency_weight, importance_weight = settings.recency_weight, settings.importance_weight
    # One tuple per candidate, sorted; the breakdown is made for the ``limit`` kept only.
    scored: list[tuple[float, str, float, float, float]] = []
    traits = candidates.get
    for rid, raw in fused.items():
        candidate = traits(rid)
        if candidate is None:
            continue
        age = now - candidate.occurred_at
        recency = 0.5 ** ((age if age > 0.0 else 0.0) / half_life)
        norm = raw / max_fused
        importance = candidate.importance
        score = norm + recency_weight * recency + importance_weight * importance
        scored.append((-score, rid, recency, norm, importance))
    scored.sort()
    kept = scored if limit is None else scored[:limit]
    keyword_at = {rid: (rank, s) for rank, (rid, s) in enumerate(keyword, start=1)}
    vector_at = {rid: (rank, s) for rank, (rid, s) in enumerate(vector, start=1)}
    results = []
    for neg_score, rid, recency, norm, importance in kept:
        kw = keyword_at.get(rid)
        vec = vector_at.get(rid)
        results.append(
            (
                rid,
                Fused(
                    -neg_score,
                    norm,
                    recency,
                    importance,
                    None if kw is None else float(kw[1]),
                    None if kw is None else kw[0],
                    None if vec is None else float(vec[1]),
                    None if vec is None else vec[0],
                ),
            )
        )
    return results


def fusion_rule(settings: RetrievalSettings, *, now: float, limit: int) -> Fusion:
    """:func:`fuse_ranked`'s rule with these settings, for a store that can apply it to its
    candidates (and read the records of its top ``limit`` with them)."""
    return Fusion(
        rrf_k=settings.rrf_k,
        keyword_weight=settings.keyword_weight,
        vector_weight=settings.vector_weight,
        recency_weight=settings.recency_weight,
        importance_weight=settings.importance_weight,
        half_life_s=settings.recency_half_life_days * 86400.0,
        now=now,
        limit=limit,
    )
