"""Knobs of the consolidation jobs (see :mod:`sedimem.consolidation`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_SESSION_IDLE_SECONDS", "ConsolidationSettings"]

#: A session unwritten this long is taken as ended, unless configured (or the TTL is shorter).
DEFAULT_SESSION_IDLE_SECONDS = 3600.0


class ConsolidationSettings(BaseModel):
    """Knobs of the consolidation jobs (ranges are enforced: a bad value raises)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    batch_size: int = Field(
        default=100, ge=1, le=10_000, description="Records a job reads per batch."
    )
    lease_ttl_seconds: float = Field(
        default=60.0,
        gt=0,
        le=86_400,
        description="A job's lease on a tenant lasts this long unless renewed (a crashed "
        "worker's job is taken over after it).",
    )
    min_procedure_episodes: int = Field(
        default=3,
        ge=1,
        le=100_000,
        description="Successful episodes with the same actions before they become a procedure.",
    )
    min_success_rate: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="Success rate an action sequence needs to become a procedure.",
    )
    decay_half_life_days: float = Field(
        default=30.0,
        gt=0,
        le=36_500,
        description="Age at which an episode's decayed importance halves.",
    )
    prune_threshold: float = Field(
        default=0.05,
        ge=0.0,
        le=1.0,
        description="Episodes whose decayed importance falls below this are pruned.",
    )
    prune_min_age_days: float = Field(
        default=7.0, ge=0, le=36_500, description="Episodes younger than this are never pruned."
    )
    max_batches_per_run: int | None = Field(
        default=None,
        ge=1,
        description="Stop a cursor job after this many batches; the next run resumes "
        "(unset: until done).",
    )
    session_idle_seconds: float | None = Field(
        default=None,
        gt=0,
        le=365 * 86_400,
        description="A session unwritten this long is taken as ended by the sessions job; "
        "must be shorter than working memory's session TTL (unset: 1 hour, or half the TTL "
        "if shorter).",
    )
