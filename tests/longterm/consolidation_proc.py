"""A consolidation worker process for the concurrency and crash tests.

    python consolidation_proc.py URL TENANT MODE [KILL_AFTER]

MODE ``loop``: run the facts and procedures jobs (small batches, two batches per run) until
a run finds nothing left to do, printing the statuses it saw. MODE ``crash``: like ``loop``
but the process SIGKILLs itself inside the extractor after KILL_AFTER episodes (a real
crash: no cleanup, the lease stays taken until it expires).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

from sedimem.consolidation import ConsolidationSettings, Consolidator, RuleExtractor
from sedimem.embed import HashEmbedder
from sedimem.longterm import EpisodicMemory, ProceduralMemory, SemanticMemory
from sedimem.longterm.stores import open_longterm_store
from sedimem.types.longterm import Episode, Fact


class KillingExtractor(RuleExtractor):
    def __init__(self, after: int) -> None:
        self.left = after

    async def extract(self, episode: Episode) -> list[Fact]:
        if self.left == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        self.left -= 1
        return await super().extract(episode)


async def main(url: str, tenant: str, mode: str, kill_after: int) -> None:
    store = await open_longterm_store(url)
    embedder = HashEmbedder(64)
    await store.bind_embedder(embedder.name, embedder.dimension)
    # A crashed worker's lease must expire soon for the resume test; in the contention test a
    # short lease only measures the machine's load (a batch slower than the lease loses it,
    # as designed), so the looping workers hold theirs longer.
    lease = 2 if mode == "crash" else 15
    settings = ConsolidationSettings(batch_size=25, max_batches_per_run=2, lease_ttl_seconds=lease)
    extractor = KillingExtractor(kill_after) if mode == "crash" else RuleExtractor()
    consolidator = Consolidator(
        store,
        EpisodicMemory(store, embedder),
        SemanticMemory(store, embedder),
        ProceduralMemory(store, embedder),
        settings=settings,
        extractor=extractor,
    )
    seen: dict[str, int] = {}
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            report = await consolidator.run(tenant, jobs=("facts", "procedures"))
            for job in report.jobs:
                seen[job.status] = seen.get(job.status, 0) + 1
                if job.status == "failed":
                    raise SystemExit(f"job {job.job} failed: {job.error}")
            done = all(j.status == "ok" and not j.counts_in.get("episodes") for j in report.jobs)
            if done:
                break
            await asyncio.sleep(0.05)
    finally:
        await store.aclose()
    print(" ".join(f"{k}={v}" for k, v in sorted(seen.items())))


if __name__ == "__main__":
    kill = int(sys.argv[4]) if len(sys.argv) > 4 else -1
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], kill))
