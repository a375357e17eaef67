"""What a search returns: hits with their score breakdown, and pages of records."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict

__all__ = ["Hit", "Page", "ScoreBreakdown"]

T = TypeVar("T")


class ScoreBreakdown(BaseModel):
    """Why a hit scored what it did."""

    model_config = ConfigDict(frozen=True)

    vector: float | None = None  # cosine similarity, when the vector list found it
    vector_rank: int | None = None
    keyword: float | None = None  # BM25 score, when the keyword list found it
    keyword_rank: int | None = None
    recency: float = 0.0  # 0..1, halves every half-life
    importance: float = 0.0  # 0..1
    fused: float = 0.0  # normalised reciprocal-rank fusion, 0..1
    score: float = 0.0  # the final score hits are ordered by


class Hit(BaseModel, Generic[T]):
    """A record found by a search, with its score explained."""

    model_config = ConfigDict(frozen=True)

    record: T
    score: float
    explain: ScoreBreakdown


class Page(BaseModel, Generic[T]):
    """One page of a listing; pass ``next_cursor`` back to get the next page."""

    model_config = ConfigDict(frozen=True)

    items: list[T]
    next_cursor: str | None = None
