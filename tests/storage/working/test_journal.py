"""The outage journal on disk: entries round-trip, live journals are left alone, dead ones
are adopted (torn last line ignored), and a store adopts them even while Redis is down."""

from __future__ import annotations

from pathlib import Path

import pytest

from sedimem.config import WorkingSettings
from sedimem.errors import StoreUnavailable
from sedimem.scope import Scope
from sedimem.storage.working.base import SessionRef, Snapshot, StoredValue
from sedimem.storage.working.fallback import FallbackWorkingStore
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry
from sedimem.storage.working.journal import DiskJournal, Entry, decode_entry, encode_entry
from sedimem.storage.working.redis import RedisWorkingStore
from sedimem.testing.redis_server import RedisServer
from sedimem.types.working import TaskState
from sedimem.working.memory import WorkingMemory

REF = SessionRef("d1", "t", None, 60.0, "t//s")
ENTRIES = [
    Entry("set", REF, ("k", '"v é"', 12.5, 10.0, 100), "0000000000000001:w"),
    Entry("update_task", REF, ({"current_step": "2"}, 10.0), "0000000000000002:w"),
    Entry(
        "restore",
        REF,
        (Snapshot({"a": StoredValue("1", None), "b": StoredValue("2", 99.0)}, None, ["e"]), 1.0),
        "0000000000000003:w",
    ),
    Entry("drop_sessions", None, ("t", "ana")),
]


def journals(directory: Path) -> list[Path]:
    return list(directory.glob("*.journal"))


def test_entries_round_trip_through_text() -> None:
    for entry in ENTRIES:
        line = encode_entry(entry)
        assert "\n" not in line
        assert decode_entry(line) == entry


def test_a_live_journal_is_left_alone_and_a_dead_one_adopted(tmp_path: Path) -> None:
    mine, other = DiskJournal(tmp_path, "redis://x"), DiskJournal(tmp_path, "redis://x")
    elsewhere = DiskJournal(tmp_path, "redis://another-server")
    for entry in ENTRIES[:2]:
        other.append(entry)
    elsewhere.append(ENTRIES[0])
    assert mine.adopt() == ([], [])  # other's process is alive (it holds the lock)
    assert other.path is not None
    with other.path.open("a") as file:
        file.write('{"m": "set", "torn')  # a crash in the middle of a write
    other.abandon()  # its process is gone
    entries, adopted = mine.adopt()
    assert entries == ENTRIES[:2]
    assert [a.path for a in adopted] == [other.path]
    assert DiskJournal(tmp_path, "redis://x").adopt() == ([], [])  # locked by the adopter
    DiskJournal.release(adopted)
    assert not other.path.exists()
    assert elsewhere.path is not None
    assert elsewhere.path.exists()  # another server's journal: not this store's business


def test_a_journal_that_cannot_be_written_refuses_the_write(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    with pytest.raises(StoreUnavailable, match="cannot be written"):
        DiskJournal(blocked / "journal", "redis://x").append(ENTRIES[0])


def test_clearing_empties_the_file_and_keeps_it(tmp_path: Path) -> None:
    journal = DiskJournal(tmp_path, "redis://x")
    journal.clear()  # nothing written yet: nothing to do
    journal.append(ENTRIES[0])
    journal.clear()
    assert journal.path is not None
    assert journal.path.read_text() == ""
    journal.abandon()


@pytest.mark.redis
async def test_a_store_adopts_dead_journals_while_redis_is_down(
    dedicated_redis: RedisServer, tmp_path: Path
) -> None:
    settings = WorkingSettings(probe_interval_seconds=3600, journal_dir=tmp_path)
    scope = Scope(tenant="t", user="u", session="s")
    dedicated_redis.stop()

    async def open_store() -> FallbackWorkingStore:
        # a registry of its own: as another process, it shares no outage with the first
        fallback = InProcessWorkingStore(SessionRegistry())
        primary = RedisWorkingStore.from_url(dedicated_redis.url)
        return await FallbackWorkingStore.start(primary, fallback, settings=settings)

    first = await open_store()
    wm = WorkingMemory(first, scope, settings=settings)
    await wm.set("k", {"n": 1})
    await wm.set_task_state(TaskState(task_id="job", total_steps=3))
    await wm.append_scratchpad("note")
    checkpoint = await wm.create_checkpoint()
    await wm.set("k", {"n": 2})
    await wm.restore_checkpoint(checkpoint)
    assert first.pending_writes == 6
    disk = first._outage.disk
    assert disk is not None
    disk.abandon()  # the process dies here

    second = await open_store()
    assert second.using_fallback
    assert second.pending_writes == 6  # adopted, waiting for Redis
    dedicated_redis.start()
    assert await second.recover()
    assert journals(tmp_path) == []
    direct = RedisWorkingStore.from_url(dedicated_redis.url)
    check = WorkingMemory(direct, scope, settings=settings)
    assert await check.get_all() == {"k": {"n": 1}}
    state = await check.get_task_state()
    assert state is not None
    assert state.total_steps == 3
    assert await check.get_scratchpad() == ["note"]
    assert [c.id for c in await check.list_checkpoints()] == [checkpoint]
    await direct.aclose()
    await second.aclose()
    await first.aclose()
