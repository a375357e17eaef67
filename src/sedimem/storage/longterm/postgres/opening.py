"""Opening the PostgreSQL long-term store: the schema brought up to date, what the server
offers (pgvector's iterative scans, Citus), the embedder's bound dimension, and the pools of
connections to the primary and to its read replicas."""

from __future__ import annotations

import math
import select
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from pgvector.psycopg.vector import register_vector_info
from psycopg import AsyncConnection
from psycopg.types import TypeInfo
from psycopg_pool import AsyncConnectionPool

from sedimem.errors import ConfigurationError, StoreUnavailable
from sedimem.storage.longterm.postgres import search as postgres_search
from sedimem.storage.longterm.postgres.analyze import table_rows
from sedimem.storage.longterm.postgres.errors import translated
from sedimem.storage.longterm.postgres.migrations import apply_migrations
from sedimem.storage.longterm.postgres.replicas import (
    ReadRouter,
    Replica,
    check_replica,
    system_identifier,
)
from sedimem.storage.longterm.postgres.schema import COMPONENT, MIGRATIONS

__all__ = ["Opened", "bound_dimension", "open_pools"]

#: Set on every pooled connection. Search statements are short: JIT compilation (where the
#: server has it) would add tens of milliseconds to any whose estimated cost crosses
#: ``jit_above_cost``, such as an exact vector scan. Statements are planned for their
#: parameters every time (psycopg prepares a statement run five times, and PostgreSQL then
#: settles on a generic plan): a generic plan cannot know how selective a filter's values
#: are, and chose the HNSW scan for a filtered vector search whatever the filter, so a
#: project holding 0.4 % of the rows was searched by walking the graph (p50 9 ms at 100k
#: records) instead of its B-tree index and an exact sort of its rows (2.5 ms). The one
#: exception, a hybrid search's candidates statement, whose choices do not hang on the
#: plan, sets a generic plan for itself (see :mod:`.fused`).
_SESSION_SETTINGS = "SET jit = off; SET plan_cache_mode = force_custom_plan"

# Loading pgvector's library (any vector input does) defines its settings; the one of
# iterative index scans exists from pgvector 0.8 on (NULL before: no such setting).
_LOAD_VECTOR = "SELECT '[1]'::vector"
_ITERATIVE_SCANS = "SELECT current_setting('hnsw.iterative_scan', true) IS NOT NULL"
# Citus in this database: the records table is (to be) distributed by tenant
_DISTRIBUTED = "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')"


@dataclass(frozen=True)
class Opened:
    """What opening found and made: the primary's pool, the dimension bound to the store
    (None: no embedder yet), the table's estimated rows, whether it is distributed (Citus)
    and searched with iterative scans, and the router of reads to replicas (None: none)."""

    pool: AsyncConnectionPool[AsyncConnection[Any]]
    dimension: int | None
    rows: float
    distributed: bool
    iterative_scans: bool
    reads: ReadRouter | None


async def open_pools(
    url: str,
    *,
    min_size: int,
    max_size: int,
    connect_timeout: float,
    distributed: bool | None,
    iterative_scans: bool,
    read_urls: Sequence[str],
    replica_max_lag: float,
    replica_retry: float,
) -> Opened:
    """Connect, set up the schema (idempotent), check the replicas and open the pools (see
    :meth:`~sedimem.storage.longterm.postgres.store.PostgresLongTermStore.open`)."""
    seconds = max(1, math.ceil(connect_timeout))
    with translated("connect"):
        try:
            setup = await AsyncConnection.connect(url, autocommit=True, connect_timeout=seconds)
        except psycopg.ProgrammingError as exc:  # a malformed URL
            raise ConfigurationError(f"invalid PostgreSQL URL: {exc}") from exc
        async with setup:
            await apply_migrations(setup, COMPONENT, MIGRATIONS)
            info = await TypeInfo.fetch(setup, "vector")
            dimension = await bound_dimension(setup)
            rows = await table_rows(setup)
            if distributed is None:
                cursor = await setup.execute(_DISTRIBUTED)
                found = await cursor.fetchone()
                distributed = bool(found is not None and found[0])
            system = await system_identifier(setup) if read_urls else 0
            if iterative_scans:
                await setup.execute(_LOAD_VECTOR)  # its own statement: loaded first
                cursor = await setup.execute(_ITERATIVE_SCANS)
                found = await cursor.fetchone()
                iterative_scans = bool(found is not None and found[0])
    if info is None:  # pragma: no cover - the first migration creates it
        raise ConfigurationError("the vector type is missing: is pgvector installed?")
    for read_url in read_urls:
        with translated("connect to a read replica"):
            await check_replica(read_url, system=system, connect_timeout=seconds)

    settings = _SESSION_SETTINGS
    if iterative_scans:
        settings += f"; SET hnsw.iterative_scan = {postgres_search.ITERATIVE_SCAN}"

    async def configure(conn: AsyncConnection[Any]) -> None:
        register_vector_info(conn, info)
        await conn.execute(settings)

    def pool_of(target: str, name: str) -> AsyncConnectionPool[AsyncConnection[Any]]:
        return AsyncConnectionPool(
            target,
            min_size=min_size,
            max_size=max_size,
            kwargs={"autocommit": True, "connect_timeout": seconds},
            configure=configure,
            check=_check_connection,
            timeout=connect_timeout,
            open=False,
            name=name,
        )

    pool = pool_of(url, "sedimem-longterm")
    try:
        await pool.open(wait=True, timeout=connect_timeout)
    except BaseException as exc:
        await pool.close()
        if isinstance(exc, Exception):
            raise StoreUnavailable(f"PostgreSQL long-term store: connect: {exc}") from exc
        raise
    reads = None
    if read_urls:
        replicas = [
            Replica(read_url, pool_of(read_url, f"sedimem-longterm-replica-{i}"))
            for i, read_url in enumerate(read_urls)
        ]
        for replica in replicas:  # connects in the background: one may be down now
            await replica.pool.open(wait=False)
        reads = ReadRouter(
            pool,
            replicas,
            system=system,
            max_lag_seconds=replica_max_lag,
            retry_seconds=replica_retry,
            wait_seconds=min(connect_timeout, 1.0),
        )
    return Opened(
        pool,
        dimension=dimension,
        rows=rows,
        distributed=distributed,
        iterative_scans=iterative_scans,
        reads=reads,
    )


async def _check_connection(conn: AsyncConnection[Any]) -> None:
    """The pool's check of a connection it is about to lend: a round trip only when the
    socket has something to read. An idle connection in autocommit has nothing to say unless
    the server closed it or sent an error, so a search does not pay a round trip for it."""
    if _readable(conn.fileno()):
        await AsyncConnectionPool.check_connection(conn)


def _readable(fd: int) -> bool:
    """Whether ``fd`` has data (or end of file) to read right now."""
    if hasattr(select, "poll"):  # select.select refuses descriptors >= FD_SETSIZE (1024)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    readable, _, _ = select.select([fd], [], [], 0)  # pragma: no cover - Windows
    return bool(readable)


async def bound_dimension(conn: AsyncConnection[Any]) -> int | None:
    cursor = await conn.execute("SELECT dimension FROM sedimem_lt_embedder")
    row = await cursor.fetchone()
    return None if row is None else int(row[0])
