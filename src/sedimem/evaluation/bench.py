"""``sedimem bench``: a quick benchmark of the stores this installation would use.

It times, one call at a time, working-memory ``set``/``get`` against a plain ``dict`` and
episodic ``recall`` against an exact numpy search over the same vectors (baselines measured
in the same run, so a busy machine slows both), and ingest through ``record_many``. The
thorough benchmarks, with their targets, are the scripts in the repository's
``benchmarks/`` directory.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sedimem.access import Access
from sedimem.errors import ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.longterm import Episode

__all__ = ["BenchResult", "Timing", "run_bench"]

_TOPICS = ("invoice", "deploy", "refund", "migration", "meeting", "travel", "report", "login")
_VERBS = ("fixed", "reviewed", "planned", "failed to finish", "automated", "explained")


@dataclass(frozen=True)
class Timing:
    """Latency percentiles (milliseconds) and throughput of one operation."""

    name: str
    p50_ms: float
    p95_ms: float
    p99_ms: float
    per_second: float
    baseline: str | None = None
    baseline_p95_ms: float | None = None

    @property
    def ratio(self) -> float | None:
        """p95 relative to the baseline's p95 (None without a baseline)."""
        if not self.baseline_p95_ms:
            return None
        return self.p95_ms / self.baseline_p95_ms


@dataclass
class BenchResult:
    episodes: int
    timings: list[Timing] = field(default_factory=list)
    ingest_per_s: float = 0.0

    def metrics(self) -> dict[str, float]:
        """Flat ``name.stat`` figures, the JSON line's payload."""
        out: dict[str, float] = {"ingest_per_s": round(self.ingest_per_s, 1)}
        for t in self.timings:
            out[f"{t.name}.p50_ms"] = round(t.p50_ms, 4)
            out[f"{t.name}.p95_ms"] = round(t.p95_ms, 4)
            out[f"{t.name}.p99_ms"] = round(t.p99_ms, 4)
            out[f"{t.name}.per_s"] = round(t.per_second, 1)
            if t.ratio is not None:
                out[f"{t.name}.ratio_to_baseline"] = round(t.ratio, 2)
        return out


def _episode(i: int, scope: Scope) -> Episode:
    topic, verb = _TOPICS[i % len(_TOPICS)], _VERBS[(i // len(_TOPICS)) % len(_VERBS)]
    return Episode(
        scope=scope,
        task_type=topic,
        description=f"Episode {i}: the agent {verb} the {topic} task for customer {i % 97}.",
        actions=[f"open {topic}", f"{verb} step {i % 5}"],
        importance=(i % 10) / 10,
    )


async def _time(calls: int, op: Callable[[int], Awaitable[Any]]) -> list[float]:
    samples = []
    for i in range(calls):
        start = time.perf_counter()
        await op(i)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _summary(
    name: str, samples: list[float], baseline: tuple[str, list[float]] | None = None
) -> Timing:
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    base_name, base_p95 = None, None
    if baseline is not None:
        base_name = baseline[0]
        base_p95 = statistics.quantiles(baseline[1], n=100, method="inclusive")[94]
    return Timing(
        name=name,
        p50_ms=statistics.median(samples),
        p95_ms=cuts[94],
        p99_ms=cuts[98],
        per_second=len(samples) / (sum(samples) / 1000),
        baseline=base_name,
        baseline_p95_ms=base_p95,
    )


async def run_bench(
    memory: Memory,
    *,
    episodes: int = 2000,
    queries: int = 200,
    progress: Callable[[str, int], None] | None = None,
) -> BenchResult:
    """Fill a fresh tenant with ``episodes``, then time working memory and recall."""
    if not 100 <= episodes <= 1_000_000:
        raise ValidationError("episodes", f"{episodes} is out of range", allowed="100..1000000")
    if not 20 <= queries <= 100_000:
        raise ValidationError("queries", f"{queries} is out of range", allowed="20..100000")
    tick = progress or (lambda _stage, _n: None)
    scope = Scope(tenant=f"bench-{time.time_ns()}", user="bench", session="bench")
    result = BenchResult(episodes=episodes)
    try:
        await _bench(memory, scope, result, queries, tick)
    finally:
        await memory.forget(Access.local(scope.tenant), user="bench")  # leave the store as it was
    return result


async def _bench(
    memory: Memory,
    scope: Scope,
    result: BenchResult,
    queries: int,
    tick: Callable[[str, int], None],
) -> None:
    wm = memory.working(scope)
    plain: dict[str, Any] = {}
    value = {"text": "x" * 64, "n": 1}

    async def plain_set(i: int) -> None:
        plain[f"k{i % 100}"] = value

    async def plain_get(i: int) -> None:
        plain.get(f"k{i % 100}")

    wm_set = await _time(queries, lambda i: wm.set(f"k{i % 100}", value))
    wm_get = await _time(queries, lambda i: wm.get(f"k{i % 100}"))
    result.timings.append(
        _summary("working.set", wm_set, ("dict", await _time(queries, plain_set)))
    )
    result.timings.append(
        _summary("working.get", wm_get, ("dict", await _time(queries, plain_get)))
    )
    tick("working", 1)

    batch = [_episode(i, scope) for i in range(result.episodes)]
    start = time.perf_counter()
    await memory.episodes.record_many(batch, progress=lambda n: tick("ingest", n))
    result.ingest_per_s = len(batch) / (time.perf_counter() - start)

    texts = [f"{_TOPICS[i % len(_TOPICS)]} task for customer {i % 97}" for i in range(queries)]
    vectors = memory.embedder.embed(texts)
    matrix = memory.embedder.embed([e.description for e in batch])
    owner = scope.owner

    async def exact(i: int) -> None:
        # the baseline: brute-force cosine over every vector, no filters, no fusion
        np.argpartition(-(matrix @ vectors[i]), 10)[:10]

    async def recall(i: int) -> None:
        await memory.episodes.recall(texts[i], scope=owner, k=10)
        tick("recall", 1)

    await memory.episodes.recall(texts[0], scope=owner, k=10)  # build any lazy index first
    samples = await _time(queries, recall)
    result.timings.append(_summary("recall", samples, ("numpy exact", await _time(queries, exact))))
