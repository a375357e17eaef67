"""Store-level recall benchmark: the SQLite long-term store at 10k and 100k records.

All records sit in one scope (the worst case for a per-scope index), with text drawn from a
Zipf-distributed vocabulary (so BM25 posting lists have realistic lengths: a few terms in
almost every record, most in very few) and random normalised vectors. Measured, per size:

- ingest through ``put()`` in batches of 1000 (records/s);
- the in-memory index build (first search) time;
- ``keyword_search`` and ``vector_search`` latency (p50 / p95 / p99), and both in a row
  (what hybrid recall costs the store);
- baselines measured in the same run: plain numpy exact search over the same matrix, and
  FTS5 ``ORDER BY bm25`` on the same file (a store opened without an index engine), with ratios;
- optionally (``--hnsw``) the HNSW path after its background build, with recall@k.

Prints a table and, as its last line, ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import numpy as np

from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter, StoredRecord
from sedimem.storage.longterm.sqlite import SqliteLongTermStore

TENANT = "bench"
SCOPE = Scope(tenant=TENANT, project="p", user="u")
FILTER = RecordFilter(kind="episode", visible_to=SCOPE)
BATCH = 1000


class Corpus:
    """Deterministic synthetic text and vectors."""

    def __init__(
        self, dim: int, vocabulary: int = 30_000, seed: int = 7, clustered: bool = False
    ) -> None:
        self.rng = np.random.default_rng(seed)
        self.dim = dim
        # Embeddings of real text cluster by topic; isotropic random vectors are the worst
        # case for any HNSW graph (all neighbours nearly equidistant).
        self.centres = (
            self.rng.standard_normal((1000, dim)).astype(np.float32) if clustered else None
        )
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        words = set()
        while len(words) < vocabulary:
            size = int(self.rng.integers(3, 10))
            words.add("".join(self.rng.choice(letters, size)))
        self.words = np.array(sorted(words))
        ranks = np.arange(1, vocabulary + 1, dtype=np.float64)
        weights = 1.0 / ranks**1.07
        self.p = weights / weights.sum()
        self._drawn = np.empty(0, dtype=np.int64)
        self._next = 0

    def text(self, count: int) -> str:
        # Draw words in large blocks: a weighted draw costs O(vocabulary) per call.
        if self._next + count > len(self._drawn):
            self._drawn = self.rng.choice(len(self.words), size=1_000_000, p=self.p)
            self._next = 0
        picked = self._drawn[self._next : self._next + count]
        self._next += count
        return " ".join(self.words[picked])

    def vectors(self, count: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        v = self.rng.standard_normal((count, self.dim), dtype=np.float32)
        if self.centres is not None:
            v = self.centres[self.rng.integers(0, len(self.centres), count)] + 1.2 * v
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def records(self, start: int, count: int) -> list[StoredRecord]:
        vectors = self.vectors(count)
        return [
            StoredRecord(
                id=f"{start + i:032d}",
                kind="episode",
                tenant=TENANT,
                project="p",
                user="u",
                agent_type="coder",
                agent="a1",
                session=f"s{(start + i) // 50}",
                text=self.text(int(self.rng.integers(20, 60))),
                occurred_at=1_700_000_000.0 + start + i,
                importance=float(self.rng.random()),
                body="{}",
                vector=vectors[i],
                outcome="success",
                task_type="chat",
            )
            for i in range(count)
        ]

    def query_terms(self) -> list[str]:
        """A natural-language-ish question: a few common words and a few rarer ones."""
        common = self.rng.choice(self.words[:200], size=3)
        rare = self.rng.choice(self.words, size=3, p=self.p)
        return [str(w) for w in (*common, *rare)]


def percentiles(samples: list[float]) -> dict[str, float]:
    ms = np.array(samples) * 1000.0
    return {f"p{q}": float(np.percentile(ms, q)) for q in (50, 95, 99)}


async def timed(fn: Callable[[int], Awaitable[Any]], count: int) -> list[float]:
    out = []
    for i in range(count):
        start = time.perf_counter()
        await fn(i)
        out.append(time.perf_counter() - start)
    return out


async def run_size(size: int, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    corpus = Corpus(args.dim, clustered=args.vectors == "clustered")
    path = str(workdir / f"bench-{size}.db")
    store = await SqliteLongTermStore.open(path, index=MemoryIndexEngine(hnsw_threshold=None))
    await store.bind_embedder("bench", args.dim)
    matrix = np.empty((size, args.dim), dtype=np.float32)
    put_seconds = 0.0
    for start in range(0, size, BATCH):
        batch = corpus.records(start, min(BATCH, size - start))
        for i, r in enumerate(batch):
            assert r.vector is not None
            matrix[start + i] = r.vector
        t0 = time.perf_counter()
        await store.put(TENANT, batch)
        put_seconds += time.perf_counter() - t0
    t0 = time.perf_counter()
    await store.warm(TENANT, "episode")
    build = time.perf_counter() - t0

    queries = corpus.vectors(args.queries)
    terms = [corpus.query_terms() for _ in range(args.queries)]
    await store.keyword_search(TENANT, FILTER, terms[0], args.k)  # warm the filter cache
    keyword = await timed(
        lambda i: store.keyword_search(TENANT, FILTER, terms[i], args.k), args.queries
    )
    vector = await timed(
        lambda i: store.vector_search(TENANT, FILTER, queries[i], args.k), args.queries
    )

    async def hybrid(i: int) -> None:
        await store.keyword_search(TENANT, FILTER, terms[i], 50)
        await store.vector_search(TENANT, FILTER, queries[i], 50)

    both = await timed(hybrid, args.queries)

    async def numpy_exact(i: int) -> None:
        scores = matrix @ queries[i]
        top = np.argpartition(-scores, args.k)[: args.k]
        top[np.argsort(-scores[top])]

    baseline = await timed(numpy_exact, args.queries)
    await store.aclose()

    fts = await SqliteLongTermStore.open(path)
    fts_keyword = await timed(
        lambda i: fts.keyword_search(TENANT, FILTER, terms[i], args.k), min(args.queries, 100)
    )
    await fts.aclose()

    result: dict[str, Any] = {
        "size": size,
        "put_per_s": size / put_seconds,
        "index_build_s": build,
        "keyword": percentiles(keyword),
        "vector_exact": percentiles(vector),
        "hybrid_k50": percentiles(both),
        "numpy_baseline": percentiles(baseline),
        "fts5_keyword": percentiles(fts_keyword),
    }
    if args.hnsw:
        result.update(await run_hnsw(path, args, queries, terms, matrix))
    return result


async def run_hnsw(
    path: str,
    args: argparse.Namespace,
    queries: np.ndarray[Any, Any],
    terms: list[list[str]],
    matrix: np.ndarray[Any, Any],
) -> dict[str, Any]:
    store = await SqliteLongTermStore.open(
        path, index=MemoryIndexEngine(hnsw_threshold=1, hnsw_background=True)
    )
    t0 = time.perf_counter()
    await store.warm(TENANT, "episode", wait=True)
    build = time.perf_counter() - t0
    hits: list[list[tuple[str, float]]] = []

    async def search(i: int) -> None:
        hits.append(await store.vector_search(TENANT, FILTER, queries[i], args.k))

    latency = await timed(search, args.queries)

    async def hybrid(i: int) -> None:
        await store.keyword_search(TENANT, FILTER, terms[i], 50)
        await store.vector_search(TENANT, FILTER, queries[i], 50)

    both = await timed(hybrid, args.queries)
    await store.aclose()
    recall = []
    for i, found in enumerate(hits):
        exact = np.argsort(-(matrix @ queries[i]))[: args.k]
        recall.append(len({int(h[0]) for h in found} & set(exact.tolist())) / args.k)
    return {
        "hnsw_build_s": build,
        "vector_hnsw": percentiles(latency),
        "hybrid_k50_hnsw": percentiles(both),
        "hnsw_recall_at_k": float(np.mean(recall)),
    }


def table(results: list[dict[str, Any]]) -> str:
    lines = [f"{'size':>8} {'metric':<16} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8}"]
    for r in results:
        for name in (
            "keyword",
            "fts5_keyword",
            "vector_exact",
            "vector_hnsw",
            "numpy_baseline",
            "hybrid_k50",
            "hybrid_k50_hnsw",
        ):
            if name in r:
                p = r[name]
                lines.append(
                    f"{r['size']:>8} {name:<16} {p['p50']:>8.2f} {p['p95']:>8.2f} {p['p99']:>8.2f}"
                )
        lines.append(
            f"{r['size']:>8} put {r['put_per_s']:,.0f} records/s; index build "
            f"{r['index_build_s']:.2f} s"
            + (
                f"; HNSW build {r['hnsw_build_s']:.1f} s, recall@k {r['hnsw_recall_at_k']:.3f}"
                if "hnsw_build_s" in r
                else ""
            )
        )
        ratio_v = r["vector_exact"]["p95"] / r["numpy_baseline"]["p95"]
        ratio_k = r["keyword"]["p95"] / r["fts5_keyword"]["p95"]
        lines.append(
            f"{r['size']:>8} p95 ratios: vector/numpy {ratio_v:.2f}x, keyword/FTS5 {ratio_k:.2f}x"
        )
    return "\n".join(lines)


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--hnsw", action="store_true", help="also build and time HNSW (slow)")
    parser.add_argument("--vectors", choices=["random", "clustered"], default="random")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory(prefix="sedimem-bench-") as tmp:
        for size in (int(s) for s in args.sizes.split(",")):
            results.append(await run_size(size, args, Path(tmp)))
            print(f"done: {size}", file=sys.stderr, flush=True)
    print(table(results))
    metrics: dict[str, float] = {}
    for r in results:
        for key, value in r.items():
            if isinstance(value, dict):
                for q, v in value.items():
                    metrics[f"{r['size']}_{key}_{q}_ms"] = round(v, 3)
            elif key != "size":
                metrics[f"{r['size']}_{key}"] = round(float(value), 3)
    print(json.dumps({"metrics": metrics}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
