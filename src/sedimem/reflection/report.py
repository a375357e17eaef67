"""All four analyses over one list of episodes, sharing the prepared features."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from sedimem.errors import ValidationError
from sedimem.reflection.anomalies import anomalies_of, check_window
from sedimem.reflection.factors import check_task_type, factors_of
from sedimem.reflection.insights import generate_insights
from sedimem.reflection.models import ReflectionReport
from sedimem.reflection.patterns import patterns_of
from sedimem.reflection.settings import ReflectionSettings
from sedimem.reflection.stats import LogFactorials
from sedimem.reflection.table import EpisodeTable, check_episodes, check_time_range
from sedimem.types.longterm import Episode

__all__ = ["reflect"]


def reflect(
    episodes: Sequence[Episode],
    settings: ReflectionSettings | None = None,
    *,
    now: datetime,
    time_range: tuple[datetime, datetime] | None = None,
    task_types: Sequence[str] | None = None,
    baseline_days: float = 30.0,
    truncated: bool = False,
) -> ReflectionReport:
    """Patterns and success factors over ``time_range`` (all episodes when ``None``),
    anomalies over the ``baseline_days`` before ``now``, and the insights drawn from them.

    Success factors are computed for ``task_types`` when given, else for the most frequent
    task types (at most ``max_task_types``) with at least ``min_support`` episodes.
    """
    settings = settings or ReflectionSettings()
    window = check_time_range(time_range)
    check_window(now, baseline_days, settings)
    if task_types is not None:
        if isinstance(task_types, str):
            raise ValidationError(
                "task_types", "must be a list of task types, not one string", allowed="list[str]"
            )
        task_types = [check_task_type(t) for t in task_types]
    table = EpisodeTable.build(check_episodes(episodes), settings)
    logs = LogFactorials(len(table))
    patterns = patterns_of(table, settings, time_range=window, truncated=truncated, logs=logs)
    in_range = table
    if window is not None:
        start, end = window
        in_range = table.where(lambda e: start <= e.occurred_at <= end)
    omitted: dict[str, int] = {}
    if task_types is None:
        counts = Counter(e.task_type for e in in_range.episodes)
        frequent = sorted(
            (t for t, n in counts.items() if n >= settings.min_support),
            key=lambda t: (-counts[t], t),
        )
        if len(frequent) > settings.max_task_types:
            omitted["success_factors"] = len(frequent) - settings.max_task_types
        task_types = frequent[: settings.max_task_types]
    factors = [
        factors_of(in_range, t, settings, truncated=truncated, logs=logs) for t in task_types
    ]
    anomalies = anomalies_of(
        table, settings, now=now, baseline_days=baseline_days, truncated=truncated
    )
    return ReflectionReport(
        episodes_analyzed=len(table),
        truncated=truncated,
        omitted=omitted,
        generated_at=now,
        patterns=patterns,
        success_factors=factors,
        anomalies=anomalies,
        insights=generate_insights(patterns, factors, anomalies, settings),
    )
