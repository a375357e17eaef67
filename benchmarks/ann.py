"""The approximate vector structures of the SQLite store's index, on raw vectors: an IVF
partition (``retrieval/index/ivf.py``) against the HNSW graph (``retrieval/index/hnsw.py``),
with numpy's exact search as the baseline, all in the same run.

Vectors: ``--size`` LoCoMo turns recombined into episodes (as ``benchmarks.recall`` makes
them), embedded with the default embedder. Queries: LoCoMo questions that
``benchmarks.recall`` does NOT ask (its sample of 300 is left out), so that settings chosen
here are not judged on the questions the store benchmark reports.

Per structure: build wall time and process CPU, then per query the candidates proposed for
k=10 re-scored exactly in float32 (as ``vector_search`` does: ``--rescore`` of them), its
latency p50 / p95 / p99 and throughput, and R@10 (the share of numpy's exact top 10 found).
``--probes`` lists several probe counts for the partition (default: its own rule).
Prints a table and, last, ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.recall import load_text
from sedimem.embed import default_embedder
from sedimem.retrieval.index.hnsw import HnswGraph
from sedimem.retrieval.index.ivf import Partition, probe_count


def percentiles(samples: list[float]) -> dict[str, float]:
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": q[49], "p95": q[94], "p99": q[98]}


def held_out_questions(data: Path, count: int, size: int) -> list[str]:
    """LoCoMo questions outside the sample ``benchmarks.recall`` asks at ``size`` (its
    sample depends on the size: the texts are drawn first); synthetic ones without data."""
    if not data.exists():
        return load_text(data, 10, count, seed=11)[1]
    raw = json.loads(data.read_text())
    every = list(dict.fromkeys(qa["question"] for conv in raw for qa in conv["qa"]))
    _, asked = load_text(data, size, 300)
    reported = set(asked)
    return [q for q in every if q not in reported][:count]


def timed(
    search: Callable[[np.ndarray], np.ndarray],
    queries: np.ndarray,
    exact: list[set[int]],
    rows: np.ndarray,
) -> dict[str, float]:
    samples: list[float] = []
    found = 0
    for query, top in zip(queries, exact, strict=True):
        start = time.perf_counter()
        slots = search(query)
        best = slots[np.argsort(-(rows[slots] @ query))[:10]]
        samples.append((time.perf_counter() - start) * 1000)
        found += len(set(best.tolist()) & top)
    return {
        **{f"{k}_ms": v for k, v in percentiles(samples).items()},
        "qps": 1000 * len(samples) / sum(samples),
        "r10": found / (10 * len(exact)),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo10.json"))
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rescore", type=int, default=100)
    parser.add_argument("--probes", default="", help="e.g. 16,24,32 (default: the rule's)")
    parser.add_argument("--no-graph", action="store_true", help="skip the HNSW graph")
    parser.add_argument("--vectors", type=Path, help="a .npy of vectors to use instead")
    args = parser.parse_args(argv)
    if args.vectors is not None:
        rows = np.ascontiguousarray(np.load(args.vectors, mmap_mode="r")[: args.size])
    else:
        texts, _ = load_text(args.data, args.size, 300)
        rows = default_embedder().embed(texts)
    queries = default_embedder().embed(held_out_questions(args.data, args.queries, args.size))
    results: dict[str, dict[str, float]] = {}

    exact_tops = [set(np.argpartition(-(rows @ q), 10)[:10].tolist()) for q in queries]
    results["numpy exact"] = timed(
        lambda q: np.argpartition(-(rows @ q), 10)[:10], queries, exact_tops, rows
    )

    wall, cpu = time.perf_counter(), time.process_time()
    partition = Partition.build(rows)
    built = {"build_s": time.perf_counter() - wall, "build_cpu_s": time.process_time() - cpu}
    lists = int(partition.centroids.shape[0])
    for probes in [int(p) for p in args.probes.split(",") if p] or [probe_count(lists)]:
        name = f"ivf {lists} lists, {probes} probes"
        results[name] = {
            **built,
            **timed(
                lambda q, p=probes: partition.search(q, args.rescore, probes=p),
                queries,
                exact_tops,
                rows,
            ),
        }

    if not args.no_graph:
        wall, cpu = time.perf_counter(), time.process_time()
        graph = HnswGraph(rows.shape[1], None)
        graph.complete(rows.shape[0], lambda start: rows[start:])
        built = {"build_s": time.perf_counter() - wall, "build_cpu_s": time.process_time() - cpu}
        results["hnsw (kept settings)"] = {
            **built,
            **timed(lambda q: graph.search(q, args.rescore), queries, exact_tops, rows),
        }

    base = results["numpy exact"]["p95_ms"]
    load = os.getloadavg()[0]
    print(f"{args.size} vectors, {len(queries)} held-out questions, load {load:.2f}")
    heads = ("build s", "cpu s", "p50", "p95", "p99", "q/s", "R@10", "p95/numpy")
    print(f"{'':34} " + " ".join(f"{h:>9}" for h in heads))
    metrics: dict[str, float] = {"load_1m": load}
    for name, r in results.items():
        cells = (r.get("build_s", 0.0), r.get("build_cpu_s", 0.0), r["p50_ms"], r["p95_ms"])
        cells += (r["p99_ms"], r["qps"], r["r10"], r["p95_ms"] / base)
        print(f"{name:34} " + " ".join(f"{c:9.3f}" for c in cells))
        key = name.replace(" ", "_").replace(",", "")
        metrics.update({f"{key}.{k}": v for k, v in r.items()})
    print(json.dumps({"metrics": metrics}))


if __name__ == "__main__":
    main()
