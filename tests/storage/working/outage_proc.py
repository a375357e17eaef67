"""One process using working memory on Redis, driven line by line, for the outage tests.

    python outage_proc.py REDIS_URL SESSION [JOURNAL_DIR]

Opens the store as an application does (``open_working_store``: Redis with the in-process
fallback; the probe is slowed down so that the test decides when the journal is replayed;
with JOURNAL_DIR, the outage journal is also written there),
then reads one command per line from stdin and answers each with one JSON line on stdout:

    set KEY VALUE | delete KEY | task STEP | note TEXT | recover | quit

Every answer carries ``fallback`` (whether the write was served by the fallback) and
``pending`` (writes in the outage journal).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from sedimem.config import WorkingSettings
from sedimem.scope import Scope
from sedimem.storage.working.factory import open_working_store
from sedimem.storage.working.fallback import FallbackWorkingStore
from sedimem.types.working import TaskState
from sedimem.working.memory import WorkingMemory


async def main(url: str, session: str, journal_dir: str | None) -> None:
    journal = None if journal_dir is None else Path(journal_dir)
    settings = WorkingSettings(probe_interval_seconds=3600, journal_dir=journal)
    store = await open_working_store(url, settings)
    assert isinstance(store, FallbackWorkingStore)
    wm = WorkingMemory(store, Scope(tenant="t", user="u", session=session), settings=settings)
    print(json.dumps({"ready": True}), flush=True)
    while line := await asyncio.to_thread(sys.stdin.readline):
        command, *args = line.split()
        answer: dict[str, object] = {}
        if command == "set":
            await wm.set(args[0], args[1])
        elif command == "delete":
            answer["deleted"] = await wm.delete(args[0])
        elif command == "task":
            await wm.set_task_state(TaskState(task_id="job", current_step=int(args[0])))
        elif command == "note":
            await wm.append_scratchpad(args[0])
        elif command == "recover":
            answer["recovered"] = await store.recover()
        elif command == "quit":
            break
        answer.update(fallback=store.using_fallback, pending=store.pending_writes)
        print(json.dumps(answer), flush=True)
    await store.aclose()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
