"""Store-level micro-benchmark of the PostgreSQL long-term store (pgvector + tsvector).

For each size (default 10k and 100k records, all in one scope) it loads synthetic records
(text drawn from a Zipf vocabulary whose head is English stopwords, random L2-normalised
vectors) in batches of 1,000, then times ``keyword_search``, ``vector_search`` and both at
once (what hybrid recall does) with the scope's visibility filter, plus a vector search
under a selective filter (1 % of the records) that must still return ``k`` rows.

Prints a table and, as the last line, ``{"metrics": {...}}``. Starts its own server
(``PostgresServer``) unless ``--url`` names a database.

    python benchmarks/recall_postgres.py [--sizes 10000,100000] [--queries 300] [--k 10]
        [--vectors random|lowrank]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from pgvector.psycopg import register_vector_async

from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter, StoredRecord
from sedimem.storage.longterm.postgres import PostgresLongTermStore
from sedimem.storage.longterm.postgres.schema import RECORD_COLUMNS, vector_index_ddl
from sedimem.testing.postgres_server import PostgresServer

STOPWORDS = (
    "the a to and of i you it in is that was for on my with he have be me this but so we "
    "at not are they all just what do she as her if or like his there about had an when "
    "out up can from would were know get one will no your its them then how did our some "
    "been has by more were him too who which their than into could now also very"
).split()
SCOPE = Scope(tenant="bench", project="p", user="u", agent_type="assistant", agent="a1")
LOWRANK = 24
BATCH = 1000
PUT_RECORDS = 2000  # put through the store, in batches of BATCH, after the bulk load
QUERY_SCOPE = Scope(tenant="bench", project="p", user="u", agent_type="assistant", session="s9")


@dataclass
class Corpus:
    vocabulary: list[str]
    probabilities: np.ndarray[Any, np.dtype[np.float64]]
    rng: np.random.Generator
    lowrank: bool = False
    basis: np.ndarray[Any, np.dtype[np.float32]] | None = None

    @classmethod
    def make(cls, size: int, seed: int, *, lowrank: bool = False) -> Corpus:
        rng = np.random.default_rng(seed)
        letters = np.array(list("abcdefghijklmnoprstuvwy"))
        words: set[str] = set()
        while len(words) < size:
            length = int(rng.integers(4, 10))
            words.add("".join(rng.choice(letters, length)))
        vocabulary = list(dict.fromkeys(STOPWORDS)) + sorted(words)
        weights = 1.0 / np.arange(1, len(vocabulary) + 1, dtype=np.float64)
        return cls(vocabulary, weights / weights.sum(), rng, lowrank)

    def words(self, count: int) -> list[str]:
        picks = self.rng.choice(len(self.vocabulary), size=count, p=self.probabilities)
        return [self.vocabulary[i] for i in picks]

    def text(self) -> str:
        return " ".join(self.words(int(self.rng.integers(15, 60))))

    def vectors(self, count: int, dim: int) -> np.ndarray[Any, np.dtype[np.float32]]:
        """Uniform on the sphere (``random``: HNSW's worst case), or ``lowrank``: a random
        24-dimensional subspace plus a little noise, closer to real embeddings, whose
        neighbourhoods have a low intrinsic dimension."""
        if self.lowrank:
            if self.basis is None or self.basis.shape[1] != dim:
                self.basis = self.rng.standard_normal((LOWRANK, dim)).astype(np.float32)
            latent = self.rng.standard_normal((count, LOWRANK)).astype(np.float32)
            noise = 0.05 * self.rng.standard_normal((count, dim)).astype(np.float32)
            matrix = latent @ self.basis / np.sqrt(LOWRANK) + noise
        else:
            matrix = self.rng.standard_normal((count, dim)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix


def records(corpus: Corpus, start: int, count: int, dim: int) -> list[StoredRecord]:
    vectors = corpus.vectors(count, dim)
    out = []
    for offset in range(count):
        i = start + offset
        out.append(
            StoredRecord(
                id=f"{i:012d}-{uuid.uuid4().hex[:8]}",
                kind="episode",
                tenant=SCOPE.tenant,
                project=SCOPE.project,
                user=SCOPE.user,
                agent_type=SCOPE.agent_type,
                agent=SCOPE.agent,
                session=None,
                text=corpus.text(),
                occurred_at=1.7e9 + i,
                importance=float(corpus.rng.random()),
                body="{}",
                vector=vectors[offset],
                task_type="rare" if i % 100 == 0 else "common",
            )
        )
    return out


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)

    def pick(q: float) -> float:
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] * 1000

    return {
        "p50": pick(0.50),
        "p95": pick(0.95),
        "p99": pick(0.99),
        "mean": statistics.fmean(ordered) * 1000,
    }


async def timed(calls: list[Callable[[], Awaitable[Any]]]) -> tuple[list[float], list[Any]]:
    for call in calls[:10]:  # warm up
        await call()
    latencies, results = [], []
    for call in calls:
        start = time.perf_counter()
        results.append(await call())
        latencies.append(time.perf_counter() - start)
    return latencies, results


async def bulk_load(url: str, rows: list[StoredRecord], dim: int) -> float:
    """COPY ``rows`` with the HNSW index dropped, then rebuild it; returns the seconds taken.

    Benchmark-only: on pgvector 0.6 an HNSW insert costs milliseconds, an index build a
    fraction of that per row, so the bulk of a large corpus is loaded this way.
    """
    store_rows = [_columns(row) for row in rows]
    columns = ", ".join(f'"{c}"' for c in RECORD_COLUMNS)
    began = time.perf_counter()
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await register_vector_async(conn)
        await conn.execute("DROP INDEX IF EXISTS sedimem_lt_records_embedding_hnsw")
        async with conn.cursor() as cursor:
            copy_sql = f"COPY sedimem_lt_records ({columns}) FROM STDIN"
            async with cursor.copy(copy_sql.encode()) as copy:
                for row in store_rows:
                    await copy.write_row(row)
        await conn.execute(vector_index_ddl(dim))
    return time.perf_counter() - began


def _columns(record: StoredRecord) -> list[Any]:
    return [
        list(record.sources)
        if c == "sources"
        else record.vector
        if c == "embedding"
        else getattr(record, c)
        for c in RECORD_COLUMNS
    ]


def recall(results: list[list[tuple[str, float]]], truth: list[set[str]]) -> float:
    found = [
        len(truth_ids & {id_ for id_, _ in got}) / max(1, len(truth_ids))
        for got, truth_ids in zip(results, truth, strict=True)
    ]
    return statistics.fmean(found)


def exact_top(
    ids: np.ndarray[Any, Any], matrix: np.ndarray[Any, Any], queries: np.ndarray[Any, Any], k: int
) -> list[set[str]]:
    scores = queries @ matrix.T
    top = np.argsort(-scores, axis=1)[:, :k]
    return [set(ids[row].tolist()) for row in top]


async def run_size(
    url: str, size: int, queries: int, k: int, dim: int, *, lowrank: bool
) -> dict[str, Any]:
    corpus = Corpus.make(30_000, seed=size, lowrank=lowrank)
    store = await PostgresLongTermStore.open(url, max_size=4)
    await store.bind_embedder("bench-random", dim)
    everything = records(corpus, 0, size, dim)
    tail = min(PUT_RECORDS, size)
    bulk_seconds = await bulk_load(url, everything[: size - tail], dim)
    put_seconds = 0.0
    for start in range(size - tail, size, BATCH):
        batch = everything[start : start + BATCH]
        began = time.perf_counter()
        await store.put(SCOPE.tenant, batch)
        put_seconds += time.perf_counter() - began
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await conn.execute("VACUUM ANALYZE sedimem_lt_records")

    ids = np.array([r.id for r in everything])
    matrix = np.stack([r.vector for r in everything if r.vector is not None])
    rare = np.array([r.task_type == "rare" for r in everything])
    visible = RecordFilter(visible_to=QUERY_SCOPE)
    selective = RecordFilter(visible_to=QUERY_SCOPE, task_type="rare")
    term_lists = [corpus.words(int(corpus.rng.integers(6, 12))) for _ in range(queries)]
    query_vectors = corpus.vectors(queries, dim)

    def keyword(i: int) -> Callable[[], Awaitable[Any]]:
        return lambda: store.keyword_search(SCOPE.tenant, visible, term_lists[i], k)

    def vector(i: int, flt: RecordFilter = visible) -> Callable[[], Awaitable[Any]]:
        return lambda: store.vector_search(SCOPE.tenant, flt, query_vectors[i], k)

    def hybrid(i: int) -> Callable[[], Awaitable[Any]]:
        return lambda: asyncio.gather(keyword(i)(), vector(i)())

    kw_lat, kw_res = await timed([keyword(i) for i in range(queries)])
    vec_lat, vec_res = await timed([vector(i) for i in range(queries)])
    sel_lat, sel_res = await timed([vector(i, selective) for i in range(queries)])
    hyb_lat, _ = await timed([hybrid(i) for i in range(queries)])
    await store.aclose()
    return {
        "size": size,
        "bulk_records_per_s": (size - tail) / bulk_seconds if size > tail else 0.0,
        "put_records_per_s": tail / put_seconds,
        "keyword": percentiles(kw_lat),
        "keyword_mean_hits": statistics.fmean(len(r) for r in kw_res),
        "vector": percentiles(vec_lat),
        "vector_recall": recall(vec_res, exact_top(ids, matrix, query_vectors, k)),
        "vector_short_results": sum(len(r) < k for r in vec_res),
        "vector_selective": percentiles(sel_lat),
        "vector_selective_recall": recall(
            sel_res, exact_top(ids[rare], matrix[rare], query_vectors, k)
        ),
        "vector_selective_short_results": sum(len(r) < k for r in sel_res),
        "hybrid": percentiles(hyb_lat),
    }


def table(results: list[dict[str, Any]], k: int) -> str:
    lines = [
        f"{'size':>8} {'operation':<26} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'recall':>7}"
    ]
    for r in results:
        for op in ("keyword", "vector", "vector_selective", "hybrid"):
            p = r[op]
            label = f"{op} (k={k})"
            quality = f"{r[op + '_recall']:>7.3f}" if op + "_recall" in r else ""
            lines.append(
                f"{r['size']:>8} {label:<26} {p['p50']:>8.2f} {p['p95']:>8.2f} {p['p99']:>8.2f}"
                f" {quality}"
            )
        lines.append(f"{r['size']:>8} {'put (records/s)':<26} {r['put_records_per_s']:>8.0f}")
        lines.append(
            f"{r['size']:>8} {'bulk load (records/s)':<26} {r['bulk_records_per_s']:>8.0f}"
        )
        lines.append(
            f"{r['size']:>8} {'vector results < k':<26} {r['vector_short_results']:>8} "
            f"(selective: {r['vector_selective_short_results']}); keyword mean hits "
            f"{r['keyword_mean_hits']:.1f}"
        )
    return "\n".join(lines)


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    server = None
    if args.url is None:
        settings = {"shared_buffers": "1GB", "maintenance_work_mem": "1GB"}
        server = PostgresServer(settings=settings).start()
    try:
        for size in sizes:
            if server is not None:
                name = f"bench_{size}"
                async with await psycopg.AsyncConnection.connect(server.url, autocommit=True) as c:
                    await c.execute(f'CREATE DATABASE "{name}"'.encode())
                url = server.url_for(name)
            else:
                url = args.url
                async with await psycopg.AsyncConnection.connect(url, autocommit=True) as c:
                    await c.execute("DROP TABLE IF EXISTS sedimem_lt_records CASCADE")
                    await c.execute("DROP TABLE IF EXISTS sedimem_lt_embedder, sedimem_schema")
                    await c.execute("DROP AGGREGATE IF EXISTS sedimem_tsquery_or (tsquery)")
            lowrank = args.vectors == "lowrank"
            results.append(
                await run_size(url, size, args.queries, args.k, args.dim, lowrank=lowrank)
            )
    finally:
        if server is not None:
            server.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--dim", type=int, default=256)
    parser.add_argument("--vectors", choices=["random", "lowrank"], default="random")
    parser.add_argument("--url", default=None, help="an empty database to use instead")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    print(f"vectors: {args.vectors} (dimension {args.dim}), {args.queries} queries")
    print(table(results, args.k))
    metrics: dict[str, float] = {}
    for r in results:
        n = r["size"]
        metrics[f"put_records_per_s_{n}"] = round(r["put_records_per_s"], 1)
        metrics[f"bulk_records_per_s_{n}"] = round(r["bulk_records_per_s"], 1)
        metrics[f"vector_recall_at_k_{n}"] = round(r["vector_recall"], 4)
        metrics[f"vector_selective_recall_at_k_{n}"] = round(r["vector_selective_recall"], 4)
        for op in ("keyword", "vector", "vector_selective", "hybrid"):
            for q in ("p50", "p95", "p99"):
                metrics[f"{op}_{q}_ms_{n}"] = round(r[op][q], 3)
        metrics[f"vector_short_results_{n}"] = r["vector_short_results"]
        metrics[f"vector_selective_short_results_{n}"] = r["vector_selective_short_results"]
    print(json.dumps({"metrics": metrics}))


if __name__ == "__main__":
    main()
