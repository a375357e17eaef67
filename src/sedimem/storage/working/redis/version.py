"""Versions of working-memory writes: a hybrid logical clock with the writer's id.

Every write the Redis store sends (live, or replayed after an outage) carries a version
``"<microseconds, 16 digits>:<writer>"``. The microseconds are the caller's clock (``now``),
raised past the last version this process issued or saw, so versions of one process only
grow; the writer id (random per process, new after ``fork``) breaks ties between processes.
Versions compare as plain text, in Lua as in Python.

Redis keeps the version of each user key, of the task state and of every clear or drop next
to the data (see :mod:`sedimem.storage.working.redis`). A live write always lands and
leaves a version above every one it replaced; a replayed write lands only if no newer one is
there (compare-and-set), so an outage's journal never overwrites what another process wrote
after it. Across processes "newer" means a later clock reading: hosts' clocks must agree to
within the time between two conflicting writes (NTP keeps them within milliseconds).
"""

from __future__ import annotations

import os
import secrets
from datetime import UTC, datetime

__all__ = ["HybridClock", "PROCESS_CLOCK", "micros", "stamp_of"]

_WIDTH = 16  # digits of microseconds: enough until the year 2286


def micros(version: str) -> int:
    """The microseconds part of a version."""
    return int(version[:_WIDTH])


def stamp_of(version: str) -> str:
    """A version's time as the scratchpad compares entries: ``YYYY-MM-DDTHH:MM:SS.ffffff``."""
    at = datetime.fromtimestamp(micros(version) / 1_000_000, UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.%f")


class HybridClock:
    """Issues strictly increasing versions for one writer."""

    def __init__(self, writer: str | None = None) -> None:
        self.writer = writer or secrets.token_hex(6)
        self._last = 0

    def tick(self, now: float) -> str:
        """A version for a write made at ``now`` (epoch seconds), above every earlier one."""
        us = max(int(now * 1_000_000), self._last + 1)
        self._last = us
        return f"{us:0{_WIDTH}d}:{self.writer}"

    def observe(self, version: object) -> None:
        """Move past a version seen in the store (what a later write must follow)."""
        if isinstance(version, str) and len(version) > _WIDTH:
            us = micros(version)
            if us > self._last:
                self._last = us

    def renew(self) -> None:
        """A new writer id (a forked child must not share its parent's)."""
        self.writer = secrets.token_hex(6)


#: The one clock of this process: every store in it issues versions from it, so the order of
#: a process's writes is the order of their versions, whichever handle made them.
PROCESS_CLOCK = HybridClock()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=PROCESS_CLOCK.renew)
