"""Reflection benchmark: all four reflection calls over 1,000 episodes in a SQLite store.

Synthetic episodes (deterministic): 8 task types, a 30-action vocabulary, 3..8 actions
per episode, outcomes with planted effects (a helpful action, a harmful one, a task type
whose failure rate jumps in the last week), failure details from a small phrase list,
log-normal durations and token counts with a few 10x outliers, spread over 60 days. They
are written through ``EpisodicMemory.record_many`` (HashEmbedder), then
``Reflection.reflect()`` (patterns, success factors for every task type, anomalies,
insights, from one paged read of the store) is timed repeatedly, and separately its two
halves: reading the episodes, and the analysis of the list.

Prints a table and, as its last line, ``{"metrics": {...}}``. Target (issue):
``reflect.seconds@1000`` (p95) <= 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from sedimem.embed import HashEmbedder
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.stores import open_longterm_store
from sedimem.reflection import Reflection, reflect
from sedimem.scope import Scope
from sedimem.types import Episode, Outcome

SCOPE = Scope(tenant="bench", project="p", agent_type="coder")
NOW = datetime(2026, 3, 1, tzinfo=UTC)
TASK_TYPES = ["deploy", "review", "debug", "refactor", "migrate", "docs", "triage", "release"]
ACTIONS = [f"step-{i:02d}" for i in range(28)] + ["run tests", "force push"]
FAILURES = [
    "timeout waiting for the build agent",
    "merge conflict in the lock file",
    "tests failed on the integration suite",
    "permission denied on the registry",
    "rate limited by the upstream API",
]
TARGET_SECONDS = 1.0


def synthetic(count: int, seed: int = 11) -> list[Episode]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        task = TASK_TYPES[i % len(TASK_TYPES)]
        actions = rng.sample(ACTIONS, rng.randint(3, 8))
        days_ago = rng.uniform(0, 60)
        p_success = 0.7
        if "run tests" in actions:
            p_success = 0.95
        if "force push" in actions:
            p_success = 0.2
        if task == "migrate" and days_ago < 7:
            p_success = 0.05
        draw = rng.random()
        outcome = (
            Outcome.SUCCESS
            if draw < p_success
            else Outcome.FAILURE
            if draw < p_success + (1 - p_success) * 0.8
            else Outcome.PARTIAL
        )
        duration = rng.lognormvariate(4.5, 0.3) * (10 if i % 250 == 7 else 1)
        tokens = int(rng.lognormvariate(7.5, 0.25) * (10 if i % 333 == 5 else 1))
        out.append(
            Episode(
                scope=SCOPE,
                task_type=task,
                description=f"{task} job {i}: " + " ".join(actions),
                actions=actions,
                outcome=outcome,
                outcome_details="" if outcome is Outcome.SUCCESS else rng.choice(FAILURES),
                lessons_learned=["check the pipeline before pushing"] if i % 5 == 0 else [],
                importance=rng.random(),
                duration_seconds=duration,
                tokens_used=tokens,
                occurred_at=NOW - timedelta(days=days_ago),
            )
        )
    return out


def percentiles(samples: list[float]) -> dict[str, float]:
    values = np.array(samples)
    return {f"p{q}": float(np.percentile(values, q)) for q in (50, 95, 99)}


async def timed(fn: Callable[[], Awaitable[Any]], repeat: int) -> list[float]:
    await fn()  # warm-up (imports, page cache, in-memory indexes)
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        await fn()
        samples.append(time.perf_counter() - start)
    return samples


async def run_size(size: int, repeat: int, workdir: Path) -> dict[str, Any]:
    store = await open_longterm_store(f"sqlite:///{workdir / f'reflect-{size}.db'}")
    embedder = HashEmbedder(64)
    await store.bind_embedder(embedder.name, embedder.dimension)
    try:
        memory = EpisodicMemory(store, embedder)
        episodes = synthetic(size)
        start = time.perf_counter()
        await memory.record_many(episodes)
        ingest = time.perf_counter() - start
        reflection = Reflection(memory)
        loaded, _ = await reflection.load(SCOPE)

        async def full() -> Any:
            return await reflection.reflect(SCOPE, now=NOW)

        async def load() -> Any:
            return await reflection.load(SCOPE)

        async def analysis() -> Any:
            return reflect(loaded, reflection.settings, now=NOW)

        report = await full()
        whole = percentiles(await timed(full, repeat))
        reading = percentiles(await timed(load, repeat))
        computing = percentiles(await timed(analysis, repeat))
    finally:
        await store.aclose()
    return {
        "size": size,
        "ingest_per_second": size / ingest,
        "reflect": whole,
        "load": reading,
        "analysis": computing,
        "episodes_analyzed": report.episodes_analyzed,
        "insights": report.insights.total,
        "success_patterns": len(report.patterns.success_patterns),
        "failure_patterns": len(report.patterns.failure_patterns),
        "factor_reports": len(report.success_factors),
        "anomalies": len(report.anomalies.duration_anomalies)
        + len(report.anomalies.token_anomalies)
        + len(report.anomalies.failure_rate_shifts),
        "top_insights": [i.statement for i in report.insights.insights[:5]],
    }


async def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000", help="comma-separated episode counts")
    parser.add_argument("--repeat", type=int, default=30, help="timed runs per measurement")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    metrics: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for size in sizes:
            result = await run_size(size, args.repeat, Path(tmp))
            print(
                f"{size:>7} episodes  ingest {result['ingest_per_second']:,.0f}/s  "
                f"{result['insights']} insights, {result['anomalies']} anomalies, "
                f"{result['factor_reports']} factor reports"
            )
            for part in ("reflect", "load", "analysis"):
                p = result[part]
                print(
                    f"        {part:<9} p50 {p['p50']:.4f} s  p95 {p['p95']:.4f} s  "
                    f"p99 {p['p99']:.4f} s"
                )
            for statement in result["top_insights"]:
                print(f"        - {statement}")
            metrics[f"reflect.seconds@{size}"] = result["reflect"]["p95"]
            metrics[f"reflect.seconds_p50@{size}"] = result["reflect"]["p50"]
            metrics[f"reflect.seconds_p99@{size}"] = result["reflect"]["p99"]
            metrics[f"reflect.load_seconds_p50@{size}"] = result["load"]["p50"]
            metrics[f"reflect.analysis_seconds_p50@{size}"] = result["analysis"]["p50"]
            metrics[f"reflect.insights@{size}"] = result["insights"]
            metrics[f"reflect.ingest_per_second@{size}"] = result["ingest_per_second"]
    if "reflect.seconds@1000" in metrics:
        ok = metrics["reflect.seconds@1000"] <= TARGET_SECONDS
        print(f"{'ok  ' if ok else 'MISS'} reflect.seconds@1000 (p95) <= {TARGET_SECONDS} s")
        metrics["targets_met"] = ok
    print(json.dumps({"metrics": metrics}))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
