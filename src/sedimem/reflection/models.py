"""What reflection returns: findings with evidence and confidence, grouped in reports."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import ConfigDict, Field

from sedimem.types._base import Model

__all__ = [
    "AnomalyReport",
    "ConfidenceMethod",
    "Evidence",
    "Finding",
    "FindingKind",
    "Insight",
    "InsightReport",
    "OutcomeRate",
    "PatternReport",
    "ReflectionReport",
    "SequenceStat",
    "SuccessFactorReport",
]

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Metric = float | int | str | None


class _Frozen(Model):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FindingKind(StrEnum):
    SUCCESS_PATTERN = "success_pattern"  # a feature over-represented in successes
    FAILURE_PATTERN = "failure_pattern"  # a feature over-represented in failures
    SUCCESS_FACTOR = "success_factor"  # within a task type: presence raises success
    RISK_FACTOR = "risk_factor"  # within a task type: presence lowers success
    METRIC_DIFFERENCE = "metric_difference"  # successes and failures differ in a metric
    DURATION_ANOMALY = "duration_anomaly"
    TOKENS_ANOMALY = "tokens_anomaly"
    FAILURE_RATE_SHIFT = "failure_rate_shift"


class ConfidenceMethod(StrEnum):
    #: 1 - Benjamini-Hochberg q-value of Fisher's exact test, over every candidate of the list.
    FISHER_BH = "fisher_exact_bh"
    #: 1 - Benjamini-Hochberg q-value of a Mann-Whitney test (same family as the factors).
    MANN_WHITNEY_BH = "mann_whitney_bh"
    #: (1 - p) ** m, p the Student-t tail of the robust z, m the values compared.
    ROBUST_Z_SIDAK = "robust_z_sidak"
    #: (1 - p) ** m, p the normal tail of the two-proportion z, m the shift tests run.
    TWO_PROPORTION_SIDAK = "two_proportion_z_sidak"


class Evidence(_Frozen):
    """The episodes a finding rests on: up to ``max_evidence`` ids (most recent first)
    and how many there are in all."""

    episode_ids: list[str] = Field(default_factory=list)
    total: int = Field(default=0, ge=0)

    @property
    def truncated(self) -> bool:
        return self.total > len(self.episode_ids)


class Finding(_Frozen):
    """One statistical claim about the episodes, with what supports it."""

    kind: FindingKind
    #: What it is about, e.g. ``actions: build > test``, ``term: timeout``,
    #: ``task_type: deploy``, ``duration_seconds``, ``episode: <id>``.
    subject: str
    #: The task type the claim is restricted to, if any.
    task_type: str | None = None
    #: One plain sentence.
    description: str
    confidence: Unit
    confidence_method: ConfidenceMethod
    #: Size of the effect, 0..1 (difference of rates, rank-biserial correlation, ...).
    effect: Unit
    evidence: Evidence
    metrics: dict[str, Metric] = Field(default_factory=dict)


class OutcomeRate(_Frozen):
    """Outcome counts of a group of episodes, with a Wilson interval on the success rate."""

    task_type: str | None = None  # None: every episode
    total: int = Field(ge=0)
    successes: int = Field(ge=0)
    failures: int = Field(ge=0)
    partials: int = Field(ge=0)
    success_rate: Unit
    failure_rate: Unit
    success_rate_low: Unit
    success_rate_high: Unit


class SequenceStat(_Frozen):
    """A contiguous action sequence (two actions or more) that recurs across episodes."""

    actions: list[str]
    support: int = Field(ge=0)  # episodes containing it
    successes: int = Field(ge=0)
    failures: int = Field(ge=0)
    success_rate: Unit
    success_rate_low: Unit
    success_rate_high: Unit
    baseline_success_rate: Unit  # of every episode analysed
    lift: float = Field(ge=0.0)  # success_rate / baseline_success_rate
    evidence: Evidence


class _Report(_Frozen):
    episodes_analyzed: int = Field(ge=0)
    #: The ``max_episodes`` cap was reached: older episodes were not read.
    truncated: bool = False
    #: Findings left out of a list by ``max_findings``: list name -> how many.
    omitted: dict[str, int] = Field(default_factory=dict)


class PatternReport(_Report):
    time_range: tuple[datetime, datetime] | None = None
    overall: OutcomeRate
    by_task_type: list[OutcomeRate] = Field(default_factory=list)
    recurring_sequences: list[SequenceStat] = Field(default_factory=list)
    success_patterns: list[Finding] = Field(default_factory=list)
    failure_patterns: list[Finding] = Field(default_factory=list)
    #: Candidates tested per list (the family size of the q-values).
    candidates_tested: int = Field(default=0, ge=0)


class SuccessFactorReport(_Report):
    task_type: str
    outcomes: OutcomeRate
    success_factors: list[Finding] = Field(default_factory=list)
    risk_factors: list[Finding] = Field(default_factory=list)
    metric_differences: list[Finding] = Field(default_factory=list)
    candidates_tested: int = Field(default=0, ge=0)


class AnomalyReport(_Report):
    now: datetime
    baseline_days: float
    recent_days: float
    duration_anomalies: list[Finding] = Field(default_factory=list)
    token_anomalies: list[Finding] = Field(default_factory=list)
    failure_rate_shifts: list[Finding] = Field(default_factory=list)
    #: What could not be checked and why (too few episodes for a baseline, ...).
    notes: list[str] = Field(default_factory=list)


class Insight(_Frozen):
    """A plain-sentence statement derived from one finding (or a group of anomalies)."""

    rank: int = Field(ge=1)
    statement: str
    kind: FindingKind
    task_type: str | None = None
    confidence: Unit
    #: What insights are ranked by: confidence x effect.
    priority: Unit
    evidence: Evidence


class InsightReport(_Report):
    insights: list[Insight] = Field(default_factory=list)
    #: Insights there were before ``max_insights`` was applied.
    total: int = Field(default=0, ge=0)


class ReflectionReport(_Report):
    #: The ``now`` the analysis was made as of (anomaly windows end there).
    generated_at: datetime
    patterns: PatternReport
    success_factors: list[SuccessFactorReport] = Field(default_factory=list)
    anomalies: AnomalyReport
    insights: InsightReport
