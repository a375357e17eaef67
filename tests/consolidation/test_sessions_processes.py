"""The ``sessions`` job in real processes: two at once, and one killed mid-run."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest

from sedimem.access import Access
from sedimem.consolidation import JobReport
from sedimem.embed import HashEmbedder
from sedimem.longterm import records
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter
from sedimem.testing import ManualClock

PROC = Path(__file__).with_name("sessions_proc.py")
EMBEDDER = HashEmbedder(64)

pytestmark = pytest.mark.slow


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("redis+postgres", marks=[pytest.mark.redis, pytest.mark.postgres]),
    ]
)
def urls(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str, float]:
    """(working URL, long-term store URL, idle seconds); sync: servers start outside the loop."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'sedimem.db'}"
        return url, url, 3600.0
    redis = request.getfixturevalue("redis_server")
    return redis.url, str(request.getfixturevalue("postgres_url")), 0.5


async def seed(working_url: str, store_url: str, tenant: str, n: int) -> list[Scope]:
    """``n`` sessions that did some work, written two hours ago by the caller's clock (the
    SQLite store measures idleness with it; Redis with its own, so the test waits there)."""
    clock = ManualClock(time.time() - 7200)
    scopes = [Scope(tenant=tenant, agent="bot", session=f"s{i:03d}") for i in range(n)]
    async with await Memory.open(
        working=working_url, store=store_url, embedder=EMBEDDER, clock=clock
    ) as memory:
        for i, scope in enumerate(scopes):
            await memory.lifecycle.spawn(scope, {"i": i}, total_steps=3)
            await memory.working(scope).append_scratchpad(f"step of session {i}")
    return scopes


def spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROC), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


async def check(
    working_url: str, store_url: str, tenant: str, scopes: list[Scope]
) -> list[JobReport]:
    """Exactly one episode per session, every session gone; returns the run log."""
    async with await Memory.open(working=working_url, store=store_url, embedder=EMBEDDER) as m:
        rows = await m.longterm_store.find(tenant, RecordFilter(kind=records.EPISODE), limit=10_000)
        per_session = Counter(row.session for row in rows)
        assert per_session == Counter(s.session for s in scopes)
        for scope in scopes:
            assert await m.working(scope).get_task_state() is None
            assert await m.working(scope).get_scratchpad() == []
        return await m.consolidator.runs(tenant, limit=1000, job="sessions")


async def test_two_processes_record_each_session_once(urls: tuple[str, str, float]) -> None:
    working_url, store_url, idle = urls
    tenant = f"procs-{uuid.uuid4().hex[:8]}"
    scopes = await seed(working_url, store_url, tenant, 100)
    if idle < 60:  # Redis: let its own clock see them idle
        await asyncio.sleep(idle + 0.3)
    start_at = str(time.time() + 5.0)  # both past their imports by then: they overlap
    args = (working_url, store_url, tenant, str(idle), start_at, "loop")
    procs = [spawn(*args) for _ in range(2)]
    outputs = [await asyncio.to_thread(p.communicate, timeout=150) for p in procs]
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert "ok=" in out
    assert any("skipped=" in out for out, _ in outputs)  # they really contended
    runs = await check(working_url, store_url, tenant, scopes)
    assert sum(r.counts_out.get("recorded", 0) for r in runs) == len(scopes)
    assert sum(r.counts_out.get("dropped", 0) for r in runs) == len(scopes)


async def test_a_process_killed_between_record_and_cleanup_is_finished(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sedimem.db'}"
    tenant = "crash"
    scopes = await seed(url, url, tenant, 20)
    proc = spawn(url, url, tenant, "3600", "0", "crash", "8")
    _, err = await asyncio.to_thread(proc.communicate, timeout=120)
    assert proc.returncode == -9, err
    async with await Memory.open(url, embedder=EMBEDDER) as memory:
        recorded = await memory.longterm_store.count(tenant, RecordFilter(kind=records.EPISODE))
        assert recorded == 8  # seven recorded and removed, the eighth recorded only
        await asyncio.sleep(2.1)  # the dead worker's lease expires
        report = await memory.consolidate(Access.local(tenant), jobs=("sessions",))
        job = report.job("sessions")
        assert job.status == "ok", job.error
        assert job.counts_out == {"already_recorded": 1, "recorded": 12, "dropped": 13}
    await check(url, url, tenant, scopes)
