"""Read replicas: recall and ``assemble`` read from a real streaming replica
(``pg_basebackup -R`` of a real primary), a session reads its own writes, and a replica that
lags or is down leaves reads to the primary without an error.

What shows a search went to the replica: the replica's replay is paused, another client (as
another process would) writes, and the search does not see that write; once the replica
replays again, or lags past the bound, or is down, the search sees it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
import pytest

from sedimem.config import Settings
from sedimem.errors import ConfigurationError, StoreUnavailable
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.settings import PostgresSettings
from sedimem.storage.longterm.base import RecordFilter
from sedimem.storage.longterm.postgres import PostgresLongTermStore, replicas
from sedimem.storage.longterm.postgres.replicas import (
    ReadRouter,
    Replica,
    redacted,
    system_identifier,
)
from sedimem.testing import SedimemServer
from sedimem.testing.postgres_replica import PostgresReplica, execute
from sedimem.testing.postgres_server import PostgresServer
from sedimem.testing.process import free_port
from sedimem.types.longterm import Episode
from tests.fixtures.postgres import start_postgres_server
from tests.fixtures.services import unavailable

pytestmark = pytest.mark.postgres

DATABASE = "sedimem_replicas"
ACME = Scope(tenant="acme", user="ana")


class Cluster:
    def __init__(self, primary: PostgresServer, replica: PostgresReplica) -> None:
        self.primary = primary
        self.replica = replica

    @property
    def url(self) -> str:
        return self.primary.url_for(DATABASE)

    @property
    def read_url(self) -> str:
        return self.replica.url_for(DATABASE)

    def caught_up(self) -> None:
        """Wait until the replica has replayed everything the primary has written."""
        written = int(
            execute(self.url, "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint")[0][0]
        )
        deadline = time.monotonic() + 30
        while self.replica.replayed() < written:
            assert time.monotonic() < deadline, "the replica did not catch up"
            time.sleep(0.02)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    primary = start_postgres_server()
    replica: PostgresReplica | None = None
    try:
        execute(primary.url, f'CREATE DATABASE "{DATABASE}"')
        replica = PostgresReplica(primary)
        try:
            replica.start()
        except StoreUnavailable as exc:
            unavailable(f"PostgreSQL replica: {exc}")
        made = Cluster(primary, replica)
        # the schema and the embedder's binding written, and replayed: a replica that has
        # replayed no transaction since it started cannot tell its lag (see .replicas)
        asyncio.run(_opened(made))
        made.caught_up()
        yield made
    finally:
        if replica is not None:
            replica.close()
        primary.close()


async def _opened(cluster: Cluster) -> None:
    async with _client(cluster, replicas=False):
        pass


@asynccontextmanager
async def _client(
    cluster: Cluster, *, replicas: bool = True, max_lag: float = 60.0
) -> AsyncIterator[Memory]:
    settings = Settings(
        embedder="hash",
        store_url=cluster.url,
        store_read_urls=(cluster.read_url,) if replicas else (),
        postgres=PostgresSettings(
            replica_max_lag_seconds=max_lag, replica_retry_seconds=0.5, max_pool_size=4
        ),
    )
    memory = await Memory.open(working="memory://", settings=settings)
    try:
        yield memory
    finally:
        await memory.aclose()


def _router(memory: Memory) -> ReadRouter:
    reads = memory.episodes._store.reads  # type: ignore[attr-defined]  # the store's own
    assert isinstance(reads, ReadRouter)
    return reads


async def _found(memory: Memory, query: str, scope: Scope = ACME) -> set[str]:
    hits = await memory.episodes.recall(query, scope=scope, k=20)
    return {hit.record.description for hit in hits}


def _episode(text: str, scope: Scope = ACME) -> Episode:
    return Episode(scope=scope, description=text)


@pytest.fixture
def paused(cluster: Cluster) -> Iterator[PostgresReplica]:
    cluster.caught_up()
    cluster.replica.pause_replay()
    try:
        yield cluster.replica
    finally:
        if cluster.replica.running:
            cluster.replica.resume_replay()


async def test_recall_and_assemble_read_from_the_replica(cluster: Cluster) -> None:
    async with _client(cluster) as reader, _client(cluster, replicas=False) as writer:
        await writer.episodes.record(_episode("walrus migration to the fjord"))
        cluster.caught_up()
        assert await _found(reader, "walrus fjord") == {"walrus migration to the fjord"}
        cluster.replica.pause_replay()
        try:
            late = await writer.episodes.record(_episode("walrus count in the fjord"))
            # the replica has not replayed the other client's write: the search was its
            assert await _found(reader, "walrus fjord") == {"walrus migration to the fjord"}
            text = (await reader.assemble("walrus fjord", ACME, 2000)).text
            assert "walrus migration to the fjord" in text
            assert "walrus count in the fjord" not in text
            router = _router(reader)
            assert router.replica_reads >= 2
            # a read by id goes to the primary
            assert (await reader.episodes.get(late.id, tenant="acme")).id == late.id
        finally:
            cluster.replica.resume_replay()
        cluster.caught_up()
        assert "walrus count in the fjord" in await _found(reader, "walrus fjord")


async def test_a_session_reads_its_own_writes(cluster: Cluster, paused: PostgresReplica) -> None:
    mine = Scope(tenant="heron-co", user="ana")
    other = Scope(tenant="globex", user="bo")
    async with _client(cluster) as memory:
        router = _router(memory)
        before = router.replica_reads
        assert await _found(memory, "heron", other) == set()  # nothing: from the replica
        assert router.replica_reads == before + 1
        await memory.episodes.record(_episode("heron nesting on the pier", mine))
        # the replica has not replayed it: this tenant's searches go to the primary
        assert await _found(memory, "heron pier", mine) == {"heron nesting on the pier"}
        text = (await memory.assemble("heron pier", mine, 2000)).text
        assert "heron nesting on the pier" in text
        # another tenant's searches, with no write of this process to wait for, still
        # read from the replica
        replica_reads = router.replica_reads
        await _found(memory, "heron", other)
        assert router.replica_reads == replica_reads + 1
        paused.resume_replay()
        cluster.caught_up()
        assert await _found(memory, "heron pier", mine) == {"heron nesting on the pier"}
        assert router.replica_reads == replica_reads + 2  # caught up: the replica again


async def test_a_replica_lagging_past_the_bound_leaves_reads_to_the_primary(
    cluster: Cluster, paused: PostgresReplica
) -> None:
    mine = Scope(tenant="otter-co", user="ana")
    async with (
        _client(cluster, max_lag=1.0) as reader,
        _client(cluster, replicas=False) as writer,
    ):
        await writer.episodes.record(_episode("otter den under the bridge", mine))
        router = _router(reader)
        await asyncio.sleep(1.5)  # the replica is now more than the 1 s bound behind
        primary_reads = router.primary_reads
        for _ in range(2):  # the second without asking the replica again (its lag is known)
            assert "otter den under the bridge" in await _found(reader, "otter bridge", mine)
        assert router.primary_reads == primary_reads + 2


async def test_a_stopped_replica_leaves_reads_to_the_primary(cluster: Cluster) -> None:
    mine = Scope(tenant="badger-co", user="ana")
    async with _client(cluster) as reader, _client(cluster, replicas=False) as writer:
        router = _router(reader)
        cluster.caught_up()
        await _found(reader, "badger", mine)  # its connection to the replica is now pooled
        cluster.replica.stop()
        try:
            await writer.episodes.record(_episode("badger sett by the oak", mine))
            for _ in range(3):  # nothing raises: the replica is skipped, then retried
                assert "badger sett by the oak" in await _found(reader, "badger oak", mine)
                text = (await reader.assemble("badger oak", mine, 2000)).text
                assert "badger sett by the oak" in text
            assert router.replicas[0].skipped_until > 0
            await asyncio.sleep(0.6)  # past replica_retry_seconds: tried again, still down
            assert "badger sett by the oak" in await _found(reader, "badger oak", mine)
            assert router.replicas[0].skipped_until > time.monotonic()
        finally:
            cluster.replica.start()
        cluster.caught_up()
        await asyncio.sleep(0.6)  # past replica_retry_seconds
        replica_reads = router.replica_reads
        deadline = time.monotonic() + 20  # the pool reconnects in the background
        while router.replica_reads == replica_reads:
            assert time.monotonic() < deadline, "the replica was never read from again"
            assert "badger sett by the oak" in await _found(reader, "badger oak", mine)
            await asyncio.sleep(0.2)


async def test_a_primary_given_as_a_replica_is_refused_naming_it(cluster: Cluster) -> None:
    with pytest.raises(ConfigurationError, match="is a primary") as refused:
        await PostgresLongTermStore.open(cluster.url, read_urls=[cluster.url])
    assert cluster.url in str(refused.value)


async def test_a_replica_of_another_cluster_is_refused_naming_it(
    cluster: Cluster, postgres_url: str
) -> None:
    # the store's primary is another server (postgres_url); the replica follows ours
    with pytest.raises(ConfigurationError, match="another cluster") as refused:
        await PostgresLongTermStore.open(postgres_url, read_urls=[cluster.read_url])
    assert cluster.read_url in str(refused.value)


async def test_a_password_in_a_refused_url_is_not_shown(cluster: Cluster) -> None:
    with_password = cluster.url.replace("postgres@", "postgres:hunter2@")
    with pytest.raises(ConfigurationError, match="is a primary") as refused:
        await PostgresLongTermStore.open(cluster.url, read_urls=[with_password])
    assert "hunter2" not in str(refused.value)
    assert "postgres:***@" in str(refused.value)


# -- the router's edges, on the same real servers ------------------------------------------------


async def _router_of(cluster: Cluster, replica_url: str) -> tuple[ReadRouter, list[object]]:
    """A router over the primary and one "replica" URL, with pools of one connection."""
    from psycopg import AsyncConnection
    from psycopg_pool import AsyncConnectionPool

    pools: list[object] = []

    def pool(url: str) -> AsyncConnectionPool[AsyncConnection[Any]]:
        made: AsyncConnectionPool[AsyncConnection[Any]] = AsyncConnectionPool(
            url, min_size=1, max_size=1, kwargs={"autocommit": True}, open=False
        )
        pools.append(made)
        return made

    primary = pool(cluster.url)
    await primary.open(wait=True)
    replica = Replica(replica_url, pool(replica_url))
    await replica.pool.open(wait=True)
    async with primary.connection() as conn:
        system = await system_identifier(conn)
    router = ReadRouter(
        primary,
        [replica],
        system=system,
        max_lag_seconds=60,
        retry_seconds=60,
        wait_seconds=1,
    )
    return router, pools


async def _where(conn: Any) -> bool:
    """Whether ``conn`` is to a server in recovery (a replica)."""
    cursor = await conn.execute("SELECT pg_is_in_recovery()")
    row = await cursor.fetchone()
    return bool(row[0])


async def test_a_search_the_replica_cancels_reruns_on_the_primary(cluster: Cluster) -> None:
    cluster.caught_up()
    router, pools = await _router_of(cluster, cluster.read_url)
    try:
        ran_on: list[bool] = []

        async def body(conn: Any) -> str:
            replica = await _where(conn)
            ran_on.append(replica)
            if replica:  # as a conflict with recovery would
                raise psycopg.errors.SerializationFailure("canceling statement due to conflict")
            return "answered"

        assert await router.search("acme", body) == "answered"
        assert ran_on == [True, False]
        assert router.replicas[0].skipped_until == 0  # not skipped: only this search moved

        async def broken(conn: Any) -> str:
            raise psycopg.errors.DataError("a bad value")  # the primary would refuse it too

        with pytest.raises(psycopg.errors.DataError):
            await router.search("acme", broken)
    finally:
        await router.aclose()
        await pools[0].close()  # type: ignore[attr-defined]


async def test_a_replica_that_became_a_primary_serves_no_search(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    # the primary's own URL stands for a replica promoted since the store opened
    router, pools = await _router_of(cluster, cluster.url)
    try:
        assert await router.search("acme", _where) is False
        assert router.primary_reads == 1
        assert router.replicas[0].skipped_until > 0
        assert "is a primary" in caplog.text
        assert await router.search("acme", _where) is False  # skipped: not asked again
    finally:
        await router.aclose()
        await pools[0].close()  # type: ignore[attr-defined]


async def test_a_replica_unreachable_at_start_is_let_through(
    cluster: Cluster, caplog: pytest.LogCaptureFixture
) -> None:
    down = f"postgresql://postgres@127.0.0.1:{free_port()}/{DATABASE}"
    store = await PostgresLongTermStore.open(
        cluster.url, read_urls=[down], connect_timeout=1, replica_retry=60
    )
    try:
        assert "cannot be reached yet" in caplog.text
        assert await store.keyword_search("acme", RecordFilter(), ["walrus"], 5) is not None
        reads = store.reads
        assert reads is not None
        assert reads.primary_reads == 1
        assert reads.replicas[0].skipped_until > 0
    finally:
        await store.aclose()


async def test_a_malformed_replica_url_is_refused(cluster: Cluster) -> None:
    with pytest.raises(ConfigurationError, match="replica_max_lag > 0"):
        await PostgresLongTermStore.open(
            cluster.url, read_urls=[cluster.read_url], replica_max_lag=0
        )
    with pytest.raises(ConfigurationError, match="store_read_urls"):
        await PostgresLongTermStore.open(
            cluster.url, read_urls=[cluster.read_url + "?bogus_option=1"]
        )


def test_write_positions_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replicas, "MAX_TENANTS", 2)
    router = ReadRouter(
        None,  # type: ignore[arg-type]  # no read here
        [],
        system=0,
        max_lag_seconds=1,
        retry_seconds=1,
        wait_seconds=1,
    )
    router.wrote("a", 10)
    router.wrote("b", 30)
    router.wrote("a", 5)  # a position never goes back
    assert router.needed("a") == 10
    router.wrote("c", 20)  # "b" is forgotten: every tenant now waits for its position
    assert router.needed("d") == 30
    assert router.needed("c") == 30
    assert not router.active


def test_a_password_is_masked() -> None:
    assert redacted("postgresql://u:secret@h:5432/d") == "postgresql://u:***@h:5432/d"
    assert redacted("postgresql://u@h/d") == "postgresql://u@h/d"


async def test_a_write_that_reaches_a_standby_is_retryable(cluster: Cluster) -> None:
    """As during a failover before the promotion: the server is read-only, not broken."""
    cluster.caught_up()
    with pytest.raises(StoreUnavailable, match="read-only"):
        await PostgresLongTermStore.open(cluster.read_url)


# -- through `sedimem serve`, configured by the environment ---------------------------------------


def _serve_env(cluster: Cluster, read_urls: str) -> dict[str, str]:
    return {
        "SEDIMEM_EMBEDDER": "hash",
        "SEDIMEM_STORE_URL": cluster.url,
        "SEDIMEM_STORE_READ_URLS": read_urls,
    }


@pytest.mark.slow
def test_serve_refuses_a_primary_as_a_replica_naming_it(cluster: Cluster) -> None:
    """The variable is read, split on spaces, and each URL checked before serving."""
    server = SedimemServer(env=_serve_env(cluster, f"{cluster.read_url} {cluster.url}"))
    with pytest.raises(StoreUnavailable, match="exited") as refused:
        server.__enter__()
    assert f"{cluster.url} is a primary" in str(refused.value)


async def test_a_replica_cut_off_from_its_primary_falls_behind(cluster: Cluster) -> None:
    """Not streaming, a replica cannot tell what it misses: its lag grows with the time
    since the last transaction it replayed."""
    async with _client(cluster, replicas=False) as writer:
        await writer.episodes.record(_episode("lemming burrow under the moss"))
    cluster.caught_up()
    conn = await psycopg.AsyncConnection.connect(cluster.read_url, autocommit=True)
    try:
        assert (await replicas.read_status(conn)).lag == 0  # streaming, all replayed
        cluster.primary.stop()
        try:
            await asyncio.sleep(1.2)
            status = await replicas.read_status(conn)
            assert status.in_recovery
            assert status.lag > 1.0
        finally:
            cluster.primary.start()
    finally:
        await conn.close()
    deadline = time.monotonic() + 30  # streaming again, once its primary is back
    while True:
        async with await psycopg.AsyncConnection.connect(cluster.read_url) as again:
            if (await replicas.read_status(again)).lag == 0:
                break
        assert time.monotonic() < deadline, "the replica did not stream again"
        await asyncio.sleep(0.1)
