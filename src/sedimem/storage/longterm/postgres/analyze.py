"""Keeping the planner's statistics of the records table fresh (ANALYZE in the background).

Keyword search splits its lexemes by ``pg_stats`` (:mod:`.keywords`), and the
planner's row estimates steer every filtered query; a table loaded faster than autovacuum
looks at it (every minute by default, if it runs at all) is searched without statistics
for a while. So the store counts the rows it writes and, once they reach the table's size
(at least ``min_rows``: the table has doubled, or as many rows were changed as it holds),
runs ``ANALYZE`` on a pooled connection in the background;
a search that finds no statistics for a table holding rows asks for one too (at most once
per ``retry_seconds``: ANALYZE by a user who does not own the table does nothing).

A transaction-scoped advisory lock (tried, not awaited) keeps two processes from
analysing at once: the second skips, the first's statistics serve both.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from psycopg import AsyncConnection, sql
from psycopg_pool import AsyncConnectionPool

from sedimem.storage.longterm.postgres.migrations import lock_id
from sedimem.storage.longterm.postgres.schema import TABLE

__all__ = ["Analyzer", "table_rows"]

log = logging.getLogger(__name__)

#: ANALYZE again once this share of the table has been written since the last one. The
#: statistics searches use are shares (how common a lexeme is, how selective a scope), which
#: a table growing from one distribution keeps: analysing whenever it doubles keeps them
#: right at a logarithmic cost (4 ANALYZEs over the first 10k rows, 7 over 100k), where
#: autovacuum's tenth ran 10 over the first 10k rows and ~35 over 100k, each sampling up
#: to 30,000 rows while ingest waited for the CPU.
GROWTH = 1.0

_ANALYZE = sql.SQL("ANALYZE {}").format(sql.Identifier(TABLE))


async def table_rows(conn: AsyncConnection[Any]) -> float:
    """The table's estimated row count (``pg_class.reltuples``; 0 while never counted)."""
    cursor = await conn.execute(
        "SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = to_regclass(%s)", [TABLE]
    )
    row = await cursor.fetchone()
    return 0.0 if row is None else float(row[0])


class Analyzer:
    """Counts rows written and ANALYZEs the records table when they add up."""

    def __init__(
        self,
        pool: AsyncConnectionPool[AsyncConnection[Any]],
        *,
        min_rows: int,
        table_rows: float,
        on_analyzed: Callable[[], None],
        retry_seconds: float = 600.0,
    ) -> None:
        """``min_rows`` 0 disables analysing; ``table_rows`` is the table's estimated size;
        ``on_analyzed`` runs after each ANALYZE (to drop cached statistics)."""
        self._pool = pool
        self._min_rows = min_rows
        self._table_rows = table_rows
        self._on_analyzed = on_analyzed
        self._retry = retry_seconds
        self._written = 0
        self._last_missing = float("-inf")
        self._task: asyncio.Task[None] | None = None
        self.runs = 0  # ANALYZE statements this process ran (or tried to)

    @property
    def threshold(self) -> float:
        """Rows written that trigger the next ANALYZE."""
        return max(float(self._min_rows), GROWTH * self._table_rows)

    def wrote(self, rows: int) -> None:
        """``rows`` rows were inserted, updated or deleted (committed)."""
        self._written += rows
        if self._min_rows > 0 and self._written >= self.threshold:
            self._start()

    def statistics_missing(self) -> None:
        """A search found no statistics for a table that holds rows."""
        now = time.monotonic()
        if self._min_rows > 0 and now - self._last_missing >= self._retry:
            self._last_missing = now
            self._start()

    async def wait(self) -> None:
        """Wait for the ANALYZE under way, if any."""
        task = self._task
        if task is not None:
            await asyncio.shield(task)

    def _start(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._run(), name="sedimem-pg-analyze"
            )

    async def _run(self) -> None:
        written = self._written
        try:
            async with self._pool.connection() as conn:
                async with conn.transaction():
                    # a table locked by a long maintenance command is analysed another time
                    await conn.execute("SET LOCAL lock_timeout = '10s'")
                    cursor = await conn.execute(
                        "SELECT pg_try_advisory_xact_lock(%s)", [lock_id("analyze", TABLE)]
                    )
                    row = await cursor.fetchone()
                    if row is not None and row[0]:
                        self.runs += 1
                        await conn.execute(_ANALYZE)
                rows = await table_rows(conn)
        except Exception:  # maintenance must never fail a write or a search
            log.warning("ANALYZE of %s failed", TABLE, exc_info=True)
            rows = self._table_rows
        else:
            self._on_analyzed()
        finally:
            # rows written while it ran count towards the next one (after a failure too:
            # the next attempt waits for as many writes again, not for the next write)
            self._written = max(0, self._written - written)
        self._table_rows = rows
