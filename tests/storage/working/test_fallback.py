"""Fault tests: a real redis-server killed, stopped and restarted under the fallback store.

Every test gets a redis-server of its own (``dedicated_redis``), so killing it disturbs no
other test. What must hold: the caller never sees an exception, every acknowledged write is
readable through Redis after the switch back, and the fallback flag goes on and then off.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sedimem.access import Access
from sedimem.config import Settings, WorkingSettings
from sedimem.embed import HashEmbedder
from sedimem.errors import LimitExceeded, NotFound, OutageJournalFull, StoreUnavailable
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.storage.working.base import SessionRef
from sedimem.storage.working.factory import open_working_store
from sedimem.storage.working.fallback import FallbackWorkingStore
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry
from sedimem.storage.working.redis import RedisWorkingStore
from sedimem.testing.clock import ManualClock
from sedimem.testing.redis_server import RedisServer, find_redis_server
from sedimem.types.longterm import Episode
from sedimem.types.working import TaskState
from sedimem.working.memory import WorkingMemory
from tests.fixtures.redis import WholeCluster
from tests.fixtures.services import unavailable

pytestmark = pytest.mark.redis

FAST = WorkingSettings(probe_interval_seconds=0.05, max_scratchpad_entries=100_000)
# Tests that drive recovery themselves (store.recover()) keep the probe out of the way.
MANUAL = WorkingSettings(probe_interval_seconds=3600, max_scratchpad_entries=100_000)
LOGGER = "sedimem.working.fallback"


async def wait_until(condition: Callable[[], bool]) -> None:
    for _ in range(1500):  # 15 s
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out waiting")


async def open_store(
    url: str, registry: SessionRegistry | None = None, settings: WorkingSettings = FAST
) -> FallbackWorkingStore:
    fallback = InProcessWorkingStore(registry or SessionRegistry())
    return await FallbackWorkingStore.start(
        RedisWorkingStore.from_url(url), fallback, settings=settings
    )


@pytest.fixture
def dedicated_redis(
    dedicated_redis_or_cluster: RedisServer | WholeCluster,
) -> RedisServer | WholeCluster:
    """Every fault test here runs on a standalone Redis and on a Redis Cluster."""
    return dedicated_redis_or_cluster


@pytest.fixture
async def direct(dedicated_redis: RedisServer) -> AsyncIterator[RedisWorkingStore]:
    """A plain Redis store on the same server: what Redis itself holds."""
    store = RedisWorkingStore.from_url(dedicated_redis.url)
    yield store
    await store.aclose()


def scope(session: str = "s", **fields: str) -> Scope:
    return Scope(**{"tenant": "t", "user": "u", "session": session, **fields})


async def test_sigkill_mid_workload_loses_no_acknowledged_write(
    dedicated_redis: RedisServer, direct: RedisWorkingStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    store = await open_store(dedicated_redis.url)
    wm = WorkingMemory(store, scope("workload"), settings=FAST)
    acked: dict[str, int] = {}
    notes: dict[int, list[str]] = {w: [] for w in range(4)}
    flags: list[bool] = []
    done = 0
    stop = asyncio.Event()

    async def writer(w: int) -> None:
        nonlocal done
        i = 0
        while not stop.is_set():
            key = f"w{w}:k{i % 25}"
            await wm.set(key, i)
            acked[key] = i
            await wm.append_scratchpad(f"{w}:{i}")
            notes[w].append(f"{w}:{i}")
            if w == 0:
                await wm.set_task_state(TaskState(task_id="job", current_step=i))
            flags.append(wm.is_using_fallback())
            done += 1
            i += 1
            await asyncio.sleep(0)  # a fallback write never yields; let the others run

    tasks = [asyncio.create_task(writer(w)) for w in range(4)]
    await wait_until(lambda: done >= 300)
    dedicated_redis.kill()
    await wait_until(wm.is_using_fallback)
    mark = done
    await wait_until(lambda: done >= mark + 300)
    dedicated_redis.start()
    await wait_until(lambda: not wm.is_using_fallback())
    mark = done
    await wait_until(lambda: done >= mark + 300)
    stop.set()
    await asyncio.gather(*tasks)  # any exception a caller saw would surface here

    assert True in flags
    assert flags[-1] is False
    assert store.pending_writes == 0
    check = WorkingMemory(direct, scope("workload"), settings=FAST)
    assert await check.get_all() == acked
    entries = await check.get_scratchpad()
    assert len(entries) == len(set(entries)) == sum(len(n) for n in notes.values())
    for w, written in notes.items():
        assert [e for e in entries if e.startswith(f"{w}:")] == written
    state = await check.get_task_state()
    assert state is not None
    assert state.current_step == len(notes[0]) - 1
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "fallback" in warnings[0].getMessage()
    assert any("is back" in r.getMessage() for r in caplog.records)
    await store.aclose()


async def test_down_at_creation_then_written_back(
    dedicated_redis: RedisServer, direct: RedisWorkingStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    dedicated_redis.stop()
    registry = SessionRegistry()
    store = await open_store(dedicated_redis.url, registry, settings=MANUAL)
    assert store.using_fallback
    wm = WorkingMemory(store, scope(), settings=MANUAL)
    await wm.set("a", {"x": 1})
    await wm.set("ttl", 1, ttl_seconds=3600)
    await wm.set_task_state(TaskState(task_id="t", total_steps=3))
    state = await wm.update_task_progress(current_step=2)
    assert state.current_step == 2
    await wm.append_scratchpad("one")
    await wm.append_scratchpad("two")
    cp = await wm.create_checkpoint("during the outage")
    await wm.set("a", {"x": 2})
    await wm.restore_checkpoint(cp)
    stats = await wm.get_stats()
    assert (stats.backend, stats.using_fallback, stats.keys) == ("redis", True, 2)
    assert await wm.is_healthy()
    assert await store.recover() is False  # still down: stays on the fallback
    assert store.using_fallback

    dedicated_redis.start()
    assert await store.recover() is True
    assert not wm.is_using_fallback()
    assert store.pending_writes == 0
    check = WorkingMemory(direct, scope(), settings=MANUAL)
    assert await check.get_all() == {"a": {"x": 1}, "ttl": 1}
    ref = SessionRef(scope().digest, "t", "u", MANUAL.session_ttl_seconds)
    stored = await direct.items(ref, 0.0)
    assert stored["ttl"].expires_at is not None
    assert stored["a"].expires_at is None
    restored = await check.get_task_state()
    assert restored is not None
    assert (restored.task_id, restored.current_step) == ("t", 2)
    assert await check.get_scratchpad() == ["one", "two"]
    assert [c.id for c in await check.list_checkpoints()] == [cp]
    assert len([r for r in caplog.records if r.levelno == logging.WARNING]) == 1
    # the fallback no longer holds the session: reads now come from Redis alone
    assert await InProcessWorkingStore(registry).get(ref, "a", 0.0) is None
    await store.aclose()


async def test_newest_write_wins_per_key(
    dedicated_redis: RedisServer, direct: RedisWorkingStore
) -> None:
    store = await open_store(dedicated_redis.url, settings=MANUAL)
    wm = WorkingMemory(store, scope(), settings=MANUAL)
    await wm.set("k", "before")
    await wm.set("gone", 1)
    await wm.set("kept", "untouched")
    dedicated_redis.kill()
    await wm.set("k", "first")  # finds Redis gone: served by the fallback
    assert wm.is_using_fallback()
    await wm.set("k", "second")
    assert await wm.delete("gone") is False  # the fallback never saw it ...
    await wm.set("new", "x")
    await wm.set("new", "y")
    assert await wm.get("k") == "second"
    assert store.pending_writes == 5
    dedicated_redis.start()
    assert await store.recover()
    check = WorkingMemory(direct, scope(), settings=MANUAL)
    # ... but the deletion still reaches Redis, in its place in the history
    assert await check.get_all() == {"k": "second", "kept": "untouched", "new": "y"}
    assert await wm.get_all() == {"k": "second", "kept": "untouched", "new": "y"}
    await store.aclose()


async def test_scratchpad_is_merged_by_time_without_duplicates(
    dedicated_redis: RedisServer, direct: RedisWorkingStore
) -> None:
    clock = ManualClock()
    store = await open_store(dedicated_redis.url, settings=MANUAL)
    ours = WorkingMemory(store, scope(), settings=MANUAL, clock=clock)
    await ours.append_scratchpad("a")
    clock.advance(1)
    await ours.append_scratchpad("b")
    dedicated_redis.kill()
    clock.advance(1)
    await ours.append_scratchpad("c")  # outage: fallback + journal
    clock.advance(2)
    await ours.append_scratchpad("e")
    assert await ours.get_scratchpad() == ["c", "e"]  # the outage's view
    dedicated_redis.start()
    # Another process wrote to Redis in between, stamped between our two outage entries.
    theirs = WorkingMemory(direct, scope(), settings=MANUAL, clock=ManualClock(clock.now() - 1))
    await theirs.append_scratchpad("d")
    assert await store.recover()
    assert await theirs.get_scratchpad() == ["a", "b", "c", "d", "e"]
    stamps = [e.created_at for e in await theirs.get_scratchpad_with_timestamps()]
    assert stamps == sorted(stamps)
    await store.aclose()


async def test_one_warning_per_outage(
    dedicated_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER)
    store = await open_store(dedicated_redis.url, settings=MANUAL)
    wm = WorkingMemory(store, scope(), settings=MANUAL)
    for outage in range(2):
        dedicated_redis.kill()
        for i in range(20):
            await wm.set(f"k{i}", outage)
            assert await wm.get(f"k{i}") == outage
        dedicated_redis.start()
        assert await store.recover()
    messages = [r.getMessage() for r in caplog.records if r.name == LOGGER]
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert sum("is back: 20 writes" in m for m in messages) == 2
    await store.aclose()


async def test_two_handles_in_one_process_agree_during_the_outage(
    dedicated_redis: RedisServer, direct: RedisWorkingStore
) -> None:
    # Opened twice through the factory, as two independent parts of an application would.
    settings = WorkingSettings(probe_interval_seconds=0.05, max_sessions_in_process=777)
    one_store = await open_working_store(dedicated_redis.url, settings)
    two_store = await open_working_store(dedicated_redis.url, settings)
    assert isinstance(one_store, FallbackWorkingStore)
    assert one_store is not two_store
    one = WorkingMemory(one_store, scope("shared"), settings=settings)
    two = WorkingMemory(two_store, scope("shared"), settings=settings)
    dedicated_redis.kill()
    await one.set("from_one", 1)
    assert one.is_using_fallback()
    assert two.is_using_fallback()  # one outage, seen by both
    assert await two.get("from_one") == 1
    await two.set("from_two", 2)
    await two.append_scratchpad("by two")
    assert await one.get_all() == {"from_one": 1, "from_two": 2}
    assert await one.get_scratchpad() == ["by two"]
    dedicated_redis.start()
    await wait_until(lambda: not one.is_using_fallback())
    assert not two.is_using_fallback()
    check = WorkingMemory(direct, scope("shared"), settings=settings)
    assert await check.get_all() == {"from_one": 1, "from_two": 2}
    assert await check.get_scratchpad() == ["by two"]
    await one_store.aclose()
    await two_store.aclose()


def _journal_text(directory: Path) -> str:
    return "".join(p.read_text() for p in directory.iterdir())


@pytest.mark.parametrize("on_disk", [False, True], ids=["in-memory", "on-disk"])
async def test_dropping_a_user_during_the_outage_keeps_its_place_in_history(
    dedicated_redis: RedisServer, direct: RedisWorkingStore, tmp_path: Path, on_disk: bool
) -> None:
    settings = MANUAL.model_copy(update={"journal_dir": tmp_path if on_disk else None})
    store = await open_store(dedicated_redis.url, settings=settings)

    def wm(session: str, user: str) -> WorkingMemory:
        return WorkingMemory(store, scope(session, tenant="gdpr", user=user), settings=settings)

    for session, user in (("old1", "ana"), ("old2", "ana"), ("bob", "bob")):
        await wm(session, user).set("k", 1)
    dedicated_redis.kill()
    await wm("during", "ana").set("k", 1)  # written, then erased by the drop below
    await wm("during", "ana").append_scratchpad("ana's secret")
    await wm("bob", "bob").set("during", 3)
    assert await store.drop_sessions("gdpr", "ana") == 1  # the fallback's count
    # the erased writes left the journal at once: no copy of them in this process
    assert [e.method for e in store._outage.journal] == ["set", "drop_sessions"]
    assert "ana's secret" not in repr(store._outage.journal)
    if on_disk:  # nor in the journal's file, which holds the same two entries
        journal = _journal_text(tmp_path)
        assert "ana's secret" not in journal
        assert len(journal.splitlines()) == 2
    await wm("after", "ana").set("k", 2)  # written after the drop: must survive
    dedicated_redis.start()
    assert await store.recover()
    for session, user, expected in (
        ("old1", "ana", None),
        ("old2", "ana", None),
        ("during", "ana", None),
        ("after", "ana", 2),
        ("bob", "bob", 1),
    ):
        check = WorkingMemory(direct, scope(session, tenant="gdpr", user=user), settings=MANUAL)
        assert await check.get("k") == expected, session
    bob = WorkingMemory(direct, scope("bob", tenant="gdpr", user="bob"), settings=MANUAL)
    assert await bob.get("during") == 3  # another user's write of the outage is kept
    await store.aclose()


async def test_limit_in_the_fallback_refuses_and_journals_nothing(
    dedicated_redis: RedisServer,
) -> None:
    settings = WorkingSettings(probe_interval_seconds=3600, max_keys_per_session=2)
    dedicated_redis.stop()
    store = await open_store(dedicated_redis.url, settings=settings)
    wm = WorkingMemory(store, scope(), settings=settings)
    await wm.set("a", 1)
    await wm.set("b", 1)
    with pytest.raises(LimitExceeded):
        await wm.set("c", 1)
    with pytest.raises(NotFound, match="no task state"):
        await wm.update_task_progress(current_step=1)  # nothing to update: not journaled
    assert store.pending_writes == 2
    await store.aclose()


async def test_past_the_journal_bound_writes_fail_clearly_and_change_nothing(
    dedicated_redis: RedisServer, direct: RedisWorkingStore
) -> None:
    settings = WorkingSettings(probe_interval_seconds=3600, max_journal_entries=3)
    dedicated_redis.stop()
    store = await open_store(dedicated_redis.url, settings=settings)
    wm = WorkingMemory(store, scope(), settings=settings)
    for i in range(3):
        await wm.set(f"k{i}", i)
    with pytest.raises(OutageJournalFull, match=r"holds 3 writes.*max_journal_entries") as caught:
        await wm.set("k3", 3)
    assert caught.value.bound == 3
    assert isinstance(caught.value, StoreUnavailable)  # REST: 503 with Retry-After
    with pytest.raises(OutageJournalFull):
        await wm.append_scratchpad("refused too")
    assert await wm.get("k3") is None  # refused before anything was written
    assert await wm.get_scratchpad() == []
    assert store.pending_writes == 3
    dedicated_redis.start()
    assert await store.recover()
    await wm.set("k3", 3)  # Redis again: no journal, no bound
    assert await WorkingMemory(direct, scope(), settings=settings).get_all() == {
        f"k{i}": i for i in range(4)
    }
    await store.aclose()


async def test_replay_writes_past_the_key_limit(
    dedicated_redis: RedisServer, direct: RedisWorkingStore
) -> None:
    # Acknowledged during the outage, so written back even though Redis is already full.
    settings = WorkingSettings(probe_interval_seconds=3600, max_keys_per_session=2)
    store = await open_store(dedicated_redis.url, settings=settings)
    wm = WorkingMemory(store, scope(), settings=settings)
    await wm.set("a", 1)
    await wm.set("b", 1)
    dedicated_redis.kill()
    await wm.set("c", 1)
    dedicated_redis.start()
    assert await store.recover()
    check = WorkingMemory(direct, scope(), settings=settings)
    assert await check.list_keys() == ["a", "b", "c"]
    await store.aclose()


async def test_closing_while_degraded_hands_the_journal_to_the_next_store(
    dedicated_redis: RedisServer, direct: RedisWorkingStore, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    registry = SessionRegistry()
    first = await open_store(dedicated_redis.url, registry, settings=MANUAL)
    dedicated_redis.kill()
    await WorkingMemory(first, scope(), settings=MANUAL).set("k", "kept")
    await first.aclose()
    assert any("kept in this process only" in r.getMessage() for r in caplog.records)
    dedicated_redis.start()
    second = await open_store(dedicated_redis.url, registry, settings=FAST)
    assert second.using_fallback  # the outage is not over until its journal is written
    await wait_until(lambda: not second.using_fallback)
    assert await WorkingMemory(direct, scope(), settings=MANUAL).get("k") == "kept"
    await second.aclose()


async def test_writes_during_the_write_back_are_not_lost(
    dedicated_redis: RedisServer, direct: RedisWorkingStore
) -> None:
    store = await open_store(dedicated_redis.url, settings=MANUAL)
    wm = WorkingMemory(store, scope(), settings=MANUAL)
    dedicated_redis.kill()
    for i in range(1500):  # more than one replay round
        await wm.set(f"k{i % 300}", i)
    dedicated_redis.start()
    recovery = asyncio.create_task(store.recover())
    late = 0
    while not recovery.done():
        if late < 2000:  # a slow write-back (a cluster's) must not hit the key limit
            await wm.set(f"late{late}", late)
            late += 1
        await asyncio.sleep(0 if late < 2000 else 0.01)
    assert recovery.result() is True
    assert late > 0
    check = WorkingMemory(direct, scope(), settings=MANUAL)
    values = await check.get_all()
    assert {k: v for k, v in values.items() if k.startswith("k")} == {
        f"k{i}": 1200 + i for i in range(300)
    }
    assert {k for k in values if k.startswith("late")} == {f"late{i}" for i in range(late)}
    await store.aclose()


async def test_reads_fail_over_without_an_exception(
    dedicated_redis: RedisServer,
) -> None:
    store = await open_store(dedicated_redis.url, settings=MANUAL)
    wm = WorkingMemory(store, scope(), settings=MANUAL)
    await wm.set("k", 1)
    await wm.create_checkpoint()
    dedicated_redis.kill()
    # Redis held the only copy: during the outage the session reads as empty, but reads work.
    assert await wm.get("k") is None
    assert wm.is_using_fallback()
    assert await wm.list_keys() == []
    assert await wm.list_checkpoints() == []
    assert await wm.get_task_state() is None
    assert (await wm.get_stats()).using_fallback
    await wm.destroy()
    assert store.pending_writes == 1
    await store.aclose()


async def test_ping_notices_the_outage(dedicated_redis: RedisServer) -> None:
    store = await open_store(dedicated_redis.url, settings=MANUAL)
    assert await store.ping()
    assert not store.using_fallback
    dedicated_redis.kill()
    assert await store.ping()  # still serving, from the fallback
    assert store.using_fallback
    await store.aclose()


# -- the launcher the fault tests rely on -------------------------------------------------


async def test_kill_loses_no_acknowledged_write_and_restart_keeps_the_port(
    dedicated_redis: RedisServer, direct: RedisWorkingStore
) -> None:
    url = dedicated_redis.url
    wm = WorkingMemory(direct, scope())
    for i in range(50):
        await wm.set(f"k{i}", i)
    dedicated_redis.kill()
    assert not dedicated_redis.running
    with pytest.raises(StoreUnavailable):
        await wm.get("k0")
    dedicated_redis.start()
    assert dedicated_redis.url == url
    assert await wm.get_all() == {f"k{i}": i for i in range(50)}


def test_launcher_reports_a_missing_or_broken_binary(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SEDIMEM_REDIS_SERVER", str(tmp_path / "nope"))
    assert find_redis_server() is None
    with pytest.raises(StoreUnavailable, match="no redis-server binary"):
        RedisServer().start()
    broken = tmp_path / "broken-redis"
    broken.write_text("#!/bin/sh\necho 'cannot start: bad config' >&2\nexit 3\n")
    broken.chmod(0o755)
    monkeypatch.setenv("SEDIMEM_REDIS_SERVER", str(broken))
    assert find_redis_server() == str(broken)
    server = RedisServer()
    with pytest.raises(StoreUnavailable, match=r"code 3.*bad config"):
        server.start()
    assert not server.running
    server.close()
    with pytest.raises(StoreUnavailable, match="never started"):
        _ = RedisServer().url


def test_launcher_times_out_when_the_server_never_answers(tmp_path: Path) -> None:
    silent = tmp_path / "silent-redis"
    silent.write_text("#!/bin/sh\nexec sleep 30\n")
    silent.chmod(0o755)
    server = RedisServer(str(silent), startup_timeout=0.3)
    with pytest.raises(StoreUnavailable, match="did not answer PING"):
        server.start()
    assert not server.running
    server.close()


def test_launcher_as_a_context_manager_cleans_up() -> None:
    if find_redis_server() is None:
        unavailable("no redis-server binary")
    with RedisServer() as server:
        assert server.running
        assert server.start() is server  # already running: a no-op
        data_dir = Path(server._dir or "")
        assert data_dir.is_dir()
    assert not server.running
    assert not data_dir.exists()


async def test_idle_sessions_wait_for_redis_during_an_outage(
    dedicated_redis: RedisServer, direct: RedisWorkingStore
) -> None:
    store = await open_store(dedicated_redis.url, settings=MANUAL)
    wm = WorkingMemory(store, scope("idle"), settings=MANUAL)
    await wm.set("k", 1)
    await asyncio.sleep(0.3)
    (idle,) = await store.idle_sessions("t", 0.2, 0.0, 10, None)
    ref = SessionRef(idle.digest, "t", "u", MANUAL.session_ttl_seconds, idle.scope)
    dedicated_redis.kill()
    # the fallback holds a part of a session at most: consolidation leaves them all alone
    assert await store.idle_sessions("t", 0.2, 0.0, 10, None) == []
    assert store.using_fallback
    await wm.set("during", 1)
    assert await store.idle_sessions("t", 0.0, 1e12, 10, None) == []
    assert await store.drop_idle_session(ref, idle.touched) is False
    dedicated_redis.start()
    assert await store.recover()
    assert await WorkingMemory(direct, scope("idle"), settings=MANUAL).get_all() == {
        "k": 1,
        "during": 1,
    }
    await store.aclose()


@pytest.mark.parametrize("noticed", [True, False], ids=["noticed", "unnoticed"])
async def test_erasing_by_session_or_date_during_the_outage_is_refused_whole(
    dedicated_redis: RedisServer, direct: RedisWorkingStore, tmp_path: Path, noticed: bool
) -> None:
    # Unnoticed: nothing has used Redis since it died, so the erasure's own listing of
    # sessions meets the outage. It lists none then, which must not read as "no such
    # session" (the long-term part erased, the receipt saying 0 sessions, Redis keeping them).
    settings = Settings(home=tmp_path, working=MANUAL)
    session = scope("s1", tenant="gdpr", user="ana")
    async with await Memory.open(
        working=dedicated_redis.url, settings=settings, embedder=HashEmbedder(32)
    ) as memory:
        await memory.working(session).set("k", "ana's secret")
        await memory.episodes.record(Episode(scope=session, task_type="t", description="trip"))
        dedicated_redis.kill()
        if noticed:  # a call finds it down
            await memory.working(scope("s2", tenant="gdpr", user="ana")).set("k", 1)
        assert memory.working_store.using_fallback is noticed
        for condition in ({"session": "s1"}, {"before": datetime.now(UTC)}):
            with pytest.raises(StoreUnavailable, match="nothing was erased"):
                await memory.forget(Access.local("gdpr"), **condition)  # type: ignore[arg-type]
        assert len((await memory.episodes.list(scope=session)).items) == 1  # kept whole
        dedicated_redis.start()
        assert await memory.working_store.recover()  # type: ignore[attr-defined]
        receipt = await memory.forget(Access.local("gdpr"), session="s1")
        assert (receipt.episodes, receipt.working_sessions) == (1, 1)
    check = WorkingMemory(direct, session, settings=MANUAL)
    assert await check.get("k") is None  # gone from Redis itself
