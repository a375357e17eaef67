"""Weights and depth of hybrid retrieval (see :mod:`sedimem.retrieval.fusion`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RetrievalSettings"]


class RetrievalSettings(BaseModel):
    """Weights of hybrid retrieval (documented defaults; all configurable)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rrf_k: float = Field(
        default=20.0,
        gt=0,
        le=10_000,
        description="RRF damping constant (smaller: the top of each list counts for more).",
    )
    keyword_weight: float = Field(
        default=1.0, ge=0, le=100, description="Weight of the keyword (BM25) list in fusion."
    )
    vector_weight: float = Field(
        default=1.0, ge=0, le=100, description="Weight of the vector list in fusion."
    )
    recency_weight: float = Field(
        default=0.05, ge=0, le=10, description="Bonus of a recent record (a share of 1)."
    )
    importance_weight: float = Field(
        default=0.05, ge=0, le=10, description="Bonus of an important record (times importance)."
    )
    recency_half_life_days: float = Field(
        default=30.0, gt=0, le=36_500, description="Age at which the recency bonus halves."
    )
    candidates: int = Field(
        default=50, ge=1, le=10_000, description="Candidates drawn from each list (at least k)."
    )
    rerank_depth: int = Field(
        default=30,
        ge=0,
        le=1_000,
        description="Fused candidates the second stage re-scores (hybrid mode; 0: none).",
    )
    coverage_weight: float = Field(
        default=1.0, ge=0, le=10, description="Second stage: share of the query's words held."
    )
    time_weight: float = Field(
        default=1.0, ge=0, le=10, description="Second stage: record in the time the query names."
    )
    when_weight: float = Field(
        default=0.5,
        ge=0,
        le=10,
        description="Second stage: record naming a time, for a query asking when.",
    )
    session_weight: float = Field(
        default=0.1,
        ge=0,
        le=10,
        description="Second stage: fused scores of the candidates from the record's session.",
    )
    time_half_life_days: float = Field(
        default=7.0,
        gt=0,
        le=36_500,
        description="Second stage: distance to the asked time halving it.",
    )
