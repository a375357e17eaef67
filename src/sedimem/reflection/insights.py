"""Insights: the findings of the other analyses as ranked plain sentences.

Every pattern, factor, metric difference and failure-rate shift becomes one insight with
its own sentence, confidence and evidence. Duration and token anomalies are grouped per
task type into one insight each (confidence and effect: the strongest member's). A pattern
found over all episodes is left out when a factor of a task type covering the same episodes
says the same thing. Insights are ranked by priority = confidence x effect (then by evidence
count), and the first ``max_insights`` are returned.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sedimem.reflection.models import (
    AnomalyReport,
    Evidence,
    Finding,
    FindingKind,
    Insight,
    InsightReport,
    PatternReport,
    SuccessFactorReport,
)
from sedimem.reflection.settings import ReflectionSettings
from sedimem.reflection.text import METRIC_NAMES, amount

__all__ = ["generate_insights"]

_SAME_CLAIM = {
    FindingKind.SUCCESS_PATTERN: FindingKind.SUCCESS_FACTOR,
    FindingKind.FAILURE_PATTERN: FindingKind.RISK_FACTOR,
}


@dataclass(slots=True)
class _Draft:
    statement: str
    kind: FindingKind
    task_type: str | None
    confidence: float
    effect: float
    evidence: Evidence

    @classmethod
    def of(cls, finding: Finding) -> _Draft:
        return cls(
            finding.description,
            finding.kind,
            finding.task_type,
            finding.confidence,
            finding.effect,
            finding.evidence,
        )

    @property
    def priority(self) -> float:
        return self.confidence * self.effect


def generate_insights(
    patterns: PatternReport | None = None,
    factors: Sequence[SuccessFactorReport] = (),
    anomalies: AnomalyReport | None = None,
    settings: ReflectionSettings | None = None,
) -> InsightReport:
    """Ranked plain-sentence insights from the reports of the other three analyses."""
    settings = settings or ReflectionSettings()
    drafts: list[_Draft] = []
    covered: set[tuple[FindingKind, str]] = set()
    for report in factors:
        for finding in (*report.success_factors, *report.risk_factors, *report.metric_differences):
            drafts.append(_Draft.of(finding))
            if patterns is not None and report.episodes_analyzed == patterns.episodes_analyzed:
                covered.add((finding.kind, finding.subject))
    if patterns is not None:
        for finding in (*patterns.success_patterns, *patterns.failure_patterns):
            twin = _SAME_CLAIM[finding.kind]
            if (twin, finding.subject) not in covered:
                drafts.append(_Draft.of(finding))
    if anomalies is not None:
        drafts += [_Draft.of(f) for f in anomalies.failure_rate_shifts]
        drafts += _grouped(anomalies.duration_anomalies, "duration_seconds", settings)
        drafts += _grouped(anomalies.token_anomalies, "tokens_used", settings)
    drafts.sort(key=lambda d: (-d.priority, -d.evidence.total, d.statement))
    insights = [
        Insight(
            rank=rank,
            statement=d.statement,
            kind=d.kind,
            task_type=d.task_type,
            confidence=d.confidence,
            priority=d.priority,
            evidence=d.evidence,
        )
        for rank, d in enumerate(drafts[: settings.max_insights], start=1)
    ]
    sources = [r for r in (patterns, anomalies, *factors) if r is not None]
    return InsightReport(
        episodes_analyzed=max((r.episodes_analyzed for r in sources), default=0),
        truncated=any(r.truncated for r in sources),
        insights=insights,
        total=len(drafts),
        omitted={"insights": len(drafts) - len(insights)} if len(drafts) > len(insights) else {},
    )


def _grouped(
    findings: Iterable[Finding], metric: str, settings: ReflectionSettings
) -> list[_Draft]:
    groups: dict[str | None, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(finding.task_type, []).append(finding)
    drafts = []
    name = METRIC_NAMES[metric][0]
    for task_type, members in groups.items():
        above = sum(1 for f in members if _number(f, "z") > 0)
        parts = [
            f"{n} far {side}"
            for n, side in ((above, "above"), (len(members) - above, "below"))
            if n
        ]
        top = members[0]  # the most extreme: anomalies come sorted by |z|
        verb = "took" if metric == "duration_seconds" else "used"
        statement = (
            f"{len(members)} '{task_type}' episode(s) had an outlying {name} ({' and '.join(parts)}"
            f" the usual range); the most extreme {verb} {amount(metric, _number(top, 'value'))} "
            f"against a median of {amount(metric, _number(top, 'median'))}"
        )
        ratio = top.metrics.get("ratio_to_median")
        statement += (
            f" ({ratio:.1f}x)." if isinstance(ratio, float) and _number(top, "z") > 0 else "."
        )
        ids = [i for f in members for i in f.evidence.episode_ids]
        drafts.append(
            _Draft(
                statement,
                members[0].kind,
                task_type,
                max(f.confidence for f in members),
                max(f.effect for f in members),
                Evidence(episode_ids=ids[: settings.max_evidence], total=len(ids)),
            )
        )
    return drafts


def _number(finding: Finding, key: str) -> float:
    value = finding.metrics.get(key)
    return float(value) if isinstance(value, int | float) else 0.0
