"""Capacity: the highest rate of a realistic mix one ``sedimem serve`` sustains, and how
recall and ``assemble`` grow with the number of tenants on PostgreSQL.

**Sustained rate.** A real ``sedimem serve`` process (``--workers`` 1, then 2, behind one
port) on each store of ``--stores``: ``sqlite`` (the embedded default, files in its home)
and ``postgres`` (a ``redis-server`` for working memory and a PostgreSQL for the long-term
store, started by the test helpers of ``sedimem.testing``). Agents arrive open-loop, evenly
spaced at the pace that makes the calls they make add up to the offered rate, whatever the
server's answers take (a slow server is not offered less); each lives the session of
:func:`benchmarks.load.live_one_session`: spawn, ``--writes`` working-memory writes, as
many reads, two chat turns ingested (episodes, and facts by the extraction rules), a recall
over every tier, an assembled context (1,000 tokens), terminate. The offered rate steps up
through ``--rates`` (calls per second), ``--step-seconds`` of arrivals each; a step is
**sustained** when the p95 of all its calls is at most ``--p95-ms`` (100), none failed,
and its last session ended within ``--drain`` seconds (10) of the last arrival (the server
kept up: no backlog grew). A rate not sustained is offered once more (a stall of another
process on a shared machine can sink one step); not sustained twice, it ends the climb (one
step between the last sustained rate and it is then tried). Each store starts empty per worker
count.

**Tenants.** On PostgreSQL, for each count of ``--tenants`` (default 1k, 10k, 100k), that
many tenants of ``--records`` episodes each (100: LoCoMo turns, else generated sentences)
are written through the Python API (``record_many``), then ``--queries`` recalls of the
episodes tier and as many ``assemble`` calls (1,000 tokens) of random tenants are timed
in-process (without HTTP; each with its query's embedding). Counts accumulate: the 10k
step adds 9k tenants to the 1k step's. 100k tenants are 10M records: pass smaller counts
for a quick run.

Prints a table per part and, as its last line, ``{"metrics": {...}}`` with
``capacity.<store>.workers<n>.sustained_per_s`` and ``.per_worker_per_s``, and
``tenants.recall.p95_ms@<count>`` / ``tenants.assemble.p95_ms@<count>``.

    python -m benchmarks.capacity [--stores sqlite,postgres] [--workers 1,2]
        [--rates 10,20,40,80,160] [--tenants 1000,10000,100000]

The load generator runs on the same machine as the server (it takes a share of the CPU
the figures are about): say so beside them, with ``uptime``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx

from benchmarks.load import Agent, Run, Server, live_one_session, percentiles
from benchmarks.peers import Precomputed
from benchmarks.rest import texts
from sedimem.embed import default_embedder
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.postgres_server import PostgresServer
from sedimem.testing.redis_server import RedisServer
from sedimem.testing.sedimem_server import SedimemServer
from sedimem.types import Episode

ADMIN = "capacity-benchmark-admin-key-0123456789"
TENANT = "capacity"
MIX = ("spawn", "kv_put", "kv_get", "ingest", "recall", "assemble", "terminate")


@dataclass(frozen=True, slots=True)
class Step:
    offered_per_s: float
    completed_per_s: float
    calls: int
    errors: int
    drain_s: float
    p50_ms: float
    p95_ms: float
    p99_ms: float
    p95_by_call: dict[str, float]
    sustained: bool


def calls_per_session(writes: int, reads: int) -> int:
    return 5 + writes + (reads if writes else 0)


@contextlib.contextmanager
def started(store: str, workers: int, home: Path) -> Iterator[SedimemServer]:
    """A ``sedimem serve`` on ``store`` (``sqlite``: files in ``home``; ``postgres``: a
    fresh redis-server and PostgreSQL) with ``workers`` processes."""
    with ExitStack() as stack:
        env = {"SEDIMEM_ADMIN_KEY": ADMIN}
        if store == "postgres":
            env["SEDIMEM_WORKING_URL"] = stack.enter_context(RedisServer()).url
            env["SEDIMEM_STORE_URL"] = stack.enter_context(PostgresServer()).url
        else:
            env["SEDIMEM_WORKING_URL"] = f"sqlite:///{home}/working.db"
            env["SEDIMEM_STORE_URL"] = f"sqlite:///{home}/store.db"
        yield stack.enter_context(SedimemServer(env=env, workers=workers))


async def api_key(url: str) -> str:
    async with httpx.AsyncClient(base_url=url, timeout=30) as admin:
        created = await admin.post(
            "/v1/keys", json={"tenant": TENANT}, headers={"Authorization": f"Bearer {ADMIN}"}
        )
        created.raise_for_status()
        return str(created.json()["secret"])


async def step(
    run: Run, rate: float, args: argparse.Namespace, first_agent: int, rng: random.Random
) -> tuple[Step, int]:
    """``args.step_seconds`` of agents arriving open-loop at ``rate`` calls per second;
    returns the step and the number of agents it started."""
    run.latencies.clear()
    run.errors = 0
    per_session = calls_per_session(args.writes, args.reads)
    interval = per_session / rate  # seconds between sessions
    tasks: list[asyncio.Task[None]] = []
    began = time.monotonic()
    at = 0.0
    number = first_agent
    while at < args.step_seconds:
        delay = began + at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        agent = Agent(number)
        session_rng = random.Random(rng.random())
        tasks.append(
            asyncio.create_task(
                live_one_session(run, agent, args.writes, session_rng, reads=args.reads)
            )
        )
        number += 1
        at += interval
    arrived = time.monotonic()
    _, pending = await asyncio.wait(tasks, timeout=args.timeout) if tasks else (set(), set())
    for task in pending:
        task.cancel()
        run.error("session unfinished at the step's deadline")
    drained = time.monotonic() - arrived
    elapsed = time.monotonic() - began
    samples = [ms for op in MIX for ms in run.latencies.get(op, [])]
    q = percentiles(samples)
    completed = len(samples) / max(elapsed, args.step_seconds)
    sustained = (
        bool(samples) and q["p95"] <= args.p95_ms and run.errors == 0 and drained <= args.drain
    )
    by_call = {op: round(percentiles(run.latencies.get(op, []))["p95"], 1) for op in MIX}
    result = Step(
        offered_per_s=rate,
        completed_per_s=completed,
        calls=len(samples),
        errors=run.errors,
        drain_s=drained,
        p50_ms=q["p50"],
        p95_ms=q["p95"],
        p99_ms=q["p99"],
        p95_by_call=by_call,
        sustained=sustained,
    )
    return result, number - first_agent


async def climb(url: str, args: argparse.Namespace, label: str) -> list[Step]:
    """The offered rate stepped up until a step is not sustained (then one step between)."""
    secret = await api_key(url)
    limits = httpx.Limits(
        max_connections=args.connections,
        max_keepalive_connections=args.connections,
        keepalive_expiry=1.0,  # before uvicorn's 5 s (see benchmarks.load)
    )
    headers = {"Authorization": f"Bearer {secret}"}
    rng = random.Random(args.seed)
    steps: list[Step] = []
    async with httpx.AsyncClient(
        base_url=url, headers=headers, limits=limits, timeout=args.timeout
    ) as client:
        run = Run(servers=[Server(process=None, client=client)], planned_ops=1 << 62)  # type: ignore[arg-type]
        # warm-up (embedder, caches, connections of every worker), not counted
        await asyncio.gather(
            *(
                live_one_session(run, Agent(10**9 + n), args.writes, rng, reads=args.reads)
                for n in range(4 * max(args.workers))
            )
        )
        agents = 0

        async def offer(rate: float) -> Step:
            nonlocal agents
            result, started_agents = await step(run, rate, args, agents, rng)
            agents += started_agents
            steps.append(result)
            print_step(label, result)
            return result

        rates = sorted(args.rates)
        for rate in rates:
            # a step not sustained is offered once more: on a shared machine one stall of
            # another process can sink a step that the server itself would have held
            if not (await offer(rate)).sustained and not (await offer(rate)).sustained:
                passed = [s.offered_per_s for s in steps if s.sustained]
                if passed:
                    middle = round((passed[-1] + rate) / 2, 1)
                    if middle not in rates:
                        await offer(middle)
                break
    return steps


def print_step(label: str, s: Step) -> None:
    mark = "yes" if s.sustained else "no"
    print(
        f"{label:<22} {s.offered_per_s:>8.1f} {s.completed_per_s:>9.1f} {s.calls:>6} "
        f"{s.errors:>4} {s.drain_s:>7.1f} {s.p50_ms:>7.1f} {s.p95_ms:>7.1f} {s.p99_ms:>7.1f} "
        f"{mark:>9}  " + " ".join(f"{op} {v:.0f}" for op, v in s.p95_by_call.items()),
        flush=True,
    )


def sustained_rate(steps: list[Step]) -> float:
    passed = [s.offered_per_s for s in steps if s.sustained]
    return max(passed) if passed else 0.0


def capacity(args: argparse.Namespace, metrics: dict[str, float]) -> None:
    print(
        f"{'store, workers':<22} {'offered':>8} {'completed':>9} {'calls':>6} {'err':>4} "
        f"{'drain s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'sustained':>9}  p95 ms by call"
    )
    for store in args.stores:
        for workers in args.workers:
            label = f"{store}, {workers}"
            with (
                tempfile.TemporaryDirectory(prefix="sedimem-capacity-") as home,
                started(store, workers, Path(home)) as server,
            ):
                steps = asyncio.run(climb(server.url, args, label))
            rate = sustained_rate(steps)
            name = f"capacity.{store}.workers{workers}"
            metrics[f"{name}.sustained_per_s"] = rate
            metrics[f"{name}.per_worker_per_s"] = rate / workers
            sustained = [s for s in steps if s.offered_per_s == rate and s.sustained]
            if sustained:
                metrics[f"{name}.p95_ms_at_sustained"] = sustained[0].p95_ms
            print(f"{label}: sustained {rate:.1f} calls/s", flush=True)


async def grow_tenants(url: str, args: argparse.Namespace, metrics: dict[str, float]) -> None:
    stored, questions = texts(args.data, args.records * 10, args.seed)
    rng = random.Random(args.seed)
    header = f"{'tenants':>8} {'records':>9} {'write s':>8}  {'call':<9}"
    print(f"\n{header} {'p50':>6} {'p95':>6} {'p99':>6}")
    # the texts repeat (``--records`` x 10 of them): each is embedded once, so that
    # writing 100k tenants costs the store's writes, not the embedder's (not timed anyway)
    embedder = Precomputed(default_embedder(), [])
    async with await Memory.open(working="memory://", store=url, embedder=embedder) as memory:
        have = 0
        for count in sorted(args.tenants):
            began = time.perf_counter()
            batch: list[Episode] = []
            for number in range(have, count):
                scope = Scope(tenant=f"t{number}", project="p")
                offset = rng.randrange(len(stored))
                for i in range(args.records):
                    text = stored[(offset + i) % len(stored)]
                    batch.append(Episode(scope=scope, description=text))
                if len(batch) >= 20_000:
                    await memory.episodes.record_many(batch, batch_size=2000)
                    batch = []
            if batch:
                await memory.episodes.record_many(batch, batch_size=2000)
            analyzed = getattr(memory.longterm_store, "analyzed", None)
            if analyzed is not None:
                await analyzed()  # the statistics a deployment's autovacuum would have
            written = time.perf_counter() - began
            have = count
            timings: dict[str, list[float]] = {"recall": [], "assemble": []}
            for i in range(args.queries + 20):  # the first 20: warm-up
                scope = Scope(tenant=f"t{rng.randrange(count)}", project="p")
                query = questions[i % len(questions)]
                t0 = time.perf_counter()
                await memory.episodes.recall(query, scope=scope, k=10)
                t1 = time.perf_counter()
                await memory.assemble(query, scope, 1000)
                t2 = time.perf_counter()
                if i >= 20:
                    timings["recall"].append((t1 - t0) * 1000)
                    timings["assemble"].append((t2 - t1) * 1000)
            label = f"@{count // 1000}k" if count % 1000 == 0 else f"@{count}"
            for call, samples in timings.items():
                q = percentiles(samples)
                for stat, value in q.items():
                    metrics[f"tenants.{call}.{stat}_ms{label}"] = value
                print(
                    f"{count:>8} {count * args.records:>9} {written:>8.1f}  {call:<9} "
                    f"{q['p50']:>6.1f} {q['p95']:>6.1f} {q['p99']:>6.1f}",
                    flush=True,
                )
            metrics[f"tenants.write_s{label}"] = written


def tenants(args: argparse.Namespace, metrics: dict[str, float]) -> None:
    with PostgresServer() as postgres:
        asyncio.run(grow_tenants(postgres.url, args, metrics))


def numbers(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x]


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stores", default="sqlite,postgres", help="sqlite, postgres")
    parser.add_argument("--workers", default="1,2", help="serve --workers counts (1,2)")
    parser.add_argument(
        "--rates", default="10,20,40,60,80,120,160", help="offered calls per second, stepped"
    )
    parser.add_argument("--step-seconds", type=float, default=20.0, help="per step (20)")
    parser.add_argument("--p95-ms", type=float, default=100.0, help="sustained bound (100)")
    parser.add_argument(
        "--drain", type=float, default=10.0, help="seconds a step may take past its last arrival"
    )
    parser.add_argument("--writes", type=int, default=3, help="kv writes per session (3)")
    parser.add_argument("--reads", type=int, default=3, help="kv reads per session (3)")
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--timeout", type=float, default=60.0, help="per call, seconds (60)")
    parser.add_argument(
        "--tenants", default="1000,10000,100000", help="tenant counts on PostgreSQL ('' skips)"
    )
    parser.add_argument("--records", type=int, default=100, help="episodes per tenant (100)")
    parser.add_argument("--queries", type=int, default=200, help="timed per tenant count")
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo10.json"))
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    # a terminated run still stops the servers it started (the exit stacks unwind)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    args.stores = [s for s in args.stores.split(",") if s]
    unknown = set(args.stores) - {"sqlite", "postgres"}
    if unknown:
        parser.error(f"--stores: unknown {sorted(unknown)} (sqlite, postgres)")
    args.workers = [int(w) for w in numbers(args.workers)]
    args.rates = numbers(args.rates)
    args.tenants = [int(t) for t in numbers(args.tenants)]
    metrics: dict[str, float] = {"load_average_start": os.getloadavg()[0]}
    metrics["cpus"] = float(os.cpu_count() or 0)
    if args.stores and args.workers and args.rates:
        capacity(args, metrics)
    if args.tenants:
        tenants(args, metrics)
    metrics["load_average_end"] = os.getloadavg()[0]
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))
    return metrics


if __name__ == "__main__":
    main()
