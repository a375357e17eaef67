"""A process running the ``sessions`` job, for the two-process and crash tests.

    python sessions_proc.py WORKING_URL STORE_URL TENANT IDLE_SECONDS START_AT MODE [KILL_AT]

It waits until the epoch time START_AT (so that two processes really overlap), then runs the
``sessions`` job (small batches, two per run) until a run finds no idle session, and prints
the statuses and counts it saw. MODE ``crash``: the working store SIGKILLs the process when
the job is about to remove the KILL_AT-th session, i.e. after that session's episode was
recorded and before its working state is gone: the worst moment for a crash.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections import Counter

from sedimem.access import Access
from sedimem.consolidation import ConsolidationSettings
from sedimem.embed import HashEmbedder
from sedimem.longterm.stores import open_longterm_store
from sedimem.memory import Memory
from sedimem.storage.working.base import SessionRef, WorkingStore
from sedimem.storage.working.factory import open_working_store, sqlite_path
from sedimem.storage.working.sqlite import SqliteWorkingStore


class KillingStore(SqliteWorkingStore):
    """The real SQLite store, dying (SIGKILL: no cleanup at all) at one removal."""

    kill_at = 0
    drops = 0

    async def drop_idle_session(self, ref: SessionRef, touched: float) -> bool:
        self.drops += 1
        if self.drops == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return await super().drop_idle_session(ref, touched)


async def open_working(url: str, mode: str, kill_at: int) -> WorkingStore:
    if mode != "crash":
        return await open_working_store(url)
    store = await KillingStore.open(sqlite_path(url))
    store.kill_at = kill_at
    return store


async def main(argv: list[str]) -> None:
    working_url, store_url, tenant, idle, start_at, mode = argv[:6]
    kill_at = int(argv[6]) if len(argv) > 6 else 0
    embedder = HashEmbedder(64)
    working = await open_working(working_url, mode, kill_at)
    longterm = await open_longterm_store(store_url)
    await longterm.bind_embedder(embedder.name, embedder.dimension)
    settings = ConsolidationSettings(
        batch_size=5, max_batches_per_run=2, lease_ttl_seconds=2, session_idle_seconds=float(idle)
    )
    seen: Counter[str] = Counter()
    async with Memory(working, longterm, embedder, consolidation=settings) as memory:
        await asyncio.sleep(max(0.0, float(start_at) - time.time()))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            job = (await memory.consolidate(Access.local(tenant), jobs=("sessions",))).job(
                "sessions"
            )
            if job.status == "failed":
                raise SystemExit(f"the sessions job failed: {job.error}")
            seen[job.status] += 1
            seen.update(job.counts_out)
            if job.status == "ok" and not job.counts_in:
                break
            await asyncio.sleep(0.01)
    print(" ".join(f"{k}={v}" for k, v in sorted(seen.items())))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
