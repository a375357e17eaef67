"""Newest acknowledged write wins across processes, through a Redis outage.

Process A writes during an outage (into its fallback and journal); Redis comes back; process
B writes the same things and Redis acknowledges them; only then does A replay its journal.
B's writes must survive (they are newer), while A's writes that nobody superseded land.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sedimem.scope import Scope
from sedimem.storage.working.redis import RedisWorkingStore
from sedimem.testing.redis_server import RedisServer
from sedimem.working.memory import WorkingMemory

pytestmark = [pytest.mark.redis, pytest.mark.slow]

PROC = Path(__file__).with_name("outage_proc.py")
SESSION = "shared"


class Process:
    """A running ``outage_proc.py``: send a command, read its one-line JSON answer."""

    def __init__(self, url: str, journal: Path | None = None) -> None:
        extra = [] if journal is None else [str(journal)]
        # -P: the script's directory is not put on sys.path (tests/storage/working/redis/
        # would hide the redis package)
        self.popen = subprocess.Popen(
            [sys.executable, "-P", str(PROC), url, SESSION, *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.read() == {"ready": True}

    def read(self) -> dict[str, Any]:
        assert self.popen.stdout is not None
        line = self.popen.stdout.readline()
        if not line:
            assert self.popen.stderr is not None
            raise AssertionError(f"the process ended: {self.popen.stderr.read()[-3000:]}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def __call__(self, command: str) -> dict[str, Any]:
        assert self.popen.stdin is not None
        self.popen.stdin.write(command + "\n")
        self.popen.stdin.flush()
        return self.read()

    def close(self) -> None:
        """End the process (stdin closed: it exits) and check that it exited cleanly."""
        _, errors = self.popen.communicate(timeout=30)
        assert self.popen.returncode == 0, errors[-3000:]


@pytest.fixture
def processes() -> Iterator[list[Process]]:
    started: list[Process] = []
    yield started
    for process in started:
        if process.popen.poll() is None:
            process.popen.kill()
        process.popen.communicate()  # reaps it and closes its pipes


async def test_a_later_acknowledged_write_survives_an_older_replay(
    dedicated_redis: RedisServer, processes: list[Process]
) -> None:
    a = Process(dedicated_redis.url)
    processes.append(a)
    assert a("set y before-outage")["fallback"] is False

    dedicated_redis.kill()
    for command in ("set x from-A", "task 1", "note A-during-outage", "set y A", "set z A"):
        assert a(command)["fallback"] is True  # acknowledged by A's fallback
    assert a("set z A-again")["pending"] == 6

    dedicated_redis.start()
    await asyncio.sleep(0.05)  # B's writes are stamped later than A's, by any clock
    b = Process(dedicated_redis.url)
    processes.append(b)
    for command in ("set x from-B", "task 2", "note B-after-outage", "delete y"):
        assert b(command)["fallback"] is False  # acknowledged by Redis
    b.close()

    assert a("recover") == {"recovered": True, "fallback": False, "pending": 0}
    a.close()

    direct = RedisWorkingStore.from_url(dedicated_redis.url)
    check = WorkingMemory(direct, Scope(tenant="t", user="u", session=SESSION))
    assert await check.get("x") == "from-B"  # B's later write, not A's replay
    assert await check.get("y") is None  # B's delete beats A's older write
    assert await check.get("z") == "A-again"  # nobody else wrote z: A's newest write
    state = await check.get_task_state()
    assert state is not None
    assert state.current_step == 2
    notes = await check.get_scratchpad_with_timestamps()
    assert [n.text for n in notes] == ["A-during-outage", "B-after-outage"]  # merged by time
    await direct.aclose()


async def test_a_process_killed_during_an_outage_loses_no_acknowledged_write(
    dedicated_redis: RedisServer, processes: list[Process], tmp_path: Path
) -> None:
    """With ``journal_dir``: A is SIGKILLed during the outage; the next process to open the
    store writes A's journal back, still a compare-and-set against B's later write."""
    journal = tmp_path / "journal"
    a = Process(dedicated_redis.url, journal)
    processes.append(a)
    dedicated_redis.kill()
    for command in ("set x from-A", "task 1", "note A-during-outage", "set w from-A"):
        assert a(command)["fallback"] is True
    a.popen.kill()  # SIGKILL: no cleanup, no write-back
    a.popen.wait()
    assert len(list(journal.glob("*.journal"))) == 1

    dedicated_redis.start()
    b = Process(dedicated_redis.url)  # no journal directory: does not look at A's journal
    processes.append(b)
    assert b("set w from-B")["fallback"] is False
    b.close()
    c = Process(dedicated_redis.url, journal)  # adopts A's journal when it opens the store
    processes.append(c)
    c.close()
    assert list(journal.glob("*.journal")) == []  # adopted, written back, removed

    direct = RedisWorkingStore.from_url(dedicated_redis.url)
    check = WorkingMemory(direct, Scope(tenant="t", user="u", session=SESSION))
    assert await check.get("x") == "from-A"
    assert await check.get("w") == "from-B"  # written after A's, acknowledged by Redis
    state = await check.get_task_state()
    assert state is not None
    assert state.current_step == 1
    assert await check.get_scratchpad() == ["A-during-outage"]
    await direct.aclose()


async def test_without_a_journal_directory_a_killed_process_loses_its_outage_writes(
    dedicated_redis: RedisServer, processes: list[Process]
) -> None:
    """The documented cost of the default (journal in memory only)."""
    a = Process(dedicated_redis.url)
    processes.append(a)
    dedicated_redis.kill()
    assert a("set x from-A")["fallback"] is True
    a.popen.kill()
    a.popen.wait()
    dedicated_redis.start()
    direct = RedisWorkingStore.from_url(dedicated_redis.url)
    check = WorkingMemory(direct, Scope(tenant="t", user="u", session=SESSION))
    assert await check.get("x") is None
    await direct.aclose()
