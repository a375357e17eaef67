"""What the SQLite store adds beyond the conformance suite: durability and sweeping."""

import sqlite3
from pathlib import Path

import pytest

from sedimem.config import WorkingSettings
from sedimem.errors import ConfigurationError, StoreError
from sedimem.scope import Scope
from sedimem.storage.sqlite.migrations import apply_migrations
from sedimem.storage.working.base import SessionRef
from sedimem.storage.working.factory import open_working_store, sqlite_path
from sedimem.storage.working.sqlite import MIGRATIONS, SqliteWorkingStore
from sedimem.testing import ManualClock
from sedimem.types.working import TaskState
from sedimem.working.memory import WorkingMemory


async def test_state_survives_reopening_the_file(tmp_path: Path) -> None:
    path = str(tmp_path / "durable.db")
    scope = Scope(session="s")
    store = await SqliteWorkingStore.open(path)
    wm = WorkingMemory(store, scope)
    await wm.set("k", {"v": 1})
    await wm.set_task_state(TaskState(task_id="t", current_step=2))
    await wm.append_scratchpad("note")
    cp = await wm.create_checkpoint()
    await store.aclose()

    reopened = WorkingMemory(await SqliteWorkingStore.open(path), scope, owns_store=True)
    assert await reopened.get("k") == {"v": 1}
    state = await reopened.get_task_state()
    assert state is not None
    assert state.current_step == 2
    assert await reopened.get_scratchpad() == ["note"]
    assert [c.id for c in await reopened.list_checkpoints()] == [cp]
    await reopened.close()


async def test_sweep_deletes_expired_rows(tmp_path: Path) -> None:
    path = str(tmp_path / "sweep.db")
    clock = ManualClock()
    settings = WorkingSettings(
        session_ttl_seconds=100, checkpoint_ttl_seconds=50, sweep_interval_seconds=10
    )
    store = await SqliteWorkingStore.open(path, settings=settings)
    old = WorkingMemory(store, Scope(session="old"), settings=settings, clock=clock)
    await old.set("k", 1)
    await old.set("short", 1, ttl_seconds=5)
    await old.append_scratchpad("x")
    await old.create_checkpoint()
    clock.advance(200)
    await WorkingMemory(store, Scope(session="new"), settings=settings, clock=clock).set("k", 1)
    await store.aclose()

    conn = sqlite3.connect(path)
    rows = {
        table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
        for table in ("wm_kv", "wm_scratch", "wm_checkpoint", "wm_session")
    }
    conn.close()
    assert rows == {"wm_kv": 1, "wm_scratch": 0, "wm_checkpoint": 0, "wm_session": 1}


async def test_migrations_are_idempotent_and_refuse_a_newer_schema(tmp_path: Path) -> None:
    path = str(tmp_path / "m.db")
    await (await SqliteWorkingStore.open(path)).aclose()
    await (await SqliteWorkingStore.open(path)).aclose()
    conn = sqlite3.connect(path)
    version = conn.execute(
        "SELECT version FROM sedimem_schema WHERE component = 'working'"
    ).fetchone()
    assert version == (len(MIGRATIONS),)
    conn.execute("UPDATE sedimem_schema SET version = 99 WHERE component = 'working'")
    conn.commit()
    conn.close()
    with pytest.raises(ConfigurationError, match="newer"):
        await SqliteWorkingStore.open(path)


async def test_driver_errors_are_translated(tmp_path: Path) -> None:
    store = await SqliteWorkingStore.open(str(tmp_path / "e.db"))
    with pytest.raises(StoreError, match="SQLite operation failed") as info:
        await store._db.run(lambda conn: conn.execute("SELECT * FROM no_such_table"))
    assert isinstance(info.value.__cause__, sqlite3.Error)
    with pytest.raises(StoreError, match="SQLite read failed") as info:
        await store._db.read(lambda conn: conn.execute("SELECT * FROM no_such_table"))
    assert isinstance(info.value.__cause__, sqlite3.Error)
    with pytest.raises(StoreError, match=r"readonly|read-only"):  # readers cannot write
        await store._db.read(lambda conn: conn.execute("CREATE TABLE t (x)"))
    await store.aclose()
    assert await store.ping() is False
    with pytest.raises(StoreError, match="closed"):
        await store._db.run(lambda conn: None)
    with pytest.raises(StoreError, match="closed"):
        await store.get(SessionRef("d", "t", None, 60.0), "k", 0.0)


async def test_unopenable_file_is_unavailable(tmp_path: Path) -> None:
    from sedimem.errors import StoreUnavailable

    with pytest.raises(StoreUnavailable, match="cannot open"):
        await SqliteWorkingStore.open(str(tmp_path / "missing-dir" / "x" / "db.sqlite"))


async def test_factory_opens_each_scheme(tmp_path: Path) -> None:
    memory = await open_working_store("memory://")
    assert memory.name == "memory"
    sqlite = await open_working_store(f"sqlite:///{tmp_path}/sub/f.db")
    assert sqlite.name == "sqlite"
    assert (tmp_path / "sub" / "f.db").exists()
    await sqlite.aclose()
    private = await open_working_store("sqlite:///:memory:")
    wm = WorkingMemory(private, Scope(session="s"), owns_store=True)
    await wm.set("k", 1)
    assert await wm.get("k") == 1
    await wm.close()
    with pytest.raises(ConfigurationError, match="unsupported"):
        await open_working_store("ftp://x")
    for bad in ("sqlite://relative.db", "sqlite:///"):
        with pytest.raises(ConfigurationError, match="SQLite URL"):
            sqlite_path(bad)


async def test_a_version_1_file_is_migrated_and_its_old_sessions_are_never_idle(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "v1.db")
    conn = sqlite3.connect(path, isolation_level=None)
    apply_migrations(conn, "working", MIGRATIONS[:1])
    conn.execute(
        "INSERT INTO wm_session (sid, tenant, user, expires_at) VALUES ('old', 't', NULL, 1e12)"
    )
    conn.close()
    clock = ManualClock()
    store = await SqliteWorkingStore.open(path)
    # written before the upgrade: no scope known, so consolidation cannot take it
    assert await store.idle_sessions("t", 60, clock.now(), 10, None) == []
    wm = WorkingMemory(store, Scope(tenant="t", session="new"), clock=clock)
    await wm.set("k", 1)
    clock.advance(61)
    (idle,) = await store.idle_sessions("t", 60, clock.now(), 10, None)
    assert (idle.digest, idle.scope, idle.touched) == (
        wm.scope.digest,
        wm.scope.canonical,
        clock.now() - 61,
    )
    await store.aclose()


async def test_idle_sessions_read_the_partial_index(tmp_path: Path) -> None:
    store = await SqliteWorkingStore.open(str(tmp_path / "plan.db"))

    def plan(conn: sqlite3.Connection) -> str:
        rows = conn.execute(
            "EXPLAIN QUERY PLAN SELECT sid, scope, touched FROM wm_session "
            "WHERE tenant = ? AND scope IS NOT NULL AND touched <= ? AND expires_at > ? "
            "AND (touched, sid) > (?, ?) ORDER BY touched, sid LIMIT ?",
            ("t", 1.0, 1.0, 0.0, "", 10),
        ).fetchall()
        return " ".join(str(r[-1]) for r in rows)

    detail = await store._db.run(plan)
    assert "wm_session_idle" in detail
    assert "TEMP B-TREE" not in detail  # the index gives the order: no sort
    await store.aclose()
