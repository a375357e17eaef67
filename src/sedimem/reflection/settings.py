"""The thresholds of reflection, validated with ranges."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from sedimem.types._base import Model

__all__ = ["ReflectionSettings"]


class ReflectionSettings(Model):
    """Thresholds and caps of every reflection call.

    Invalid values raise :class:`sedimem.ValidationError` naming the field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: A pattern, factor or compared group needs at least this many episodes.
    min_support: int = Field(default=5, ge=2, le=1_000_000)
    #: Findings below this confidence are dropped (patterns and factors: 1 - BH q-value;
    #: anomalies: Sidak-corrected tail probability; see docs/reflection.md).
    min_confidence: float = Field(default=0.95, ge=0.0, le=1.0)
    #: A pattern's outcome rate must be this many times the baseline rate (or the rate of
    #: the other outcomes that many times lower) to be reported.
    min_lift: float = Field(default=1.2, ge=1.0, le=1000.0)
    #: Longest contiguous action sequence (n-gram) considered.
    max_sequence_length: int = Field(default=3, ge=1, le=10)
    #: Words shorter than this are ignored in outcome details and lessons.
    min_term_length: int = Field(default=3, ge=1, le=50)
    #: Robust standard deviations beyond which a duration or token count is an anomaly,
    #: and the |z| of a failure-rate shift that is reported.
    anomaly_sigma: float = Field(default=3.0, gt=0.0, le=100.0)
    #: An outlying duration or token count must also be this many times the median (or
    #: the median this many times it): a tight distribution makes tiny deviations "many
    #: standard deviations" without them mattering. 1.0 switches the check off.
    anomaly_min_ratio: float = Field(default=1.5, ge=1.0, le=1000.0)
    #: Length of the recent window compared with the rest of the baseline window (days).
    recent_days: float = Field(default=7.0, gt=0.0, le=36_500.0)
    #: Fewest episodes (per task type) that make a baseline for anomaly detection.
    min_baseline: int = Field(default=10, ge=3, le=1_000_000)
    #: z of the Wilson intervals given with outcome rates (1.96: 95 %).
    interval_z: float = Field(default=1.96, gt=0.0, le=10.0)
    #: Most findings per list (the strongest are kept; totals say how many there were).
    max_findings: int = Field(default=20, ge=1, le=10_000)
    #: Most episode ids listed as evidence per finding (the total is always given).
    max_evidence: int = Field(default=20, ge=1, le=100_000)
    #: Most insights returned by ``generate_insights``.
    max_insights: int = Field(default=20, ge=1, le=10_000)
    #: Most task types (the most frequent) ``reflect`` computes success factors for.
    max_task_types: int = Field(default=20, ge=1, le=10_000)
    #: Most episodes read per call (the most recently recorded); reports say when reached.
    max_episodes: int = Field(default=100_000, ge=1, le=10_000_000)
    #: Episodes fetched per page from the store.
    page_size: int = Field(default=1000, ge=1, le=1000)
