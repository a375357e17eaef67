"""Success factors of one task type: what goes with success, what goes with failure, and
how successes and failures differ in duration, tokens and number of actions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from statistics import median

from sedimem.errors import ValidationError
from sedimem.reflection.compare import (
    cap,
    finish,
    rank_key,
    score_candidates,
    sequence_candidates,
)
from sedimem.reflection.models import (
    ConfidenceMethod,
    Finding,
    FindingKind,
    SuccessFactorReport,
)
from sedimem.reflection.settings import ReflectionSettings
from sedimem.reflection.stats import LogFactorials, MannWhitney, mann_whitney
from sedimem.reflection.table import (
    EpisodeTable,
    check_episodes,
    check_time_range,
    outcome_rate,
)
from sedimem.reflection.text import METRIC_NAMES, amount, factor_sentence
from sedimem.types.longterm import Episode, Outcome

__all__ = ["check_task_type", "factors_of", "identify_success_factors"]


def check_task_type(task_type: object) -> str:
    if not isinstance(task_type, str) or not 1 <= len(task_type) <= 256:
        raise ValidationError(
            "task_type", f"{task_type!r} is not a task type", allowed="1..256 characters"
        )
    return task_type


def identify_success_factors(
    episodes: Sequence[Episode],
    task_type: str,
    settings: ReflectionSettings | None = None,
    *,
    time_range: tuple[datetime, datetime] | None = None,
    truncated: bool = False,
) -> SuccessFactorReport:
    """Among the episodes of ``task_type`` (within ``time_range`` when given): action
    sequences whose presence raises the success rate (success factors) or lowers it (risk
    factors), and metrics in which successes and failures differ."""
    settings = settings or ReflectionSettings()
    task_type = check_task_type(task_type)
    window = check_time_range(time_range)
    table = EpisodeTable.build(check_episodes(episodes), settings)
    if window is not None:
        start, end = window
        table = table.where(lambda e: start <= e.occurred_at <= end)
    return factors_of(table, task_type, settings, truncated=truncated)


@dataclass(frozen=True, slots=True)
class _MetricTest:
    metric: str
    successes: list[float]
    failures: list[float]
    rows: list[int]
    result: MannWhitney


def factors_of(
    table: EpisodeTable,
    task_type: str,
    settings: ReflectionSettings,
    *,
    truncated: bool = False,
    logs: LogFactorials | None = None,
) -> SuccessFactorReport:
    table = table.where(lambda e: e.task_type == task_type)
    logs = logs or LogFactorials(len(table))
    candidates, _ = sequence_candidates(table, settings)
    tests, family = score_candidates(
        table,
        candidates,
        Outcome.SUCCESS,
        [("more", FindingKind.SUCCESS_FACTOR), ("less", FindingKind.RISK_FACTOR)],
        factor_sentence(task_type),
        settings,
        logs,
    )
    metrics = _metric_tests(table, settings)
    findings, q_values = finish(
        table,
        tests,
        family + len(metrics),
        [m.result.p_value for m in metrics],
        settings,
        task_type,
    )
    differences = [
        _difference(table, m, q, task_type, settings)
        for m, q in zip(metrics, q_values, strict=True)
        if 1.0 - q >= settings.min_confidence
    ]
    ranked = sorted(findings, key=rank_key)
    limit = settings.max_findings
    omitted: dict[str, int] = {}
    good = [f for f in ranked if f.kind is FindingKind.SUCCESS_FACTOR]
    bad = [f for f in ranked if f.kind is FindingKind.RISK_FACTOR]
    return SuccessFactorReport(
        episodes_analyzed=len(table),
        truncated=truncated,
        task_type=task_type,
        outcomes=outcome_rate(table.outcomes, task_type, settings.interval_z),
        success_factors=cap("success_factors", good, limit, omitted),
        risk_factors=cap("risk_factors", bad, limit, omitted),
        metric_differences=cap(
            "metric_differences", sorted(differences, key=rank_key), limit, omitted
        ),
        omitted=omitted,
        candidates_tested=family + len(metrics),
    )


def _value(episode: Episode, metric: str) -> float | None:
    if metric == "duration_seconds":
        return episode.duration_seconds
    if metric == "tokens_used":
        return None if episode.tokens_used is None else float(episode.tokens_used)
    return float(len(episode.actions))


def _metric_tests(table: EpisodeTable, settings: ReflectionSettings) -> list[_MetricTest]:
    tests = []
    for metric in METRIC_NAMES:
        wins: list[float] = []
        losses: list[float] = []
        rows: list[int] = []
        for row, (episode, outcome) in enumerate(zip(table.episodes, table.outcomes, strict=True)):
            value = _value(episode, metric)
            if value is None or outcome is Outcome.PARTIAL:
                continue
            (wins if outcome is Outcome.SUCCESS else losses).append(value)
            rows.append(row)
        if min(len(wins), len(losses)) >= settings.min_support:
            tests.append(_MetricTest(metric, wins, losses, rows, mann_whitney(wins, losses)))
    return tests


def _difference(
    table: EpisodeTable, test: _MetricTest, q: float, task_type: str, settings: ReflectionSettings
) -> Finding:
    name = METRIC_NAMES[test.metric][0]
    wins, losses = median(test.successes), median(test.failures)
    return Finding(
        kind=FindingKind.METRIC_DIFFERENCE,
        subject=test.metric,
        task_type=task_type,
        description=(
            f"For '{task_type}' tasks, successful episodes have a median {name} of "
            f"{amount(test.metric, wins)} vs {amount(test.metric, losses)} for failed ones "
            f"({len(test.successes)} vs {len(test.failures)} episodes)."
        ),
        confidence=1.0 - q,
        confidence_method=ConfidenceMethod.MANN_WHITNEY_BH,
        effect=min(1.0, abs(2.0 * test.result.auc - 1.0)),
        evidence=table.evidence(test.rows, settings.max_evidence),
        metrics={
            "median_success": wins,
            "median_failure": losses,
            "successes": len(test.successes),
            "failures": len(test.failures),
            "auc": test.result.auc,
            "z": test.result.z,
            "p_value": test.result.p_value,
            "q_value": q,
        },
    )
