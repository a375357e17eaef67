"""Which server a read goes to: the primary, or a streaming replica that has caught up.

Searches (recall, ``assemble``) may read from a replica; everything else (writes, reads by
id, counts, listings) stays on the primary, so a record read by id after an edit is always
the edited one. A search goes to a replica only if that replica

- is a hot standby of the primary's cluster (``pg_is_in_recovery()``, the same
  ``pg_control_system()`` system identifier): checked when the store opens, which refuses a
  URL that is neither with a :class:`~sedimem.errors.ConfigurationError` naming it, and
  again on every status check (a replica promoted since is no longer read from);
- lags by at most ``max_lag_seconds``: it streams from the primary and has replayed all
  the WAL it received, or its last replayed transaction committed at most that long ago
  (a replica cut off from its primary falls behind by this measure as time passes);
- has replayed the WAL of this process's last write for the tenant (read-your-writes):
  after each write the store remembers the primary's WAL insert position
  (``pg_current_wal_insert_lsn()``) for the tenant, and a search of that tenant reads from a
  replica only once its ``pg_last_wal_replay_lsn()`` has passed it.

A replica's status is read on one of its connections at most every
:data:`STATUS_SECONDS`, and at once when a search needs a position the last status had not
reached. A replica that cannot be reached (or cancels a search for a recovery conflict) is
skipped for ``retry_seconds``; its search runs again on the primary, and nothing raises.

The write positions are kept in this process: a session whose calls reach several
processes (``serve --workers N``, several servers) sees its own writes in another process
only once that process's replica has replayed them (within ``max_lag_seconds``).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from sedimem.errors import ConfigurationError, StoreUnavailable
from sedimem.storage.longterm.postgres.errors import is_connection_failure

__all__ = [
    "STATUS_SECONDS",
    "ReadRouter",
    "Replica",
    "ReplicaStatus",
    "read_status",
    "redacted",
    "system_identifier",
    "write_position",
]

log = logging.getLogger(__name__)

T = TypeVar("T")

#: How long a replica's status (position, lag) is trusted before it is read again.
STATUS_SECONDS = 0.5

#: Tenants whose last write position is remembered; older ones fold into a floor that every
#: search then waits for (conservative: never a read older than a remembered write).
MAX_TENANTS = 100_000

#: SQLSTATEs of a search a replica cancelled that the primary would run: a conflict with
#: recovery (a replayed vacuum removed rows the search still needed).
_RETRY_ON_PRIMARY = frozenset({"40001", "40P01"})

#: A replica's lag: 0 while it streams from the primary and has replayed all it received;
#: else the time since the commit of the last transaction it replayed (NULL: none yet, so
#: unknown). Not streaming (its primary unreachable, a network partition) counts as behind:
#: nothing then tells how much it misses. ``status`` is only shown to roles with
#: pg_read_all_stats; for others, a WAL receiver process at all stands for it.
_STATUS = (
    "SELECT pg_is_in_recovery(),"
    " (SELECT system_identifier FROM pg_control_system()),"
    " (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint,"
    " CASE WHEN EXISTS (SELECT FROM pg_stat_wal_receiver"
    "     WHERE pid IS NOT NULL AND coalesce(status, 'streaming') = 'streaming')"
    "   AND pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0"
    "   ELSE extract(epoch FROM clock_timestamp() - pg_last_xact_replay_timestamp()) END"
)
_WRITE_POSITION = "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint"
_SYSTEM = "SELECT system_identifier FROM pg_control_system()"


def redacted(url: str) -> str:
    """``url`` without its password, to name it in errors and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


@dataclass(frozen=True)
class ReplicaStatus:
    """What a replica said about itself."""

    in_recovery: bool
    system: int
    position: int  # replayed WAL, bytes from 0/0
    lag: float  # seconds; 0 when everything received is replayed


async def read_status(conn: AsyncConnection[Any]) -> ReplicaStatus:
    cursor = await conn.execute(_STATUS)
    row = await cursor.fetchone()
    assert row is not None
    recovering, system, position, lag = row
    return ReplicaStatus(
        in_recovery=bool(recovering),
        system=int(system),
        position=-1 if position is None else int(position),
        lag=math.inf if lag is None else float(lag),
    )


async def system_identifier(conn: AsyncConnection[Any]) -> int:
    """The cluster's identifier (shared by a primary and its physical replicas)."""
    cursor = await conn.execute(_SYSTEM)
    row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


async def write_position(conn: AsyncConnection[Any]) -> int:
    """The primary's WAL insert position: past every record written so far."""
    cursor = await conn.execute(_WRITE_POSITION)
    row = await cursor.fetchone()
    assert row is not None
    return int(row[0])


def refusal(url: str, status: ReplicaStatus, system: int) -> str | None:
    """Why ``status`` is no replica of the cluster ``system`` (None: it is one)."""
    if not status.in_recovery:
        return (
            f"store_read_urls: {redacted(url)} is a primary (pg_is_in_recovery() is false), "
            "not a streaming replica"
        )
    if status.system != system:
        return (
            f"store_read_urls: {redacted(url)} is a replica of another cluster (system "
            f"identifier {status.system}, the primary's is {system})"
        )
    return None


class Replica:
    """One replica: its pool, its last status, and whether it is skipped for now."""

    def __init__(self, url: str, pool: AsyncConnectionPool[AsyncConnection[Any]]) -> None:
        self.url = url
        self.pool = pool
        self.status: ReplicaStatus | None = None
        self.checked = -1e300  # monotonic time of the status
        self.skipped_until = 0.0


class ReadRouter:
    """Routes searches to replicas that can answer them, else to the primary."""

    def __init__(
        self,
        primary: AsyncConnectionPool[AsyncConnection[Any]],
        replicas: Sequence[Replica],
        *,
        system: int,
        max_lag_seconds: float,
        retry_seconds: float,
        wait_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._primary = primary
        self._replicas = list(replicas)
        self._system = system
        self._max_lag = max_lag_seconds
        self._retry = retry_seconds
        self._wait = wait_seconds
        self._clock = clock
        self._written: OrderedDict[str, int] = OrderedDict()
        self._floor = 0  # the highest position forgotten from _written
        self._turn = itertools.count()
        self.replica_reads = 0
        self.primary_reads = 0

    @property
    def replicas(self) -> list[Replica]:
        return self._replicas

    @property
    def active(self) -> bool:
        """Whether there is any replica to route to (else every call is the primary's)."""
        return bool(self._replicas)

    # -- writes --------------------------------------------------------------------------------

    def wrote(self, tenant: str, position: int) -> None:
        """Remember that ``tenant`` has been written up to ``position`` of the primary's WAL."""
        known = self._written.pop(tenant, 0)
        self._written[tenant] = max(known, position)  # no await: no other writer interleaves
        while len(self._written) > MAX_TENANTS:
            _, forgotten = self._written.popitem(last=False)
            self._floor = max(self._floor, forgotten)

    def needed(self, tenant: str) -> int:
        """The WAL position a replica must have replayed to answer ``tenant``."""
        return max(self._floor, self._written.get(tenant, 0))

    # -- reads ---------------------------------------------------------------------------------

    async def search(self, tenant: str, body: Callable[[AsyncConnection[Any]], Awaitable[T]]) -> T:
        """``body`` on a replica that can answer for ``tenant``, else on the primary."""
        if self._replicas:
            needed = self.needed(tenant)
            start = next(self._turn)
            count = len(self._replicas)
            for i in range(count):
                replica = self._replicas[(start + i) % count]
                if replica.skipped_until > self._clock():
                    continue
                answered, result = await self._on_replica(replica, needed, body)
                if answered:
                    self.replica_reads += 1
                    return result  # type: ignore[return-value]
        self.primary_reads += 1
        async with self._primary.connection() as conn:
            return await body(conn)

    def _fresh(self, replica: Replica, needed: int) -> bool | None:
        """Whether the last status lets ``replica`` answer (None: read it again)."""
        status = replica.status
        if status is None or self._clock() - replica.checked > STATUS_SECONDS:
            return None
        if status.position >= needed and status.lag <= self._max_lag:
            return True
        return None if status.position < needed and status.lag <= self._max_lag else False

    async def _on_replica(
        self,
        replica: Replica,
        needed: int,
        body: Callable[[AsyncConnection[Any]], Awaitable[T]],
    ) -> tuple[bool, T | None]:
        if self._fresh(replica, needed) is False:
            return False, None
        try:
            async with replica.pool.connection(timeout=self._wait) as conn:
                if self._fresh(replica, needed) is None:
                    status = await read_status(conn)
                    replica.status, replica.checked = status, self._clock()
                    why = refusal(replica.url, status, self._system)
                    if why is not None:
                        self._skip(replica, why)
                        return False, None
                    if status.lag > self._max_lag or status.position < needed:
                        return False, None
                return True, await body(conn)
        except PoolTimeout as exc:
            self._skip(replica, f"no connection within {self._wait:g} s ({exc})")
        except psycopg.Error as exc:
            if is_connection_failure(exc):
                self._skip(replica, str(exc).strip())
            elif exc.sqlstate not in _RETRY_ON_PRIMARY:
                raise
        return False, None

    def _skip(self, replica: Replica, why: str) -> None:
        replica.skipped_until = self._clock() + self._retry
        replica.status = None
        log.warning(
            "PostgreSQL read replica %s skipped for %g s, searches go to the primary: %s",
            redacted(replica.url),
            self._retry,
            why,
        )

    async def aclose(self) -> None:
        for replica in self._replicas:
            await replica.pool.close()


async def check_replica(url: str, *, system: int, connect_timeout: int) -> None:
    """Refuse ``url`` unless it is a hot standby of the cluster ``system``.

    A replica that cannot be reached now is let through (with a warning): it is checked
    again before each use, and skipped while it is not one.
    """
    try:
        # bounded as a whole: connect_timeout does not cover resolving the host name
        conn = await asyncio.wait_for(
            AsyncConnection.connect(url, autocommit=True, connect_timeout=connect_timeout),
            connect_timeout + 1,
        )
    except psycopg.ProgrammingError as exc:
        raise ConfigurationError(f"store_read_urls: invalid PostgreSQL URL: {exc}") from exc
    except (psycopg.OperationalError, TimeoutError) as exc:
        log.warning(
            "PostgreSQL read replica %s cannot be reached yet: %s",
            redacted(url),
            str(exc) or "timed out",
        )
        return
    async with conn:
        try:
            status = await read_status(conn)
        except psycopg.Error as exc:
            raise StoreUnavailable(
                f"store_read_urls: {redacted(url)}: cannot read its replication status: {exc}"
            ) from exc
    why = refusal(url, status, system)
    if why is not None:
        raise ConfigurationError(why)
