"""What reflection returns: findings with evidence and confidence, grouped in reports."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

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


def _d(text: str, **kwargs: Any) -> Any:
    """A field described by ``text`` (published in the OpenAPI document)."""
    return Field(description=text, **kwargs)


class FindingKind(StrEnum):
    """What a finding claims."""

    SUCCESS_PATTERN = "success_pattern"  # a feature over-represented in successes
    FAILURE_PATTERN = "failure_pattern"  # a feature over-represented in failures
    SUCCESS_FACTOR = "success_factor"  # within a task type: presence raises success
    RISK_FACTOR = "risk_factor"  # within a task type: presence lowers success
    METRIC_DIFFERENCE = "metric_difference"  # successes and failures differ in a metric
    DURATION_ANOMALY = "duration_anomaly"
    TOKENS_ANOMALY = "tokens_anomaly"
    FAILURE_RATE_SHIFT = "failure_rate_shift"


class ConfidenceMethod(StrEnum):
    """How a finding's confidence was computed."""

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

    episode_ids: list[str] = _d(
        "Ids of supporting episodes, most recent first.", default_factory=list
    )
    total: int = _d("How many episodes support it in all.", default=0, ge=0)

    @property
    def truncated(self) -> bool:
        return self.total > len(self.episode_ids)


_RATE = "Share of successes, 0..1."


class Finding(_Frozen):
    """One statistical claim about the episodes, with what supports it."""

    kind: FindingKind = _d("What the finding claims.")
    subject: str = _d(
        "What it is about, e.g. `actions: build > test`, `term: timeout`, `task_type: "
        "deploy`, `duration_seconds`, `episode: <id>`."
    )
    task_type: str | None = _d("The task type the claim is restricted to, if any.", default=None)
    description: str = _d("The claim in one plain sentence.")
    confidence: Unit = _d("How sure, 0..1 (see `confidence_method`).")
    confidence_method: ConfidenceMethod = _d("How `confidence` was computed.")
    effect: Unit = _d("Size of the effect, 0..1 (difference of rates, rank-biserial, ...).")
    evidence: Evidence = _d("The episodes it rests on.")
    metrics: dict[str, Metric] = _d("The figures behind it, by name.", default_factory=dict)


class OutcomeRate(_Frozen):
    """Outcome counts of a group of episodes, with a Wilson interval on the success rate."""

    task_type: str | None = _d("The group's task type (unset: every episode).", default=None)
    total: int = _d("Episodes in the group.", ge=0)
    successes: int = _d("Episodes that succeeded.", ge=0)
    failures: int = _d("Episodes that failed.", ge=0)
    partials: int = _d("Episodes that partly succeeded.", ge=0)
    success_rate: Unit = _d(_RATE)
    failure_rate: Unit = _d("Share of failures, 0..1.")
    success_rate_low: Unit = _d("Lower end of the 95% Wilson interval of the success rate.")
    success_rate_high: Unit = _d("Upper end of the 95% Wilson interval of the success rate.")


class SequenceStat(_Frozen):
    """A contiguous action sequence (two actions or more) that recurs across episodes."""

    actions: list[str] = _d("The actions, in order.")
    support: int = _d("Episodes containing the sequence.", ge=0)
    successes: int = _d("Of those, how many succeeded.", ge=0)
    failures: int = _d("Of those, how many failed.", ge=0)
    success_rate: Unit = _d(_RATE)
    success_rate_low: Unit = _d("Lower end of the 95% Wilson interval of the success rate.")
    success_rate_high: Unit = _d("Upper end of the 95% Wilson interval of the success rate.")
    baseline_success_rate: Unit = _d("The success rate of every episode analysed.")
    lift: float = _d("success_rate / baseline_success_rate.", ge=0.0)
    evidence: Evidence = _d("The episodes containing it.")


class _Report(_Frozen):
    episodes_analyzed: int = _d("Episodes read for this report.", ge=0)
    truncated: bool = _d(
        "Whether the `max_episodes` cap was reached (older episodes were not read).",
        default=False,
    )
    omitted: dict[str, int] = _d(
        "Findings left out of a list by `max_findings`: list name -> how many.",
        default_factory=dict,
    )


_CANDIDATES = "Candidates tested per list (the family size of the q-values)."


class PatternReport(_Report):
    """Outcome rates, recurring action sequences and the patterns of successes and failures."""

    time_range: tuple[datetime, datetime] | None = _d(
        "The window of episodes read (unset: all).", default=None
    )
    overall: OutcomeRate = _d("Outcomes of every episode read.")
    by_task_type: list[OutcomeRate] = _d("Outcomes per task type.", default_factory=list)
    recurring_sequences: list[SequenceStat] = _d(
        "Action sequences that recur across episodes.", default_factory=list
    )
    success_patterns: list[Finding] = _d(
        "Features over-represented in successes.", default_factory=list
    )
    failure_patterns: list[Finding] = _d(
        "Features over-represented in failures.", default_factory=list
    )
    candidates_tested: int = _d(_CANDIDATES, default=0, ge=0)


class SuccessFactorReport(_Report):
    """What goes with success and with failure within one task type."""

    task_type: str = _d("The task type analysed.")
    outcomes: OutcomeRate = _d("Its outcomes.")
    success_factors: list[Finding] = _d(
        "Features whose presence raises success.", default_factory=list
    )
    risk_factors: list[Finding] = _d(
        "Features whose presence lowers success.", default_factory=list
    )
    metric_differences: list[Finding] = _d(
        "Metrics (duration, tokens) in which successes and failures differ.",
        default_factory=list,
    )
    candidates_tested: int = _d(_CANDIDATES, default=0, ge=0)


class AnomalyReport(_Report):
    """Recent episodes that stand out against the baseline."""

    now: datetime = _d("The end of the recent window.")
    baseline_days: float = _d("Days of the baseline window.")
    recent_days: float = _d("Days of the recent window.")
    duration_anomalies: list[Finding] = _d(
        "Unusually long or short episodes.", default_factory=list
    )
    token_anomalies: list[Finding] = _d(
        "Episodes using unusually many tokens.", default_factory=list
    )
    failure_rate_shifts: list[Finding] = _d(
        "Task types whose recent failure rate moved away from the baseline.",
        default_factory=list,
    )
    notes: list[str] = _d(
        "What could not be checked and why (too few episodes for a baseline, ...).",
        default_factory=list,
    )


class Insight(_Frozen):
    """A plain-sentence statement derived from one finding (or a group of anomalies)."""

    rank: int = _d("1 for the most important insight.", ge=1)
    statement: str = _d("The insight in one plain sentence.")
    kind: FindingKind = _d("The kind of finding it comes from.")
    task_type: str | None = _d("The task type it is about, if any.", default=None)
    confidence: Unit = _d("How sure, 0..1.")
    priority: Unit = _d("What insights are ranked by: confidence x effect.")
    evidence: Evidence = _d("The episodes it rests on.")


class InsightReport(_Report):
    """The findings restated as ranked insights."""

    insights: list[Insight] = _d("Best first.", default_factory=list)
    total: int = _d("Insights there were before `max_insights` was applied.", default=0, ge=0)


class ReflectionReport(_Report):
    """Patterns, success factors, anomalies and insights of the episodes in scope."""

    generated_at: datetime = _d("The time the analysis was made as of (anomaly windows end there).")
    patterns: PatternReport = _d("Outcome rates and patterns.")
    success_factors: list[SuccessFactorReport] = _d(
        "What goes with success, per task type.", default_factory=list
    )
    anomalies: AnomalyReport = _d("Recent episodes that stand out.")
    insights: InsightReport = _d("Ranked insights.")
