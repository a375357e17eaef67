"""Anomalies against a baseline window: outlying durations and token counts, and shifts of
the failure rate in the recent window.

The baseline window is ``[now - baseline_days, now]``; the recent window its last
``recent_days``. Durations and token counts are compared within each task type and outcome
with robust statistics of ``log(1 + value)``: the median, and the MAD of each side of it
(a minority of outliers cannot drag them along; the log and the two sides because such
quantities are skewed); every episode of the window is checked. The failure rate of the
recent window is compared with that of
the rest of the baseline window by a pooled two-proportion z test, for all episodes and for
each task type with enough episodes on both sides.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np

from sedimem.errors import ValidationError
from sedimem.limits import MAX_BASELINE_DAYS
from sedimem.longterm.arguments import aware_timestamp
from sedimem.reflection.compare import collect
from sedimem.reflection.models import AnomalyReport, ConfidenceMethod, Finding, FindingKind
from sedimem.reflection.settings import ReflectionSettings
from sedimem.reflection.stats import (
    MAD_EFFICIENCY,
    normal_sf,
    robust_z,
    sidak_confidence,
    student_t_two_sided,
    two_proportion_z,
)
from sedimem.reflection.table import EpisodeTable, check_episodes
from sedimem.reflection.text import amount, pct
from sedimem.types.longterm import Episode, Outcome

# MAX_BASELINE_DAYS (of sedimem.limits) is re-exported: the window check enforces it
__all__ = ["MAX_BASELINE_DAYS", "anomalies_of", "check_window", "detect_anomalies"]


def check_window(now: datetime, baseline_days: float, settings: ReflectionSettings) -> None:
    aware_timestamp(now, "now")
    if (
        isinstance(baseline_days, bool)
        or not isinstance(baseline_days, int | float)
        or not settings.recent_days < baseline_days <= MAX_BASELINE_DAYS
    ):
        raise ValidationError(
            "baseline_days",
            f"{baseline_days!r} is out of range",
            allowed=f"more than recent_days ({settings.recent_days:g}) and at most "
            f"{MAX_BASELINE_DAYS:g}",
        )


def detect_anomalies(
    episodes: Sequence[Episode],
    settings: ReflectionSettings | None = None,
    *,
    now: datetime,
    baseline_days: float = 30.0,
    truncated: bool = False,
) -> AnomalyReport:
    """Episodes of the last ``baseline_days`` whose duration or token count lies more than
    ``anomaly_sigma`` robust standard deviations (of ``log(1 + value)``) from the median of
    their task type and outcome, at least ``anomaly_min_ratio`` times off it, with
    confidence >= ``min_confidence``; and failure-rate shifts of the last ``recent_days``
    with |z| >= ``anomaly_sigma`` and confidence >= ``min_confidence``."""
    settings = settings or ReflectionSettings()
    check_window(now, baseline_days, settings)
    table = EpisodeTable.build(check_episodes(episodes), settings)
    return anomalies_of(table, settings, now=now, baseline_days=baseline_days, truncated=truncated)


def anomalies_of(
    table: EpisodeTable,
    settings: ReflectionSettings,
    *,
    now: datetime,
    baseline_days: float,
    truncated: bool = False,
) -> AnomalyReport:
    start = now - timedelta(days=baseline_days)
    table = table.where(lambda e: start <= e.occurred_at <= now)
    notes: list[str] = []
    omitted: dict[str, int] = {}
    lists: dict[str, list[Finding]] = {}
    for metric, kind, name in (
        ("duration_seconds", FindingKind.DURATION_ANOMALY, "duration_anomalies"),
        ("tokens_used", FindingKind.TOKENS_ANOMALY, "token_anomalies"),
    ):
        found = _outliers(table, metric, kind, settings, notes)
        lists[name] = found[: settings.max_findings]
        if len(found) > settings.max_findings:
            omitted[name] = len(found) - settings.max_findings
    shifts = _shifts(table, settings, now, baseline_days, notes)
    return AnomalyReport(
        episodes_analyzed=len(table),
        truncated=truncated,
        omitted=omitted,
        now=now,
        baseline_days=baseline_days,
        recent_days=settings.recent_days,
        duration_anomalies=lists["duration_anomalies"],
        token_anomalies=lists["token_anomalies"],
        failure_rate_shifts=shifts,
        notes=notes,
    )


def _value(episode: Episode, metric: str) -> float | None:
    if metric == "duration_seconds":
        return episode.duration_seconds
    return None if episode.tokens_used is None else float(episode.tokens_used)


_OUTCOME_WORD = {
    Outcome.SUCCESS: "successful",
    Outcome.FAILURE: "failed",
    Outcome.PARTIAL: "partial",
}


def _outliers(
    table: EpisodeTable,
    metric: str,
    kind: FindingKind,
    settings: ReflectionSettings,
    notes: list[str],
) -> list[Finding]:
    """Each episode against the episodes of its task type and outcome (failures are often
    slower than successes: that is a pattern, not an anomaly); against its whole task type
    when its outcome has fewer than ``min_baseline`` episodes with a value."""
    rows = [r for r, e in enumerate(table.episodes) if _value(e, metric) is not None]
    groups = collect([table.episodes[r].task_type] for r in rows)
    found: list[tuple[float, Finding]] = []
    for task_type, members in sorted(groups.items()):
        if len(members) < settings.min_baseline:
            notes.append(
                f"{metric} of '{task_type}' tasks not checked: {len(members)} episode(s) with a "
                f"value, fewer than min_baseline ({settings.min_baseline})"
            )
            continue
        of_type = [rows[m] for m in members]
        by_outcome = collect([table.outcomes[r]] for r in of_type)
        small = []
        for outcome, positions in sorted(by_outcome.items()):
            if len(positions) >= settings.min_baseline:
                group = [of_type[p] for p in positions]
                reference = f"{_OUTCOME_WORD[outcome]} '{task_type}' episodes"
                found += _score(table, group, group, metric, kind, reference, settings)
            else:
                small += [of_type[p] for p in positions]
        if small:
            reference = f"'{task_type}' episodes"
            found += _score(table, of_type, small, metric, kind, reference, settings)
    found.sort(key=lambda item: (-item[0], item[1].subject))
    return [f for _, f in found]


def _score(
    table: EpisodeTable,
    baseline: list[int],
    checked: list[int],
    metric: str,
    kind: FindingKind,
    reference: str,
    settings: ReflectionSettings,
) -> list[tuple[float, Finding]]:
    """Findings for the ``checked`` rows lying beyond ``anomaly_sigma`` robust standard
    deviations of the ``baseline`` rows (and passing the ratio and confidence checks)."""
    values = np.array([_value(table.episodes[r], metric) for r in baseline], dtype=np.float64)
    # durations and token counts are positive and skewed (roughly log-normal): their
    # spread is measured on log(1 + value), where it is roughly symmetric
    logs = np.log1p(values)
    log_centre, lower, upper, _ = robust_z(logs)
    if upper == 0.0:
        return []
    centre = float(np.median(values))
    sigma = settings.anomaly_sigma
    # sigma is (at least) the MAD-based estimate from all values, efficiency 0.37
    freedom = max(1.0, MAD_EFFICIENCY * len(values))
    found = []
    for row in checked:
        episode = table.episodes[row]
        value = float(_value(episode, metric) or 0.0)
        deviation = float(np.log1p(value)) - log_centre
        score = deviation / (lower if deviation < 0 else upper)
        if abs(score) <= sigma or not _far_enough(value, centre, settings.anomaly_min_ratio):
            continue
        confidence = sidak_confidence(student_t_two_sided(score, freedom), len(values))
        if confidence < settings.min_confidence:
            continue
        finding = Finding(
            kind=kind,
            subject=f"episode: {episode.id}",
            task_type=episode.task_type,
            description=_outlier_sentence(episode, metric, value, centre, score, reference),
            confidence=confidence,
            confidence_method=ConfidenceMethod.ROBUST_Z_SIDAK,
            effect=1.0 - sigma / abs(score),
            evidence=table.evidence([row], 1),
            metrics={
                "metric": metric,
                "value": value,
                "median": centre,
                "log_sigma_below": lower,
                "log_sigma_above": upper,
                "z": score,
                "ratio_to_median": value / centre if centre > 0 else None,
                "baseline_size": len(values),
                "reference": reference,
            },
        )
        found.append((abs(score), finding))
    return found


def _far_enough(value: float, centre: float, ratio: float) -> bool:
    if value >= centre:
        return value >= centre * ratio
    return value * ratio <= centre


def _outlier_sentence(
    episode: Episode, metric: str, value: float, centre: float, z: float, reference: str
) -> str:
    verb = "took" if metric == "duration_seconds" else "used"
    head = (
        f"Episode {episode.id} ('{episode.task_type}', "
        f"{episode.occurred_at:%Y-%m-%d %H:%M} UTC) {verb}"
    )
    tail = f"the median of {amount(metric, centre)} for {reference} (z = {z:+.1f})"
    if z > 0 and centre > 0:
        return f"{head} {amount(metric, value)}, {value / centre:.1f}x {tail}."
    if z > 0:
        return f"{head} {amount(metric, value)}, far above {tail}."
    return f"{head} only {amount(metric, value)}, far below {tail}."


def _shifts(
    table: EpisodeTable,
    settings: ReflectionSettings,
    now: datetime,
    baseline_days: float,
    notes: list[str],
) -> list[Finding]:
    recent_start = now - timedelta(days=settings.recent_days)
    groups: list[tuple[str | None, list[int]]] = [(None, list(range(len(table))))]
    by_type = collect([e.task_type] for e in table.episodes)
    if len(by_type) > 1:
        groups += sorted(by_type.items())
    tests = []
    skipped = 0
    for task_type, rows in groups:
        recent = [r for r in rows if table.episodes[r].occurred_at >= recent_start]
        before = [r for r in rows if table.episodes[r].occurred_at < recent_start]
        if len(before) < settings.min_baseline or len(recent) < settings.min_support:
            if task_type is None:
                notes.append(
                    f"failure rate not compared: {len(recent)} recent episode(s) (need "
                    f"min_support = {settings.min_support}) and {len(before)} before them "
                    f"(need min_baseline = {settings.min_baseline})"
                )
            else:
                skipped += 1
            continue
        tests.append((task_type, recent, before))
    if skipped:
        notes.append(
            f"failure rate not compared for {skipped} task type(s) with too few recent or "
            "baseline episodes"
        )
    found: list[tuple[float, Finding]] = []
    for task_type, recent, before in tests:
        fails_recent = [r for r in recent if table.outcomes[r] is Outcome.FAILURE]
        fails_before = sum(1 for r in before if table.outcomes[r] is Outcome.FAILURE)
        z = two_proportion_z(len(fails_recent), len(recent), fails_before, len(before))
        confidence = sidak_confidence(min(1.0, 2.0 * normal_sf(abs(z))), len(tests))
        if abs(z) < settings.anomaly_sigma or confidence < settings.min_confidence:
            continue
        rate_recent, rate_before = len(fails_recent) / len(recent), fails_before / len(before)
        whose = (
            "The failure rate" if task_type is None else f"The failure rate of '{task_type}' tasks"
        )
        moved = "rose" if z > 0 else "fell"
        failed = set(fails_recent)
        support = fails_recent if z > 0 else [r for r in recent if r not in failed]
        found.append(
            (
                abs(z),
                Finding(
                    kind=FindingKind.FAILURE_RATE_SHIFT,
                    subject="failure_rate" if task_type is None else f"failure_rate: {task_type}",
                    task_type=task_type,
                    description=(
                        f"{whose} {moved} to {pct(rate_recent)} ({len(fails_recent)} of "
                        f"{len(recent)}) in the last {settings.recent_days:g} days from "
                        f"{pct(rate_before)} ({fails_before} of {len(before)}) in the "
                        f"{baseline_days - settings.recent_days:g} days before (z = {z:+.1f})."
                    ),
                    confidence=confidence,
                    confidence_method=ConfidenceMethod.TWO_PROPORTION_SIDAK,
                    effect=abs(rate_recent - rate_before),
                    evidence=table.evidence(support, settings.max_evidence),
                    metrics={
                        "recent_rate": rate_recent,
                        "baseline_rate": rate_before,
                        "recent_episodes": len(recent),
                        "baseline_episodes": len(before),
                        "recent_failures": len(fails_recent),
                        "baseline_failures": fails_before,
                        "z": z,
                    },
                ),
            )
        )
    found.sort(key=lambda item: (-item[0], item[1].subject))
    return [f for _, f in found]
