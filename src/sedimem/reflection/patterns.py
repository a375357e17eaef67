"""Recurring success and failure patterns, outcome rates and recurring action sequences."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sedimem.reflection.compare import (
    Candidate,
    cap,
    collect,
    finish,
    rank_key,
    score_candidates,
    sequence_candidates,
)
from sedimem.reflection.models import (
    Finding,
    FindingKind,
    OutcomeRate,
    PatternReport,
    SequenceStat,
)
from sedimem.reflection.settings import ReflectionSettings
from sedimem.reflection.stats import LogFactorials
from sedimem.reflection.table import (
    EpisodeTable,
    Sequence_,
    check_episodes,
    check_time_range,
    outcome_rate,
)
from sedimem.reflection.text import pattern_sentence
from sedimem.types.longterm import Episode, Outcome

__all__ = ["analyze_patterns", "patterns_of"]


def analyze_patterns(
    episodes: Sequence[Episode],
    settings: ReflectionSettings | None = None,
    *,
    time_range: tuple[datetime, datetime] | None = None,
    truncated: bool = False,
) -> PatternReport:
    """Outcome rates per task type, recurring action sequences, and the features (action
    sequences, task types, words of outcome details and lessons) over-represented in
    successes and in failures, among ``episodes`` that occurred within ``time_range``
    (inclusive; all when ``None``)."""
    settings = settings or ReflectionSettings()
    window = check_time_range(time_range)
    table = EpisodeTable.build(check_episodes(episodes), settings)
    return patterns_of(table, settings, time_range=window, truncated=truncated)


def patterns_of(
    table: EpisodeTable,
    settings: ReflectionSettings,
    *,
    time_range: tuple[datetime, datetime] | None = None,
    truncated: bool = False,
    logs: LogFactorials | None = None,
) -> PatternReport:
    if time_range is not None:
        start, end = time_range
        table = table.where(lambda e: start <= e.occurred_at <= end)
    logs = logs or LogFactorials(len(table))
    z = settings.interval_z
    by_type = collect([e.task_type] for e in table.episodes)
    rates = sorted(
        (outcome_rate([table.outcomes[r] for r in rows], t, z) for t, rows in by_type.items()),
        key=lambda rate: (-rate.total, rate.task_type or ""),
    )
    overall = outcome_rate(table.outcomes, None, z)
    sequences, kept = sequence_candidates(table, settings)
    candidates = list(sequences)
    if len(by_type) > 1:
        candidates += [Candidate("task_type", t, rows) for t, rows in sorted(by_type.items())]
    candidates += _term_candidates(table, settings)
    success, tested = _family(table, candidates, Outcome.SUCCESS, settings, logs)
    failure, _ = _family(table, candidates, Outcome.FAILURE, settings, logs)
    omitted: dict[str, int] = {}
    recurring = _recurring(table, kept, overall, settings, omitted)
    limit = settings.max_findings
    success = cap("success_patterns", success, limit, omitted)
    failure = cap("failure_patterns", failure, limit, omitted)
    return PatternReport(
        episodes_analyzed=len(table),
        truncated=truncated,
        time_range=time_range,
        overall=overall,
        by_task_type=rates,
        omitted=omitted,
        recurring_sequences=recurring,
        success_patterns=success,
        failure_patterns=failure,
        candidates_tested=tested,
    )


def _term_candidates(table: EpisodeTable, settings: ReflectionSettings) -> list[Candidate]:
    """Words with enough support; words found in exactly the same episodes are one
    candidate (``"timeout, waiting"``), not several copies of the same finding."""
    same: dict[tuple[int, ...], list[str]] = {}
    for word, rows in collect(table.terms).items():
        if len(rows) >= settings.min_support:
            same.setdefault(tuple(rows), []).append(word)
    return sorted(
        (Candidate("term", ", ".join(sorted(words)), list(rows)) for rows, words in same.items()),
        key=lambda c: c.label,
    )


def _family(
    table: EpisodeTable,
    candidates: list[Candidate],
    target: Outcome,
    settings: ReflectionSettings,
    logs: LogFactorials,
) -> tuple[list[Finding], int]:
    if target is Outcome.SUCCESS:
        kind, verb = FindingKind.SUCCESS_PATTERN, "succeed"
    else:
        kind, verb = FindingKind.FAILURE_PATTERN, "fail"
    tests, family = score_candidates(
        table, candidates, target, [("more", kind)], pattern_sentence(verb), settings, logs
    )
    findings, _ = finish(table, tests, family, [], settings)
    return sorted(findings, key=rank_key), family


def _recurring(
    table: EpisodeTable,
    kept: dict[Sequence_, list[int]],
    overall: OutcomeRate,
    settings: ReflectionSettings,
    omitted: dict[str, int],
) -> list[SequenceStat]:
    longer = sorted(
        ((g, rows) for g, rows in kept.items() if len(g) > 1),
        key=lambda item: (-len(item[1]), item[0]),
    )
    if len(longer) > settings.max_findings:
        omitted["recurring_sequences"] = len(longer) - settings.max_findings
        longer = longer[: settings.max_findings]
    stats = []
    for gram, rows in longer:
        outcomes = [table.outcomes[r] for r in rows]
        rate = outcome_rate(outcomes, None, settings.interval_z)
        baseline = overall.success_rate
        stats.append(
            SequenceStat(
                actions=list(gram),
                support=rate.total,
                successes=rate.successes,
                failures=rate.failures,
                success_rate=rate.success_rate,
                success_rate_low=rate.success_rate_low,
                success_rate_high=rate.success_rate_high,
                baseline_success_rate=baseline,
                lift=rate.success_rate / baseline if baseline else 0.0,
                evidence=table.evidence(rows, settings.max_evidence),
            )
        )
    return stats
