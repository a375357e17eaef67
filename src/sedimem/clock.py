"""Time as sedimem sees it: a tiny protocol so tests can freeze or move it."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["Clock", "MonotonicClock", "SystemClock", "utc_from_timestamp"]


class Clock(Protocol):
    """Returns the current time as seconds since the epoch."""

    def now(self) -> float: ...


class SystemClock:
    """The wall clock."""

    def now(self) -> float:
        return time.time()


class MonotonicClock:
    """Seconds that never go backwards, from an arbitrary start: for measuring intervals
    (a wall clock set back would stall whatever waits on it)."""

    def now(self) -> float:
        return time.monotonic()


def utc_from_timestamp(ts: float) -> datetime:
    """An aware UTC datetime from epoch seconds."""
    return datetime.fromtimestamp(ts, tz=UTC)
