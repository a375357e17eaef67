"""Load test: simulated agents against several ``sedimem serve`` processes and consolidation
workers over one real Redis + PostgreSQL, with a server and a worker killed mid-run.

Everything runs on loopback: a ``redis-server`` and a PostgreSQL (the test helpers of
``sedimem.testing``), ``--servers`` ``sedimem serve`` processes (default 2) and
``--workers`` ``sedimem worker`` processes (default 2). One key is created for tenant
``load``; then ``--agents`` simulated agents (default 200, started over ``--ramp`` seconds)
each live one session, every call sent to the servers round-robin:

- ``spawn``: ``POST /v1/sessions/{s}/spawn`` with a goal;
- ``kv_put``: ``--writes`` working-memory writes (``PUT /v1/sessions/{s}/kv/{key}``);
- ``ingest``: two chat turns (``POST /v1/messages``: episodes, and facts by the rules);
- ``recall``: ``POST /v1/recall`` over every tier;
- ``assemble``: ``POST /v1/context`` with a 1,000-token budget;
- ``terminate``: ``POST /v1/sessions/{s}/terminate`` (the session's episode; its working
  state is kept, ``cleanup: false``, so the end of the run can check it).

When half of the planned calls are done, one server and one worker are killed (SIGKILL).
A call that fails at the transport level is sent to the next live server (every call above
is idempotent: keys are set to fixed values, turns are filed once, terminate records once).
A call that was in flight to the killed server when it died is counted in
``killed_in_flight``, not in ``errors``; a call refused by the dead server afterwards is a
``failover``. Any other failure (a non-2xx answer, a transport error from a live server, a
call that no server took) is an ``error``.

At the end, through a live server: every acknowledged working-memory write must be readable
with its value (``lost_writes`` counts those that are not), and every acknowledged
terminate must have left exactly one session episode (``duplicate_episodes`` counts the
sessions with more than one, ``lost_episodes`` those with none).

Prints p50 / p95 / p99 and calls per second per operation, and as its last line one JSON
object: ``agents``, ``servers``, ``workers``, ``ops``, ``errors``, ``killed_in_flight``,
``failovers``, ``lost_writes``, ``duplicate_episodes``, ``lost_episodes``, ``seconds``,
``p95_ms`` (per operation) and ``per_s`` (per operation).

Why an asyncio generator on httpx rather than locust: httpx is already a dependency (no
new one, no gevent monkey-patching beside asyncio), one event loop drives hundreds of agents
with each call's latency measured around the call itself, and the same process owns the
server and worker processes, so it kills them at a chosen point of the run and knows which
calls were in flight to the victim. Bounded: every call has a timeout, the run a deadline
(``--max-seconds``); agents still running then are reported as ``unfinished``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import AsyncExitStack, ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from sedimem.testing.postgres_server import PostgresServer
from sedimem.testing.process import end_process
from sedimem.testing.redis_server import RedisServer
from sedimem.testing.sedimem_server import SedimemServer

ADMIN = "load-benchmark-admin-key-0123456789"
TENANT = "load"
OPERATIONS = ("spawn", "kv_put", "ingest", "recall", "assemble", "terminate")
WORDS = (
    "oslo lisbon train flight hotel budget visa museum dinner meeting report deadline "
    "invoice refund client launch release bug deploy review design draft tax garden piano "
    "yoga recipe doctor school holiday birthday wedding concert"
).split()


@dataclass
class Server:
    process: SedimemServer
    client: httpx.AsyncClient
    killed_at: float | None = None  # time.monotonic() of the SIGKILL


@dataclass
class Run:
    servers: list[Server]
    planned_ops: int
    on_half: asyncio.Event = field(default_factory=asyncio.Event)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    done: int = 0
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    killed_in_flight: int = 0
    failovers: int = 0
    turn: int = 0

    def live(self) -> list[Server]:
        return [s for s in self.servers if s.killed_at is None]

    def error(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 10:
            self.error_samples.append(what)

    async def call(self, op: str, method: str, path: str, **kwargs: Any) -> httpx.Response | None:
        """One call, on the next server round-robin, then on the others when one is down.

        Returns the answer (2xx), or None when it failed (counted as an error)."""
        self.turn += 1
        order = (
            self.servers[self.turn % len(self.servers) :]
            + self.servers[: self.turn % len(self.servers)]
        )
        for server in order:
            if server.killed_at is not None:
                continue
            began = time.monotonic()
            try:
                response = await server.client.request(method, path, **kwargs)
            except httpx.TransportError as exc:
                if server.killed_at is None:
                    self.error(f"{op}: {exc!r} from live server {server.process.url}")
                    return None
                if began < server.killed_at:
                    self.killed_in_flight += 1
                else:
                    self.failovers += 1
                continue
            elapsed = (time.monotonic() - began) * 1000
            self._count()
            if response.is_success:
                self.latencies[op].append(elapsed)
                return response
            self.error(f"{op}: HTTP {response.status_code} {response.text[:200]}")
            return None
        self._count()
        self.error(f"{op}: no live server took the call")
        return None

    def _count(self) -> None:
        self.done += 1
        if self.done * 2 >= self.planned_ops:
            self.on_half.set()


@dataclass
class Agent:
    number: int
    writes: dict[str, Any] = field(default_factory=dict)  # acknowledged key -> value
    terminated: bool = False
    finished: bool = False

    @property
    def user(self) -> str:
        return f"user-{self.number}"

    @property
    def session(self) -> str:
        return f"s-{self.number}"


async def live_one_session(
    run: Run, agent: Agent, writes: int, rng: random.Random, *, reads: int = 0
) -> None:
    """One agent's session: spawn, ``writes`` working-memory writes, ``reads`` reads of
    them, two chat turns ingested, a recall, an assembled context, terminate."""
    session, owner = agent.session, {"user": agent.user}
    topic = " ".join(rng.choice(WORDS) for _ in range(3))
    base = f"/v1/sessions/{session}"
    goal = {"initial_state": {"goal": f"plan the {topic}"}, "total_steps": writes, **owner}
    await run.call("spawn", "POST", f"{base}/spawn", json=goal)
    for step in range(writes):
        key, value = f"step-{step}", {"step": step, "note": f"{topic} {step}"}
        answer = await run.call(
            "kv_put", "PUT", f"{base}/kv/{key}", params=owner, json={"value": value}
        )
        if answer is not None:
            agent.writes[key] = value
    for step in range(reads if writes else 0):  # (reads of the keys just written)
        await run.call("kv_get", "GET", f"{base}/kv/step-{step % writes}", params=owner)
    turns = [
        {
            "role": "user",
            "name": "Ana",
            "content": f"I live in city {agent.number}. Please plan the {topic}.",
            "timestamp": "2026-05-01T09:00:00+00:00",
        },
        {
            "role": "assistant",
            "content": f"Noted: the {topic}, from city {agent.number}.",
            "timestamp": "2026-05-01T09:00:05+00:00",
        },
    ]
    await run.call("ingest", "POST", "/v1/messages", json={"messages": turns, **owner})
    await run.call("recall", "POST", "/v1/recall", json={"query": topic, "k": 5, **owner})
    context = {"query": f"plan the {topic}", "budget_tokens": 1000, "session": session, **owner}
    await run.call("assemble", "POST", "/v1/context", json=context)
    end = {"outcome": "success", "cleanup": False, "lessons_learned": [f"book {topic} early"]}
    if await run.call("terminate", "POST", f"{base}/terminate", json={**end, **owner}):
        agent.terminated = True
    agent.finished = True


async def chaos(run: Run, workers: list[subprocess.Popen[bytes]]) -> dict[str, float]:
    """At half of the planned calls: SIGKILL the first server and the first worker."""
    await run.on_half.wait()
    victim = run.servers[0]
    victim.killed_at = time.monotonic()
    victim.process.kill()
    workers[0].send_signal(signal.SIGKILL)
    workers[0].wait()
    return {"killed_after_ops": run.done}


async def verify(run: Run, agents: list[Agent]) -> dict[str, int]:
    """Lost writes and duplicate / lost session episodes, read through a live server."""
    client = run.live()[0].client
    lost = duplicates = missing = 0
    for agent in agents:
        params = {"user": agent.user}
        if agent.writes:
            got = await client.get(f"/v1/sessions/{agent.session}/kv", params=params)
            got.raise_for_status()
            items = got.json()["items"]
            lost += sum(1 for key, value in agent.writes.items() if items.get(key) != value)
        if agent.terminated:
            query = {**params, "task_type": "session", "from_session": agent.session}
            found = await client.get("/v1/episodes", params=query)
            found.raise_for_status()
            count = len(found.json()["items"])
            duplicates += count > 1
            missing += count == 0
    return {"lost_writes": lost, "duplicate_episodes": duplicates, "lost_episodes": missing}


def start_worker(env: dict[str, str], directory: Path, n: int) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "sedimem", "worker", "--interval", "2"]
    with (directory / f"worker-{n}.log").open("ab") as log:
        return subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
        )


@contextmanager
def services(args: argparse.Namespace) -> Iterator[tuple[list[SedimemServer], dict[str, str]]]:
    with ExitStack() as stack:
        redis = stack.enter_context(RedisServer())
        postgres = stack.enter_context(PostgresServer())
        env = {
            "SEDIMEM_ADMIN_KEY": ADMIN,
            "SEDIMEM_WORKING_URL": redis.url,
            "SEDIMEM_STORE_URL": postgres.url,
        }
        # one after the other: the first start runs the migrations
        servers = [stack.enter_context(SedimemServer(env=env)) for _ in range(args.servers)]
        yield servers, env


async def drive(
    args: argparse.Namespace, processes: list[SedimemServer], env: dict[str, str], tmp: Path
) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=processes[0].url, timeout=30) as admin:
        created = await admin.post(
            "/v1/keys", json={"tenant": TENANT}, headers={"Authorization": f"Bearer {ADMIN}"}
        )
        created.raise_for_status()
        secret = created.json()["secret"]
    worker_env = {**os.environ, **env, "SEDIMEM_HOME": str(tmp)}
    workers = [start_worker(worker_env, tmp, n) for n in range(args.workers)]
    headers = {"Authorization": f"Bearer {secret}"}
    # An idle connection is dropped by the client (1 s) well before the server closes it
    # (uvicorn: 5 s), as any client of a keep-alive server should: otherwise a request sent
    # on a connection the server is closing that instant fails (ReadError) through no fault
    # of the server, and would count as an error.
    limits = httpx.Limits(
        max_connections=args.connections,
        max_keepalive_connections=args.connections,
        keepalive_expiry=1.0,
    )
    try:
        async with AsyncExitStack() as stack:
            clients = [
                await stack.enter_async_context(
                    httpx.AsyncClient(
                        base_url=p.url, headers=headers, limits=limits, timeout=args.timeout
                    )
                )
                for p in processes
            ]
            run = Run(
                servers=[Server(p, c) for p, c in zip(processes, clients, strict=True)],
                planned_ops=args.agents * (5 + args.writes),
            )
            agents = [Agent(n) for n in range(args.agents)]
            rng = random.Random(args.seed)
            began = time.monotonic()
            killer = asyncio.create_task(chaos(run, workers))

            async def start(agent: Agent) -> None:
                await asyncio.sleep(args.ramp * agent.number / args.agents)
                await live_one_session(run, agent, args.writes, random.Random(rng.random()))

            tasks = [asyncio.create_task(start(a)) for a in agents]
            _, pending = await asyncio.wait(tasks, timeout=args.max_seconds)
            for task in pending:
                task.cancel()
            seconds = time.monotonic() - began
            for task in tasks:
                if task.done() and not task.cancelled() and task.exception() is not None:
                    run.error(f"agent crashed: {task.exception()!r}")
            kill = await killer if killer.done() else {}
            killer.cancel()
            checked = await verify(run, agents)
        alive_workers = sum(w.poll() is None for w in workers)
    finally:
        for worker in workers:
            end_process(worker, signal.SIGINT, timeout=15)
    return {
        "run": run,
        "seconds": seconds,
        "unfinished": sum(not a.finished for a in agents),
        "workers_alive_at_end": alive_workers,
        **kill,
        **checked,
    }


def percentiles(samples: list[float]) -> dict[str, float]:
    if len(samples) < 2:
        value = samples[0] if samples else 0.0
        return {"p50": value, "p95": value, "p99": value}
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": q[49], "p95": q[94], "p99": q[98]}


def report(
    args: argparse.Namespace, outcome: dict[str, Any], load: tuple[float, float]
) -> dict[str, Any]:
    run: Run = outcome["run"]
    seconds: float = outcome["seconds"]
    print(f"{'operation':10} {'calls':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'calls/s':>8}")
    p95: dict[str, float] = {}
    per_s: dict[str, float] = {}
    for op in OPERATIONS:
        samples = run.latencies.get(op, [])
        q = percentiles(samples)
        p95[op] = round(q["p95"], 1)
        per_s[op] = round(len(samples) / seconds, 1)
        print(
            f"{op:10} {len(samples):6} {q['p50']:8.1f} {q['p95']:8.1f} {q['p99']:8.1f} "
            f"{per_s[op]:8.1f}"
        )
    for sample in run.error_samples:
        print(f"error: {sample}")
    ops = sum(len(v) for v in run.latencies.values())
    summary = {
        "agents": args.agents,
        "servers": args.servers,
        "workers": args.workers,
        "ops": ops,
        "ops_per_s": round(ops / seconds, 1),
        "seconds": round(seconds, 1),
        "errors": run.errors,
        "killed_in_flight": run.killed_in_flight,
        "failovers": run.failovers,
        "lost_writes": outcome["lost_writes"],
        "duplicate_episodes": outcome["duplicate_episodes"],
        "lost_episodes": outcome["lost_episodes"],
        "unfinished": outcome["unfinished"],
        "killed_after_ops": outcome.get("killed_after_ops"),
        "workers_alive_at_end": outcome["workers_alive_at_end"],
        "p95_ms": p95,
        "per_s": per_s,
        "cpus": os.cpu_count(),
        "load_average_start": round(load[0], 2),
        "load_average_end": round(load[1], 2),
    }
    print(json.dumps(summary))
    return summary


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=200, help="simulated agents (200)")
    parser.add_argument("--servers", type=int, default=2, help="sedimem serve processes (2)")
    parser.add_argument("--workers", type=int, default=2, help="sedimem worker processes (2)")
    parser.add_argument("--writes", type=int, default=5, help="kv writes per agent (5)")
    parser.add_argument("--ramp", type=float, default=20.0, help="seconds to start all agents (20)")
    parser.add_argument("--connections", type=int, default=32, help="per server (32)")
    parser.add_argument("--timeout", type=float, default=60.0, help="per call, seconds (60)")
    parser.add_argument("--max-seconds", type=float, default=300.0, help="run deadline (300)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if args.servers < 2 or args.workers < 2:
        parser.error("--servers and --workers must be 2 or more (one of each is killed)")
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="sedimem-load-") as tmpdir:
        tmp = Path(tmpdir)
        with services(args) as (processes, env):
            print(f"{len(processes)} servers up; driving {args.agents} agents", flush=True)
            outcome = asyncio.run(drive(args, processes, env, tmp))
    return report(args, outcome, (load_start, os.getloadavg()[0]))


if __name__ == "__main__":
    main()
