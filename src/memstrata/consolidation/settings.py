"""Settings of the consolidation jobs, validated on construction."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["JOBS", "ConsolidationSettings"]

#: The jobs ``Consolidator.run`` knows, in the order they run.
JOBS = ("facts", "procedures", "decay")


class ConsolidationSettings(BaseModel):
    """Knobs of the consolidation jobs (ranges are enforced: a bad value raises)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    batch_size: int = Field(default=100, ge=1, le=10_000)
    lease_ttl_seconds: float = Field(default=60.0, gt=0, le=86_400)
    min_procedure_episodes: int = Field(default=3, ge=1, le=100_000)
    min_success_rate: float = Field(default=0.7, ge=0.0, le=1.0)
    decay_half_life_days: float = Field(default=30.0, gt=0, le=36_500)
    prune_threshold: float = Field(default=0.05, ge=0.0, le=1.0)
    prune_min_age_days: float = Field(default=7.0, ge=0, le=36_500)
    #: stop a cursor job after this many batches (None: until done); the next run resumes
    max_batches_per_run: int | None = Field(default=None, ge=1)
