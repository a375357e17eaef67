"""Reflection over the episodes of a scope, read from episodic memory page by page."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sedimem.clock import Clock, SystemClock, utc_from_timestamp
from sedimem.embed.base import Embedder
from sedimem.errors import ValidationError
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.reflection.anomalies import anomalies_of, check_window
from sedimem.reflection.factors import check_task_type, factors_of
from sedimem.reflection.models import (
    AnomalyReport,
    InsightReport,
    PatternReport,
    ReflectionReport,
    SuccessFactorReport,
)
from sedimem.reflection.patterns import patterns_of
from sedimem.reflection.report import reflect
from sedimem.reflection.settings import ReflectionSettings
from sedimem.reflection.table import EpisodeTable, check_time_range
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.types.longterm import Episode, Outcome

__all__ = ["Reflection"]


class Reflection:
    """Statistics over stored episodes: patterns, success factors, anomalies, insights.

    Each call reads the episodes visible to ``scope`` (most recently recorded first, at most
    ``settings.max_episodes``; reports say ``truncated=True`` when the cap was reached).
    """

    def __init__(
        self,
        episodes: EpisodicMemory,
        settings: ReflectionSettings | None = None,
        *,
        clock: Clock | None = None,
    ) -> None:
        if not isinstance(episodes, EpisodicMemory):
            raise ValidationError("episodes", "must be an EpisodicMemory", allowed="EpisodicMemory")
        if settings is not None and not isinstance(settings, ReflectionSettings):
            raise ValidationError(
                "settings", "must be ReflectionSettings", allowed="ReflectionSettings"
            )
        self._episodes = episodes
        self._settings = settings or ReflectionSettings()
        self._clock = clock or SystemClock()

    @classmethod
    def over_store(
        cls,
        store: LongTermStore,
        embedder: Embedder,
        settings: ReflectionSettings | None = None,
        *,
        clock: Clock | None = None,
    ) -> Reflection:
        """Reflection over a long-term store (the embedder must be the store's)."""
        return cls(EpisodicMemory(store, embedder, clock=clock), settings, clock=clock)

    @property
    def settings(self) -> ReflectionSettings:
        return self._settings

    async def load(
        self,
        scope: Scope,
        *,
        time_range: tuple[datetime, datetime] | None = None,
        task_type: str | None = None,
    ) -> tuple[list[Episode], bool]:
        """The episodes visible to ``scope`` (most recently recorded first), and whether
        ``max_episodes`` was reached with more left unread."""
        if not isinstance(scope, Scope):
            raise ValidationError("scope", "must be a Scope", allowed="Scope")
        cap, size = self._settings.max_episodes, self._settings.page_size
        found: list[Episode] = []
        read = 0
        cursor: str | None = None
        while True:
            page = await self._episodes.list(
                scope,
                limit=min(size, cap - read),
                cursor=cursor,
                time_range=time_range,
                task_type=task_type,
                newest_first=True,
            )
            # a chat turn or a note has no outcome: success rates over small talk mean nothing
            found.extend(e for e in page.items if e.outcome is not Outcome.NONE)
            read += len(page.items)
            cursor = page.next_cursor
            if cursor is None:
                return found, False
            if read >= cap:
                return found, True

    async def analyze_patterns(
        self, scope: Scope, time_range: tuple[datetime, datetime] | None = None
    ) -> PatternReport:
        """Outcome rates, recurring action sequences, success and failure patterns."""
        window = check_time_range(time_range)
        episodes, truncated = await self.load(scope, time_range=window)
        table = EpisodeTable.build(episodes, self._settings)
        return patterns_of(table, self._settings, time_range=window, truncated=truncated)

    async def identify_success_factors(
        self,
        scope: Scope,
        task_type: str,
        time_range: tuple[datetime, datetime] | None = None,
    ) -> SuccessFactorReport:
        """What goes with success and with failure in the episodes of ``task_type``."""
        task_type = check_task_type(task_type)
        window = check_time_range(time_range)
        episodes, truncated = await self.load(scope, time_range=window, task_type=task_type)
        table = EpisodeTable.build(episodes, self._settings)
        return factors_of(table, task_type, self._settings, truncated=truncated)

    async def detect_anomalies(
        self, scope: Scope, baseline_days: float = 30.0, now: datetime | None = None
    ) -> AnomalyReport:
        """Outlying durations and token counts in the last ``baseline_days`` (up to
        ``now``, default the clock's time), and failure-rate shifts of the recent window."""
        now = self._now(now)
        check_window(now, baseline_days, self._settings)
        window = (now - timedelta(days=baseline_days), now)
        episodes, truncated = await self.load(scope, time_range=window)
        table = EpisodeTable.build(episodes, self._settings)
        return anomalies_of(
            table, self._settings, now=now, baseline_days=baseline_days, truncated=truncated
        )

    async def generate_insights(
        self,
        scope: Scope,
        time_range: tuple[datetime, datetime] | None = None,
        baseline_days: float = 30.0,
        now: datetime | None = None,
    ) -> InsightReport:
        """Ranked plain-sentence insights from all three analyses (see :meth:`reflect`)."""
        report = await self.reflect(
            scope, time_range=time_range, baseline_days=baseline_days, now=now
        )
        return report.insights

    async def reflect(
        self,
        scope: Scope,
        time_range: tuple[datetime, datetime] | None = None,
        task_types: Sequence[str] | None = None,
        baseline_days: float = 30.0,
        now: datetime | None = None,
    ) -> ReflectionReport:
        """All four analyses from one read of the episodes: patterns and success factors
        over ``time_range`` (all time when ``None``), anomalies over the ``baseline_days``
        before ``now``, and the insights drawn from them."""
        now = self._now(now)
        check_window(now, baseline_days, self._settings)
        window = check_time_range(time_range)
        read = None
        if window is not None:
            start = min(window[0], now - timedelta(days=baseline_days))
            read = (start, max(window[1], now))
        episodes, truncated = await self.load(scope, time_range=read)
        return reflect(
            episodes,
            self._settings,
            now=now,
            time_range=window,
            task_types=task_types,
            baseline_days=baseline_days,
            truncated=truncated,
        )

    def _now(self, now: datetime | None) -> datetime:
        return utc_from_timestamp(self._clock.now()) if now is None else now
