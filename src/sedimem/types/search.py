"""What a search returns: hits with their score breakdown, and pages of records."""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["Hit", "Page", "ScoreBreakdown"]

T = TypeVar("T")


class ScoreBreakdown(BaseModel):
    """Why a hit scored what it did."""

    model_config = ConfigDict(frozen=True)

    vector: float | None = Field(
        default=None, description="Cosine similarity, when vector search found it."
    )
    vector_rank: int | None = Field(
        default=None, description="Its rank among the vector candidates (1: best)."
    )
    keyword: float | None = Field(
        default=None, description="BM25 score, when keyword search found it."
    )
    keyword_rank: int | None = Field(
        default=None, description="Its rank among the keyword candidates (1: best)."
    )
    recency: float = Field(default=0.0, description="0..1; halves every half-life of age.")
    importance: float = Field(default=0.0, description="The record's importance, 0..1.")
    fused: float = Field(
        default=0.0, description="Reciprocal-rank fusion of both lists, normalised to 0..1."
    )
    coverage: float | None = Field(
        default=None,
        description="Second stage (hybrid): share of the query's words the record holds, 0..1.",
    )
    time: float | None = Field(
        default=None,
        description="Second stage: closeness to the time the query names (or asks for), 0..1.",
    )
    session: float | None = Field(
        default=None,
        description="Second stage: fused scores of the candidates from the record's session.",
    )
    score: float = Field(default=0.0, description="The final score hits are ordered by.")


class Hit(BaseModel, Generic[T]):
    """A record found by a search, with its score explained."""

    model_config = ConfigDict(frozen=True)

    record: T = Field(description="The record found.")
    score: float = Field(description="Its final score (compare within one tier only).")
    explain: ScoreBreakdown = Field(description="How the score was made.")


class Page(BaseModel, Generic[T]):
    """One page of a listing; pass ``next_cursor`` back to get the next page."""

    model_config = ConfigDict(frozen=True)

    items: list[T] = Field(description="This page's records, in the listing's order.")
    next_cursor: str | None = Field(
        default=None, description="Pass it as `cursor` for the next page; unset: the last page."
    )
