"""Opening a SQLite store's saved index at a million records: what checking it costs.

Writes one index file shaped as a 1M x 384 store's (``--rows``): float32 vectors, a section
the size of its HNSW graph (~540 bytes a row), postings and row columns of the sizes a
LoCoMo-like store has (~2.4 GB in all; random bytes: only sizes matter here). Then, taking
turns on the same file (in the page cache, as after a save or a restart that read it):

- eager (the baseline, what every first search paid before): open checking every section;
- lazy (now): open checking all but the vectors and the graph, then what the first hybrid
  search adds: reading and checking ``--reads`` scattered vectors one by one (what the
  graph's re-scoring reads) and waiting for the graph's check, started at the open on a
  thread of its own.

Prints p50 / p95 / p99 per step, the ratio of lazy to eager, and ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from sedimem.storage.longterm.sqlite.indexfile import read_index_file, write_index_file

LAZY = frozenset({"vectors", "hnsw"})


def percentiles(samples: list[float]) -> dict[str, float]:
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": q[49], "p95": q[94], "p99": q[98]}


def arrays(rows: int, dimension: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    postings = rows * 20
    out: dict[str, np.ndarray] = {
        "rids": np.arange(rows, dtype=np.int64),
        "ids": rng.integers(0, 255, rows * 30, dtype=np.uint8),
        "has_vector": np.ones(rows, dtype=np.bool_),
        "bm25.slots": rng.integers(0, rows, postings, dtype=np.int32),
        "bm25.tfs": rng.random(postings, dtype=np.float32),
        "vectors": rng.random((rows, dimension), dtype=np.float32),
        "hnsw": rng.integers(0, 255, rows * 540, dtype=np.uint8),
    }
    for i in range(7):
        out[f"text.{i}"] = rng.integers(0, 100, rows, dtype=np.int32)
        out[f"number.{i}"] = rng.random(rows)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dimension", type=int, default=384)
    parser.add_argument("--turns", type=int, default=7)
    parser.add_argument("--reads", type=int, default=60, help="vectors the first search reads")
    args = parser.parse_args()
    rng = np.random.default_rng(4)
    steps: dict[str, list[float]] = {
        "eager_open": [],
        "lazy_open": [],
        "lazy_rows": [],
        "lazy_graph_wait": [],
        "lazy_total": [],
    }
    with tempfile.TemporaryDirectory(prefix="sedimem-indexfile-") as tmp:
        path = Path(tmp) / "x.idx"
        start = time.perf_counter()
        size = write_index_file(path, {"seq": 1}, arrays(args.rows, args.dimension))
        written = time.perf_counter() - start
        print(f"file: {size / 1e9:.2f} GB written (hashes included) in {written:.1f} s")
        for _ in range(args.turns):
            t0 = time.perf_counter()
            read_index_file(path)
            steps["eager_open"].append((time.perf_counter() - t0) * 1000)

            t0 = time.perf_counter()
            _, sections = read_index_file(path, lazy=LAZY)
            graph = sections.check_later("hnsw")
            t1 = time.perf_counter()
            rows = sections.rows("vectors")
            assert rows is not None
            rows.take(rng.integers(0, args.rows, args.reads).astype(np.int64))
            t2 = time.perf_counter()
            graph.result()
            t3 = time.perf_counter()
            steps["lazy_open"].append((t1 - t0) * 1000)
            steps["lazy_rows"].append((t2 - t1) * 1000)
            steps["lazy_graph_wait"].append((t3 - t2) * 1000)
            steps["lazy_total"].append((t3 - t0) * 1000)
            del sections, rows, graph
    metrics: dict[str, float] = {"file_gb": size / 1e9, "load_1m": os.getloadavg()[0]}
    print(f"{'step':18} {'p50 ms':>9} {'p95 ms':>9} {'p99 ms':>9}")
    for name, samples in steps.items():
        p = percentiles(samples)
        print(f"{name:18} {p['p50']:>9.1f} {p['p95']:>9.1f} {p['p99']:>9.1f}")
        metrics.update({f"{name}.{k}_ms": v for k, v in p.items()})
    eager = statistics.median(steps["eager_open"])
    metrics["lazy_total_ratio_to_eager_p50"] = statistics.median(steps["lazy_total"]) / eager
    metrics["lazy_open_ratio_to_eager_p50"] = statistics.median(steps["lazy_open"]) / eager
    print(
        f"lazy open + first reads + graph check / eager open (p50): "
        f"{metrics['lazy_total_ratio_to_eager_p50']:.2f}; load {metrics['load_1m']:.1f}"
    )
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))


if __name__ == "__main__":
    main()
