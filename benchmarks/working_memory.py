"""Working-memory latency: get / set / append_scratchpad through ``WorkingMemory``.

Stores: in-process (``memory://``), SQLite (a temporary file), Redis (``RedisWorkingStore``
directly, and through the fallback wrapper that ``open_working_store`` returns), plus raw
redis-py GET/SET against the same redis-server in the same run, as the baseline.

Operations run one at a time (no concurrency). The Redis subjects and the baseline take turns
call by call, so that the load of the machine at any moment affects them alike.

    python -m benchmarks.working_memory [--quick] [--ops N] [--durable]

The last line printed is a JSON object ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from redis.asyncio import Redis

from sedimem.config import WorkingSettings
from sedimem.scope import Scope
from sedimem.storage.working.base import WorkingStore
from sedimem.storage.working.factory import open_working_store
from sedimem.storage.working.redis import RedisWorkingStore
from sedimem.testing.redis_server import RedisServer
from sedimem.working.memory import WorkingMemory

Op = Callable[[int], Awaitable[Any]]

KEYS = 1000  # distinct keys cycled through
VALUE = {"text": "x" * 64, "n": 1}  # a small JSON value, like an agent's variable
TARGETS = {"memory": 50.0, "sqlite": 500.0}  # p95 us; Redis: 1.5x raw redis-py


def percentiles(samples_ns: list[int]) -> dict[str, float]:
    ordered = sorted(samples_ns)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return {
        "p50_us": round(cuts[49] / 1000, 1),
        "p95_us": round(cuts[94] / 1000, 1),
        "p99_us": round(cuts[98] / 1000, 1),
        "ops_s": round(len(ordered) / (sum(ordered) / 1e9)),
    }


async def warm_up(op: Op, count: int) -> None:
    for i in range(count):
        await op(i)


def working_ops(wm: WorkingMemory) -> dict[str, Op]:
    keys = [f"key:{i}" for i in range(KEYS)]

    async def get(i: int) -> Any:
        return await wm.get(keys[i % KEYS])

    async def set_(i: int) -> Any:
        return await wm.set(keys[i % KEYS], VALUE)

    async def append(i: int) -> Any:
        return await wm.append_scratchpad(f"step {i}: looked at the result")

    return {"get": get, "set": set_, "append": append}


def raw_ops(client: Redis) -> dict[str, Op]:
    keys = [f"raw:{i}" for i in range(KEYS)]
    text = json.dumps(VALUE, separators=(",", ":"))

    async def get(i: int) -> Any:
        return await client.get(keys[i % KEYS])

    async def set_(i: int) -> Any:
        return await client.set(keys[i % KEYS], text)

    return {"get": get, "set": set_}


async def measure(
    subjects: dict[str, dict[str, Op]], ops: int, groups: list[list[str]]
) -> dict[str, dict[str, float]]:
    """Every (subject, operation): warmed up, then ``ops`` timed calls, one at a time.

    Subjects of one group take turns call by call, so that whatever else the machine does
    at a given moment weighs on each of them alike (Redis is compared with raw redis-py).
    """
    warmup = max(200, ops // 10)
    samples: dict[tuple[str, str], list[int]] = {}
    for name, table in subjects.items():
        for op_name, op in table.items():
            # the first pass of set fills the keys that get reads later
            await warm_up(op, max(warmup, KEYS) if op_name == "set" else warmup)
            samples[(name, op_name)] = []
    clock = time.perf_counter_ns
    for group in groups:
        for op_name in ("set", "get", "append"):
            turns = [
                (subjects[name][op_name], samples[(name, op_name)])
                for name in group
                if op_name in subjects.get(name, {})
            ]
            gc.collect()
            for i in range(ops):
                for op, into in turns:
                    begin = clock()
                    await op(i)
                    into.append(clock() - begin)
    return {f"{name}.{op_name}": percentiles(s) for (name, op_name), s in samples.items()}


async def open_subjects(
    url: str, directory: Path
) -> tuple[dict[str, dict[str, Op]], list[Callable[[], Awaitable[None]]], list[str]]:
    settings = WorkingSettings()
    subjects: dict[str, dict[str, Op]] = {}
    closers: list[Callable[[], Awaitable[None]]] = []
    notes: list[str] = []

    def session(store: WorkingStore, name: str) -> WorkingMemory:
        scope = Scope(tenant="bench", user="u", session=name)
        return WorkingMemory(store, scope, settings=settings)

    memory = await open_working_store("memory://", settings)
    subjects["memory"] = working_ops(session(memory, "memory"))
    try:
        sqlite = await open_working_store(f"sqlite:///{directory / 'wm.db'}", settings)
    except ImportError as exc:
        notes.append(f"sqlite skipped: {exc}")
    else:
        subjects["sqlite"] = working_ops(session(sqlite, "sqlite"))
        closers.append(sqlite.aclose)
    redis_store = RedisWorkingStore.from_url(url)
    subjects["redis"] = working_ops(session(redis_store, "redis"))
    closers.append(redis_store.aclose)
    wrapped = await open_working_store(url, settings)
    subjects["redis_fallback"] = working_ops(session(wrapped, "redis_fallback"))
    closers.append(wrapped.aclose)
    raw = Redis.from_url(url, decode_responses=True)
    subjects["redis_raw"] = raw_ops(raw)
    closers.append(lambda: raw.aclose(close_connection_pool=True))
    return subjects, closers, notes


def report(results: dict[str, dict[str, float]], ops: int, durable: bool) -> dict[str, Any]:
    # other processes on the machine move p95/p99 most: say how busy it was
    metrics: dict[str, Any] = {
        "ops_per_measurement": ops,
        "redis_durable": durable,
        "loadavg_1m": round(os.getloadavg()[0], 2),
        "cpus": os.cpu_count(),
    }
    print(f"{ops} operations each; load average {metrics['loadavg_1m']} on {metrics['cpus']} CPUs")
    print(f"{'store.op':<22}{'p50 us':>10}{'p95 us':>10}{'p99 us':>10}{'ops/s':>10}  vs raw p95")
    for name, figures in results.items():
        for field in ("p50_us", "p95_us", "p99_us"):
            metrics[f"{name}.{field}"] = figures[field]
        metrics[f"{name}.ops_s"] = figures["ops_s"]
        ratio = ""
        store, op = name.split(".")
        raw = results.get(f"redis_raw.{op}")
        if store.startswith("redis") and store != "redis_raw" and raw is not None:
            for field in ("p50", "p95"):
                value = figures[f"{field}_us"] / raw[f"{field}_us"]
                metrics[f"{name}.{field}_ratio_to_raw"] = round(value, 3)
            p50, p95 = (metrics[f"{name}.{f}_ratio_to_raw"] for f in ("p50", "p95"))
            ratio = f"{p95:.2f}x (p50 {p50:.2f}x)"
        print(
            f"{name:<22}{figures['p50_us']:>10}{figures['p95_us']:>10}{figures['p99_us']:>10}"
            f"{figures['ops_s']:>10}  {ratio}"
        )
    checks = {
        **{
            f"{s}.{op}.p95_us <= {t:g}": metrics.get(f"{s}.{op}.p95_us", float("inf")) <= t
            for s, t in TARGETS.items()
            for op in ("get", "set")
        },
        **{
            f"redis.{op} p95 <= 1.5x raw": metrics.get(f"redis.{op}.p95_ratio_to_raw", 99) <= 1.5
            for op in ("get", "set")
        },
    }
    for check, ok in checks.items():
        print(f"{'ok  ' if ok else 'MISS'} {check}")
    metrics["targets_met"] = all(checks.values())
    return metrics


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 operations instead of 20,000")
    parser.add_argument("--ops", type=int, help="operations per measurement")
    parser.add_argument(
        "--durable",
        action="store_true",
        help="run redis-server with appendfsync always (measures the disk too)",
    )
    args = parser.parse_args(argv)
    ops = args.ops or (2_000 if args.quick else 20_000)
    with tempfile.TemporaryDirectory() as tmp, RedisServer(durable=args.durable) as server:
        subjects, closers, notes = await open_subjects(server.url, Path(tmp))
        try:
            groups = [["memory"], ["sqlite"], ["redis", "redis_fallback", "redis_raw"]]
            results = await measure(subjects, ops, groups)
        finally:
            for close in closers:
                await close()
    for note in notes:
        print(note, file=sys.stderr)
    metrics = report(results, ops, args.durable)
    print(json.dumps({"metrics": metrics}))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
