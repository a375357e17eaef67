"""REST over one keep-alive connection: what an agent calling ``sedimem serve`` waits for.

A real ``sedimem serve`` process (SQLite stores in a temporary directory) holds ``--episodes``
episodes (LoCoMo turns when ``--data`` exists, else generated sentences) in one project,
written beforehand through the Python API and indexed (``warm``). One ``httpx.Client``
(one keep-alive connection) then makes ``--calls`` sequential calls of each kind, after 50
of warm-up:

- ``kv_get``: ``GET /v1/sessions/{s}/kv/{key}`` of a working-memory key (a JSON body);
- ``kv_put``: ``PUT`` of the same key (answered 204, no body);
- ``recall``: ``POST /v1/recall`` of episodes, hybrid, k=10, questions in turn.

Prints p50 / p95 / p99 and calls per second per kind, and as its last line
``{"metrics": {...}}`` with ``rest.<kind>.p95_ms`` (recall also ``@<size>``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import httpx

from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.sedimem_server import SedimemServer
from sedimem.types import Episode

ADMIN = "rest-benchmark-admin-key-0123456789"
TENANT = "bench"
PROJECT = "p"
SESSION = "live"
WORDS = (
    "oslo lisbon train flight hotel budget visa museum dinner meeting report deadline "
    "invoice refund client launch release bug deploy review design draft tax garden piano "
    "yoga recipe doctor school holiday birthday wedding concert"
).split()


def percentiles(samples: list[float]) -> dict[str, float]:
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": q[49], "p95": q[94], "p99": q[98]}


def texts(data: Path, count: int, seed: int) -> tuple[list[str], list[str]]:
    """``count`` texts to store and questions to ask (LoCoMo's when ``data`` exists)."""
    rng = random.Random(seed)
    if data.exists():
        conversations = json.loads(data.read_text())
        turns: list[str] = []
        questions: list[str] = []
        for sample in conversations:
            conversation = sample["conversation"]
            for key, session in conversation.items():
                if key.startswith("session_") and isinstance(session, list):
                    turns += [f"{t['speaker']}: {t['text']}" for t in session]
            questions += [str(q["question"]) for q in sample["qa"]]
        stored = [turns[i % len(turns)] for i in range(count)]
        rng.shuffle(questions)
        return stored, questions
    sentences = [" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(count)]
    return sentences, [" ".join(rng.choice(WORDS) for _ in range(6)) for _ in range(500)]


async def populate(store_url: str, stored: list[str]) -> float:
    began = time.perf_counter()
    async with await Memory.open(working="memory://", store=store_url) as memory:
        scope = Scope(tenant=TENANT, project=PROJECT)
        await memory.episodes.record_many(
            [Episode(scope=scope, description=text) for text in stored], batch_size=2000
        )
        warm = getattr(memory.longterm_store, "warm", None)
        if warm is not None:
            await warm(TENANT, wait=True)  # the indexes saved beside the file
    return time.perf_counter() - began


def timed(calls: int, call: Callable[[int], httpx.Response]) -> dict[str, float]:
    for i in range(50):  # warm-up
        call(i).raise_for_status()
    samples = []
    began = time.perf_counter()
    for i in range(calls):
        t0 = time.perf_counter()
        response = call(i)
        samples.append((time.perf_counter() - t0) * 1000)
        response.raise_for_status()
    elapsed = time.perf_counter() - began
    return {**percentiles(samples), "per_s": calls / elapsed}


def run(args: argparse.Namespace) -> dict[str, float]:
    stored, questions = texts(args.data, args.episodes, args.seed)
    metrics: dict[str, float] = {"load_average_start": os.getloadavg()[0]}
    with tempfile.TemporaryDirectory(prefix="sedimem-rest-") as tmp:
        store_url = f"sqlite:///{tmp}/store.db"
        metrics["populate_s"] = asyncio.run(populate(store_url, stored))
        print(f"{len(stored):,} episodes written in {metrics['populate_s']:.1f} s", flush=True)
        env = {
            "SEDIMEM_ADMIN_KEY": ADMIN,
            "SEDIMEM_STORE_URL": store_url,
            "SEDIMEM_WORKING_URL": f"sqlite:///{tmp}/working.db",
        }
        with SedimemServer(env=env) as server:
            with httpx.Client(base_url=server.url, timeout=30) as admin:
                answer = admin.post(
                    "/v1/keys",
                    json={"tenant": TENANT},
                    headers={"Authorization": f"Bearer {ADMIN}"},
                )
                answer.raise_for_status()
                secret = answer.json()["secret"]
            headers = {"Authorization": f"Bearer {secret}"}
            with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
                kv = f"/v1/sessions/{SESSION}/kv/plan"
                params = {"project": PROJECT}
                value = {"value": {"step": 3, "notes": "compare train and flight prices"}}
                client.put(kv, params=params, json=value).raise_for_status()
                put = client.put
                results = {
                    "kv_get": timed(args.calls, lambda i: client.get(kv, params=params)),
                    "kv_put": timed(args.calls, lambda i: put(kv, params=params, json=value)),
                    "recall": timed(
                        args.calls,
                        lambda i: client.post(
                            "/v1/recall",
                            json={
                                "query": questions[i % len(questions)],
                                "project": PROJECT,
                                "tiers": ["episodes"],
                                "k": 10,
                            },
                        ),
                    ),
                }
    metrics["load_average_end"] = os.getloadavg()[0]
    label = f"@{args.episodes // 1000}k" if args.episodes % 1000 == 0 else f"@{args.episodes}"
    print(f"{'call':10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'calls/s':>9}")
    for kind, result in results.items():
        print(
            f"{kind:10} {result['p50']:8.2f} {result['p95']:8.2f} {result['p99']:8.2f} "
            f"{result['per_s']:9.0f}"
        )
        suffix = label if kind == "recall" else ""
        for stat, value in result.items():
            name = f"rest.{kind}.{stat}" if stat == "per_s" else f"rest.{kind}.{stat}_ms"
            metrics[name + suffix] = value
    return metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo10.json"))
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=1_000)
    parser.add_argument("--seed", type=int, default=7)
    metrics = run(parser.parse_args())
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))


if __name__ == "__main__":
    main()
