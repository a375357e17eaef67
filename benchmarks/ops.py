"""Every everyday facade call, timed in a store with a long history (SQLite, the default).

The store is filled as ``benchmarks.context`` fills it (100k episodes, 10k facts, 1k
procedures, pinned blocks and working state; ``--quick``: 2k / 200 / 20), then each call
below runs ``--rounds`` times after one untimed call: an ``ingest`` of two chat turns, a
session's lifecycle, a session's messages, a page of episodes, ``learn``,
``procedures.record``, reads by id, ``stats`` and ``profile`` (before any search, then
again after ``assemble`` has loaded the indexes: ``*.searched``). A call whose cost grows with
the history (a read that walks every record of a kind, as reads by name did until
2026-11-29) shows here first: each call's p95 is also given as a ratio to numpy's exact top
10 of 100k x 256 vectors, measured in the same run (how fast this machine is now).

Prints a table and, as its last line, ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

_REPO = str(Path(__file__).resolve().parent.parent)
sys.path.insert(0, _REPO)  # also when run as a script

from benchmarks.context import SCOPE, bench_baseline, percentiles, populate  # noqa: E402
from sedimem.memory import Memory  # noqa: E402
from sedimem.types import Episode, Fact, Procedure  # noqa: E402

Call = Callable[[int], Awaitable[object]]


def calls(memory: Memory, episode_id: str) -> dict[str, Call]:
    """The calls timed, each given its round's number (for distinct texts and scopes)."""

    async def ingest(i: int) -> object:
        turns = [
            {
                "role": "user",
                "content": f"I moved to Lisbon {i} weeks ago, my sister Ana lives in Porto.",
            },
            {"role": "assistant", "content": "That sounds lovely."},
        ]
        return await memory.ingest(turns, SCOPE.with_session(f"ops-ingest-{i}"))

    async def lifecycle(i: int) -> object:
        scope = SCOPE.with_session(f"ops-life-{i}")
        await memory.lifecycle.spawn(scope, {"goal": "benchmark"}, total_steps=3)
        await memory.working(scope).append_scratchpad("step one")
        await memory.lifecycle.pause(scope)
        await memory.lifecycle.resume(scope)
        return await memory.lifecycle.terminate(scope, "success")

    return {
        "ingest": ingest,
        "lifecycle": lifecycle,
        "session_messages": lambda i: memory.episodes.session_messages(
            SCOPE.with_session("ops-ingest-1")
        ),
        "episodes.list": lambda i: memory.episodes.list(SCOPE.owner, limit=50),
        "episodes.record": lambda i: memory.episodes.record(
            Episode(scope=SCOPE, description=f"did {i}")
        ),
        "episodes.get": lambda i: memory.episodes.get(episode_id, scope=SCOPE),
        "facts.learn": lambda i: memory.facts.learn(
            Fact(
                scope=SCOPE.owner,
                statement=f"ana owns bike {i}",
                subject="ana",
                predicate="owns",
                object=f"bike {i}",
            )
        ),
        "facts.current": lambda i: memory.facts.current("ana", "owns", scope=SCOPE),
        "procedures.record": lambda i: memory.procedures.record(
            Procedure(
                scope=SCOPE.owner, name=f"ops procedure {i}", trigger="when asked", steps=["a", "b"]
            )
        ),
        # before any search: every count reads the rows (no index in memory yet)
        "stats": lambda i: memory.stats(SCOPE),
        "profile": lambda i: memory.profile(SCOPE),
        # its untimed first call builds the indexes (as a serving process has them)
        "assemble": lambda i: memory.assemble(f"report deadline {i}", SCOPE, budget_tokens=2000),
        # a process that has searched: the kinds' indexes count
        "stats.searched": lambda i: memory.stats(SCOPE),
        "profile.searched": lambda i: memory.profile(SCOPE),
    }


async def run(episodes: int, facts: int, procedures: int, rounds: int) -> dict[str, Any]:
    metrics: dict[str, Any] = {"load_average_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="sedimem-ops-") as tmp:
        async with await Memory.open(f"sqlite:///{tmp}/ops.db") as memory:
            metrics["populate_s"] = await populate(memory, episodes, facts, procedures)
            print(f"populated in {metrics['populate_s']:.1f} s", flush=True)
            first = await memory.episodes.list(SCOPE.owner, limit=1)
            for name, call in calls(memory, first.items[0].id).items():
                await call(0)
                samples = []
                for i in range(1, rounds + 1):
                    t0 = time.perf_counter()
                    await call(i)
                    samples.append((time.perf_counter() - t0) * 1000)
                for k, v in percentiles(samples).items():
                    metrics[f"{name}.{k}_ms"] = v
                metrics[f"{name}.per_s"] = 1000 * len(samples) / sum(samples)
    base = bench_baseline(50)
    metrics["baseline.numpy_top10.p50_ms"] = base["p50"]
    for name in [k[: -len(".p95_ms")] for k in list(metrics) if k.endswith(".p95_ms")]:
        metrics[f"{name}.p95_ratio_to_baseline"] = metrics[f"{name}.p95_ms"] / base["p50"]
    metrics["load_average_end"] = os.getloadavg()[0]
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2k episodes, 200 facts, 20 procs")
    parser.add_argument("--rounds", type=int, default=20, help="timed calls of each kind")
    args = parser.parse_args()
    sizes = (2_000, 200, 20) if args.quick else (100_000, 10_000, 1_000)
    metrics = asyncio.run(run(*sizes, args.rounds))
    metrics["episodes"] = sizes[0]
    for name, value in metrics.items():
        print(f"{name:44} {value:12.3f}")
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))


if __name__ == "__main__":
    main()
