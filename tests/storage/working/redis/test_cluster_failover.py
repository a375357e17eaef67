"""Failover on a real Redis Cluster under a workload: no acknowledged write lost, no exception.

Each test gets a cluster of its own (3 masters, 3 replicas) and drives acknowledged writes
from several tasks through the store ``open_working_store`` builds for a
``redis+cluster://`` URL (Redis behind the outage fallback), while a replica takes over
its master by ``CLUSTER FAILOVER``, or a master is killed (SIGKILL) and its replica is
promoted. Afterwards every acknowledged write is read back from the cluster directly.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest

from sedimem.config import WorkingSettings
from sedimem.scope import Scope
from sedimem.storage.working.factory import open_working_store
from sedimem.storage.working.fallback import FallbackWorkingStore
from sedimem.storage.working.redis import RedisWorkingStore
from sedimem.testing.redis_cluster import RedisCluster, ask
from sedimem.working.memory import WorkingMemory

pytestmark = [pytest.mark.redis, pytest.mark.slow]

SETTINGS = WorkingSettings(probe_interval_seconds=0.05, max_scratchpad_entries=100_000)
WRITERS = 8
SESSIONS = 12  # spread over the three masters' slots


def scope(n: int) -> Scope:
    return Scope(tenant="t", user="u", session=f"s{n}")


async def wait_until(condition: Callable[[], bool], seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.05)


async def run_workload(cluster: RedisCluster, disturb: Callable[[], Awaitable[None]]) -> int:
    """Writers run before, during and after ``disturb``; then every acknowledged write is
    read back from the cluster itself. Returns how many writes were acknowledged."""
    store = await open_working_store(cluster.url, SETTINGS)
    assert isinstance(store, FallbackWorkingStore)
    memories = [WorkingMemory(store, scope(n), settings=SETTINGS) for n in range(SESSIONS)]
    acknowledged: dict[tuple[int, str], int] = {}
    notes: dict[tuple[int, int], list[str]] = {}
    stop = asyncio.Event()
    done = 0

    async def writer(w: int) -> None:
        nonlocal done
        i = 0
        while not stop.is_set():
            n = (w + i) % SESSIONS
            wm = memories[n]
            await wm.set(f"w{w}", i)
            acknowledged[(n, f"w{w}")] = i
            await wm.append_scratchpad(f"{w}:{i}")
            notes.setdefault((n, w), []).append(f"{w}:{i}")
            done += 2
            i += 1
            await asyncio.sleep(0.001)  # a fallback write never yields; let the others run

    writers = [asyncio.create_task(writer(w)) for w in range(WRITERS)]
    try:
        try:
            await wait_until(lambda: done >= 400)
            await disturb()
            mark = done
            await wait_until(lambda: done >= mark + 400)
            await wait_until(lambda: not store.using_fallback)
            mark = done
            await wait_until(lambda: done >= mark + 200)  # and on the cluster again
        finally:
            stop.set()
            await asyncio.gather(*writers)  # any exception a caller saw would surface here
        assert store.pending_writes == 0
    finally:
        await store.aclose()

    direct = RedisWorkingStore.from_url(cluster.url)
    try:
        for n in range(SESSIONS):
            check = WorkingMemory(direct, scope(n), settings=SETTINGS)
            stored = await check.get_all()
            assert stored == {k: v for (m, k), v in acknowledged.items() if m == n}
            entries = await check.get_scratchpad()
            assert len(entries) == len(set(entries))
            for (m, w), written in notes.items():
                if m == n:
                    assert [e for e in entries if e.startswith(f"{w}:")] == written
    finally:
        await direct.aclose()
    return done


async def test_a_manual_failover_mid_workload_loses_nothing(
    dedicated_redis_cluster: RedisCluster,
) -> None:
    cluster = dedicated_redis_cluster
    replica = cluster.replicas()[0]

    async def failover() -> None:
        assert "OK" in ask(replica.port, "CLUSTER", "FAILOVER")
        await wait_until(lambda: cluster.role(replica) == "master")

    assert await run_workload(cluster, failover) >= 1000
    assert cluster.role(replica) == "master"


async def test_a_killed_master_mid_workload_loses_nothing(
    dedicated_redis_cluster: RedisCluster,
) -> None:
    cluster = dedicated_redis_cluster
    victim = cluster.masters()[-1]

    async def kill() -> None:
        victim.kill()
        # its replica is promoted once the others agree the master failed (~2-3 s)
        await wait_until(lambda: len(cluster.masters()) == 3)
        await asyncio.to_thread(cluster.wait_healthy)

    assert await run_workload(cluster, kill) >= 1000
    assert not victim.running
