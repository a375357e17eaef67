"""Primary failover under load, against real PostgreSQL processes.

A primary with a synchronous standby (``synchronous_commit = remote_apply``, as
docs/deployment.md recommends); clients name both hosts in one URL with
``target_session_attrs=read-write``. While several writers record episodes and a reader
searches, the primary is killed and the standby promoted. Every write acknowledged before,
during and after the switch is on the new primary; every call that failed failed with
:class:`~sedimem.errors.StoreUnavailable` (REST: 503 with ``Retry-After``); no search
answered anything but a list of the records written; the clients carry on against the
new primary without being reopened.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from sedimem.config import Settings
from sedimem.errors import StoreUnavailable
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.settings import PostgresSettings
from sedimem.testing.postgres_replica import PostgresReplica, execute
from sedimem.testing.postgres_server import PostgresServer
from sedimem.types.longterm import Episode
from tests.fixtures.postgres import start_postgres_server
from tests.fixtures.services import unavailable

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

DATABASE = "sedimem_failover"
WRITERS = 4
SCOPE = Scope(tenant="acme", user="ana")
#: writes each writer must have acknowledged by the new primary before the test ends
AFTER_SWITCH = 5


@pytest.fixture(scope="module")
def pair() -> Iterator[tuple[PostgresServer, PostgresReplica]]:
    primary = start_postgres_server()
    standby: PostgresReplica | None = None
    try:
        execute(primary.url, f'CREATE DATABASE "{DATABASE}"')
        standby = PostgresReplica(primary, synchronous=True)
        try:
            standby.start()
        except StoreUnavailable as exc:
            unavailable(f"PostgreSQL replica: {exc}")
        yield primary, standby
    finally:
        if standby is not None:
            standby.close()
        primary.close()


async def test_failover_under_load_loses_no_acknowledged_write(
    pair: tuple[PostgresServer, PostgresReplica],
) -> None:
    primary, standby = pair
    url = (
        f"postgresql://postgres@127.0.0.1:{primary.port},127.0.0.1:{standby.port}/{DATABASE}"
        "?target_session_attrs=read-write"
    )
    settings = Settings(
        embedder="hash",
        store_url=url,
        postgres=PostgresSettings(connect_timeout_seconds=2, max_pool_size=WRITERS + 2),
    )
    memory = await Memory.open(working="memory://", settings=settings)
    acknowledged: list[str] = []
    failures: list[BaseException] = []
    switched = asyncio.Event()
    after_switch = [0] * WRITERS
    done = asyncio.Event()
    warmed = asyncio.Event()  # set once 20 writes are acknowledged

    async def writer(n: int) -> None:
        i = 0
        while not done.is_set():
            i += 1
            episode = Episode(scope=SCOPE, description=f"writer {n} wrote entry {i} of the log")
            try:
                await memory.episodes.record(episode)
            except Exception as exc:  # every failure is checked below
                failures.append(exc)
                await asyncio.sleep(0.05)
                continue
            acknowledged.append(episode.id)
            if len(acknowledged) >= 20:
                warmed.set()
            if switched.is_set():
                after_switch[n] += 1

    async def reader() -> None:
        while not done.is_set():
            try:
                hits = await memory.episodes.recall("entry of the log", scope=SCOPE, k=5)
            except Exception as exc:
                failures.append(exc)
                await asyncio.sleep(0.05)
                continue
            # a search answers with records that were written, or fails: nothing else
            assert all(hit.record.description.startswith("writer ") for hit in hits)

    try:
        tasks = [asyncio.create_task(writer(n)) for n in range(WRITERS)]
        tasks.append(asyncio.create_task(reader()))
        await asyncio.wait_for(warmed.wait(), 60)
        before = len(acknowledged)
        await asyncio.to_thread(primary.kill)  # lost, as in a crash
        await asyncio.to_thread(standby.promote)
        switched.set()
        deadline = time.monotonic() + 60
        while min(after_switch) < AFTER_SWITCH:
            assert time.monotonic() < deadline, f"writers stalled after the switch: {after_switch}"
            await asyncio.sleep(0.05)
        done.set()
        await asyncio.gather(*tasks)
        assert len(acknowledged) > before

        assert failures  # calls were under way when the primary went, or came meanwhile
        for failure in failures:
            assert isinstance(failure, StoreUnavailable), repr(failure)
        stored = await memory.episodes._store.get("acme", acknowledged)
        missing = set(acknowledged) - {record.id for record in stored}
        assert not missing, f"{len(missing)} acknowledged writes were lost"
        # the same client goes on against the new primary
        later = await memory.episodes.record(Episode(scope=SCOPE, description="after it all"))
        assert (await memory.episodes.get(later.id, tenant="acme")).id == later.id
    finally:
        done.set()
        await memory.aclose()
