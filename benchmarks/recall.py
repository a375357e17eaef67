"""Recall through the service, as an agent calls it: ``EpisodicMemory.recall`` (hybrid).

Per store (SQLite, PostgreSQL + pgvector) and size (10k, 100k episodes in ONE scope, or
with ``--scopes N`` spread over N scopes of one tenant, episode i in scope i mod N and
question j asked of scope j mod N):
- ingest throughput through ``record_many`` with the default embedder (episodes/s; with
  ``--bulk``, PostgreSQL gets all but the last 2,000 episodes by COPY and only those are
  timed: pgvector 0.6's HNSW insert makes 100k single inserts take a quarter of an hour;
  the store's own ANALYZE after large writes, not the benchmark, refreshes the statistics);
- the time to build SQLite's in-memory index and HNSW graph after ingest (``warm``, which
  also saves them beside the file);
- SQLite: the store is then closed and served by a fresh process, as after a restart: the
  time to open it and answer its first recall (indexes read from their files), then the
  latencies below and that process's peak RSS (embedder included);
- hybrid recall latency p50 / p95 / p99 for k=10, excluding the query's embedding (queries
  are embedded once beforehand, as the issue specifies);
- a baseline in the same run: plain numpy exact top-10 over the same vectors (the scope's
  rows, gathered in the timing, with several scopes);
- quality: vector R@10, the share of numpy's exact top 10 (of the question's scope) that
  the store's vector recall returns (what the HNSW graph and its int8 cells may lose).
Also the default embedder's throughput (sentences/s) and single-query latency.

Text: LoCoMo turns and questions when ``--data`` (default ../shared/data/locomo10.json)
exists, recombined into distinct episodes; otherwise synthetic sentences.
Prints a table and, as its last line, ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sedimem.embed import default_embedder
from sedimem.embed.base import Embedder, Matrix
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.types import Episode

SCOPE = Scope(tenant="bench", project="p", user="u")


def scope_of(i: int, scopes: int) -> Scope:
    """The scope of episode (or question) ``i`` of ``scopes`` (one tenant throughout)."""
    return SCOPE if scopes == 1 else Scope(tenant="bench", project=f"p{i % scopes}", user="u")


#: Hybrid recall without the second stage, with the fusion constants it had before it.
FUSION_ONLY = RetrievalSettings(rrf_k=60.0, rerank_depth=0)
BULK_TAIL = 2000


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": q[49], "p95": q[94], "p99": q[98]}


class Precomputed:
    """An embedder that answers from a table: the query's embedding is not what we time."""

    def __init__(self, inner: Embedder, texts: Sequence[str]) -> None:
        self._inner = inner
        self._table = dict(zip(texts, inner.embed(list(texts)), strict=True))

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> Matrix:
        return np.stack([self._table[t] for t in texts])

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        return self.embed(texts)


def load_text(data: Path, size: int, queries: int, seed: int = 7) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    if data.exists():
        raw = json.loads(data.read_text())
        turns = [
            t["text"]
            for conv in raw
            for key, session in conv["conversation"].items()
            if key.startswith("session_") and isinstance(session, list)
            for t in session
        ]
        questions = [qa["question"] for conv in raw for qa in conv["qa"]]
    else:
        words = [f"w{i}" for i in range(5000)]
        turns = [" ".join(rng.choices(words, k=12)) for _ in range(6000)]
        questions = [" ".join(rng.choices(words, k=6)) for _ in range(500)]
    texts = []
    for i in range(size):
        a, b = rng.choice(turns), rng.choice(turns)
        texts.append(f"{a} {b.split('.')[0]} (#{i})")
    return texts, rng.sample(questions, min(queries, len(questions)))


async def open_store(
    kind: str, url: str | None, tmp: Path, size: int, analyze_rows: int | None = None
) -> LongTermStore:
    if kind == "sqlite":
        from sedimem.retrieval.index import MemoryIndexEngine
        from sedimem.storage.longterm.sqlite import SqliteLongTermStore

        return await SqliteLongTermStore.open(
            # the bulk build's texts analysed by worker processes (this module is guarded)
            str(tmp / f"recall-{size}.db"),
            index=MemoryIndexEngine(analysis_workers=None),
        )
    from sedimem.storage.longterm.postgres import PostgresLongTermStore

    assert url is not None
    if analyze_rows is None:
        return await PostgresLongTermStore.open(url)
    return await PostgresLongTermStore.open(url, analyze_rows=analyze_rows)


async def bench_store(
    kind: str,
    size: int,
    texts: list[str],
    questions: list[str],
    embedder: Embedder,
    tmp: Path,
    url: str | None,
    bulk: bool = False,
    analyze_rows: int | None = None,
    scopes: int = 1,
    exact: list[list[int]] | None = None,
) -> dict[str, float]:
    """``exact``: per question, numpy's exact top 10 (episode numbers) in its scope."""
    store = await open_store(kind, url, tmp, size, analyze_rows)
    await store.bind_embedder(embedder.name, embedder.dimension)
    try:
        memory = EpisodicMemory(store, embedder)
        episodes = [
            Episode(scope=scope_of(i, scopes), description=t) for i, t in enumerate(texts[:size])
        ]
        timed = episodes
        if bulk and kind == "postgres" and size > BULK_TAIL:
            # all but the tail by COPY (index rebuilt after): only the tail's ingest is timed
            from benchmarks.recall_postgres import bulk_load
            from sedimem.longterm.records import episode_row

            head = episodes[:-BULK_TAIL]
            vectors = embedder.embed([e.search_text() for e in head])
            rows = [episode_row(e, v) for e, v in zip(head, vectors, strict=True)]
            assert url is not None
            await bulk_load(url, rows, embedder.dimension)
            # No ANALYZE here: the store opened on an empty table, so the tail's record_many
            # makes it analyse the table (as record_many of every episode would have), and a
            # search finding no statistics would ask for them too.
            timed = episodes[-BULK_TAIL:]
        start = time.perf_counter()
        await memory.record_many(timed, batch_size=1000)
        ingest = len(timed) / (time.perf_counter() - start)
        analysed: dict[str, float] = {}
        if kind == "postgres":
            assert url is not None
            analysed = await statistics_state(url)
        start = time.perf_counter()
        warm = getattr(store, "warm", None)
        if warm is not None:  # SQLite: build the in-memory index and HNSW graph now
            await warm(SCOPE.tenant, wait=True)
        index_build = time.perf_counter() - start
        if kind == "sqlite":
            await store.aclose()  # saves the indexes; closing again below does nothing
            wanted = [[episodes[i].id for i in top] for top in exact or []]
            served = serve_elsewhere(tmp / f"recall-{size}.db", questions, scopes, wanted)
            return {"ingest_per_s": ingest, "index_build_s": index_build, **served}
        fast = EpisodicMemory(store, Precomputed(embedder, questions))
        for j, q in enumerate(questions[:20]):  # warm-up: builds indexes, fills caches
            await fast.recall(q, scope=scope_of(j, scopes), k=10)
        samples = []
        for j, q in enumerate(questions):
            t0 = time.perf_counter()
            await fast.recall(q, scope=scope_of(j, scopes), k=10)
            samples.append((time.perf_counter() - t0) * 1000)
    finally:
        await store.aclose()
    p = percentiles(samples)
    return {
        "ingest_per_s": ingest,
        "index_build_s": index_build,
        **{f"recall.{k}_ms": v for k, v in p.items()},
        **analysed,
    }


def memory_mb() -> dict[str, float]:
    """This process's resident memory now and at its peak, in MB. Linux: VmRSS / VmHWM
    (getrusage's peak would include the parent's, inherited across fork), and the share
    of it that is file-backed (mapped index files, reclaimable by the kernel)."""
    status = Path("/proc/self/status")
    if not status.exists():
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        return {"rss_mb": peak, "rss_peak_mb": peak}
    fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)

    def mb(name: str) -> float:
        return int(fields.get(name, "0 kB").split()[0]) / 1024

    return {"rss_mb": mb("VmRSS"), "rss_peak_mb": mb("VmHWM"), "rss_file_mb": mb("RssFile")}


def serve_elsewhere(
    path: Path, questions: list[str], scopes: int, exact: list[list[str]]
) -> dict[str, float]:
    """Serve the closed SQLite store from a new process (see :func:`serve`)."""
    spec = path.with_suffix(".questions.json")
    spec.write_text(json.dumps({"questions": questions, "scopes": scopes, "exact": exact}))
    # A restarted server finds its files on disk: what the build wrote (gigabytes at 1M)
    # is flushed first, so that the kernel's writeback does not run beside the timed
    # searches whenever its 30 s expiry happens to fall there.
    synced = time.perf_counter()
    os.sync()
    synced = time.perf_counter() - synced
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.recall", "--serve", str(path)],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return {**result, "sync_s": synced}


async def serve(path: Path) -> None:
    """Open a saved SQLite store as a restarted server would, time its first recall, then
    the steady state; print the figures and this process's peak RSS as JSON."""
    from sedimem.retrieval.index import MemoryIndexEngine
    from sedimem.storage.longterm.sqlite import SqliteLongTermStore

    spec = json.loads(path.with_suffix(".questions.json").read_text())
    questions: list[str] = spec["questions"]
    scopes: int = spec["scopes"]
    exact: list[list[str]] = spec["exact"]
    embedder = Precomputed(default_embedder(), questions)
    start = time.perf_counter()
    store = await SqliteLongTermStore.open(str(path), index=MemoryIndexEngine())
    try:
        await store.bind_embedder(embedder.name, embedder.dimension)
        fast = EpisodicMemory(store, embedder)
        # Fusion alone (no second stage, the fusion constants before it): timed query by
        # query interleaved with the default, so both see the same machine load.
        plain = EpisodicMemory(store, embedder, settings=FUSION_ONLY)
        opened = time.perf_counter()
        await fast.recall(questions[0], scope=scope_of(0, scopes), k=10)
        first = time.perf_counter()
        for j, q in enumerate(questions[:20]):
            await fast.recall(q, scope=scope_of(j, scopes), k=10)
            await plain.recall(q, scope=scope_of(j, scopes), k=10)
        samples: list[float] = []
        fusion_only: list[float] = []
        # CPU time too: on a shared machine the wall-clock percentiles mostly measure waits
        # for a core. Per search, this thread's (the searches run on it once the indexes
        # are in memory); and per default recall, all the process's threads.
        cpu: list[float] = []
        cpu_fusion_only: list[float] = []
        process_cpu = 0.0
        for i, q in enumerate(questions):
            # each pair in turn order: the second search of a question finds the first's
            # rows in SQLite's page cache, which would favour whichever always runs second
            order = ((fast, samples, cpu), (plain, fusion_only, cpu_fusion_only))
            for subject, wall, used in order if i % 2 == 0 else order[::-1]:
                p0, c0, t0 = time.process_time(), time.thread_time(), time.perf_counter()
                await subject.recall(q, scope=scope_of(i, scopes), k=10)
                used.append((time.thread_time() - c0) * 1000)
                wall.append((time.perf_counter() - t0) * 1000)
                if subject is fast:
                    process_cpu += time.process_time() - p0
        cpu_ms = process_cpu * 1000 / len(questions)
        memory = memory_mb()  # while serving, before closing releases the indexes
        found = 0
        for j, (q, top) in enumerate(zip(questions, exact, strict=False)):
            hits = await fast.recall(q, scope=scope_of(j, scopes), k=10, mode="vector")
            found += len({h.record.id for h in hits} & set(top))
        quality = {"vector_r10": found / (10 * len(exact))} if exact else {}
    finally:
        await store.aclose()
    p = percentiles(samples)
    result = {
        "open_ms": (opened - start) * 1000,
        "first_recall_ms": (first - start) * 1000,
        **{f"recall.{k}_ms": v for k, v in p.items()},
        "recall.cpu_ms": cpu_ms,
        **{f"recall_fusion_only.{k}_ms": v for k, v in percentiles(fusion_only).items()},
        **{f"recall_cpu.{k}_ms": v for k, v in percentiles(cpu).items()},
        **{f"recall_fusion_only_cpu.{k}_ms": v for k, v in percentiles(cpu_fusion_only).items()},
        **memory,
        **quality,
        "load_1m": os.getloadavg()[0],
    }
    print(json.dumps(result))


async def statistics_state(url: str) -> dict[str, float]:
    """Whether the planner had statistics when recall was timed, and who made them (an
    ANALYZE statement, i.e. the store's, or autovacuum): 1.0 / 0.0."""
    import psycopg

    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        cursor = await conn.execute(
            "SELECT last_analyze IS NOT NULL, last_autoanalyze IS NOT NULL, "
            "EXISTS (SELECT 1 FROM pg_stats WHERE tablename = relname AND attname = 'tsv') "
            "FROM pg_stat_user_tables WHERE relname = 'sedimem_lt_records'"
        )
        row = await cursor.fetchone()
    names = ("analyzed_by_store", "analyzed_by_autovacuum", "has_statistics")
    return {name: float(bool(value)) for name, value in zip(names, row or (0, 0, 0), strict=True)}


def numpy_baseline(
    matrix: Matrix, queries: Matrix, scopes: int = 1
) -> tuple[dict[str, float], list[list[int]]]:
    """Exact top-10 per question over its scope's rows (gathered in the timing with
    several scopes): the timings and the top 10s (episode numbers)."""
    samples = []
    tops = []
    for j, q in enumerate(queries):
        t0 = time.perf_counter()
        rows = None if scopes == 1 else np.arange(j % scopes, matrix.shape[0], scopes)
        scores = (matrix if rows is None else matrix[rows]) @ q
        top = np.argpartition(-scores, 10)[:10] if scores.shape[0] > 10 else np.arange(0)
        top = top[np.argsort(-scores[top])]
        samples.append((time.perf_counter() - t0) * 1000)
        tops.append((top if rows is None else rows[top]).tolist())
    return percentiles(samples), tops


def embedder_speed(embedder: Embedder, texts: list[str]) -> dict[str, float]:
    embedder.embed(texts[:1000])
    start = time.perf_counter()
    for i in range(0, len(texts), 512):
        embedder.embed(texts[i : i + 512])
    rate = len(texts) / (time.perf_counter() - start)
    single = []
    for t in texts[:2000]:
        t0 = time.perf_counter()
        embedder.embed([t])
        single.append((time.perf_counter() - t0) * 1e6)
    p = percentiles(single)
    return {"sentences_per_s": rate, **{f"query.{k}_us": v for k, v in p.items()}}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo10.json"))
    parser.add_argument(
        "--sizes", default="10000,100000", help="episodes per run, e.g. 10000,100000,1000000"
    )
    parser.add_argument("--stores", default="sqlite,postgres")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="2k episodes, 100 queries")
    parser.add_argument(
        "--bulk",
        action="store_true",
        help="PostgreSQL: COPY all but the last 2,000 episodes (record_many for those)",
    )
    parser.add_argument(
        "--analyze-rows",
        type=int,
        default=None,
        help="PostgreSQL: the store's analyze_rows (0: it never runs ANALYZE; with --bulk and "
        "autovacuum not yet by, recall then runs without planner statistics)",
    )
    parser.add_argument(
        "--scopes",
        type=int,
        default=1,
        help="spread the episodes over this many scopes (projects) of one tenant",
    )
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)  # the serving child
    args = parser.parse_args()
    if args.serve is not None:
        await serve(args.serve)
        return
    sizes = [2000] if args.quick else [int(s) for s in args.sizes.split(",")]
    queries = 100 if args.quick else args.queries
    stores = args.stores.split(",")
    texts, questions = load_text(args.data, max(sizes), queries)
    embedder = default_embedder()
    metrics: dict[str, float] = {}
    for name, value in embedder_speed(embedder, texts[:20_000]).items():
        metrics[f"embedder.{name}"] = value
    rows: list[tuple[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="sedimem-recall-") as tmpdir:
        tmp = Path(tmpdir)
        server: Any = None
        if "postgres" in stores:
            from sedimem.testing.postgres_server import PostgresServer

            server = PostgresServer().start()
        try:
            for size in sizes:
                label = f"@{size // 1000}k"
                matrix = embedder.embed(texts[:size])
                if args.scopes > 1:
                    label += f"x{args.scopes}"
                base, exact = numpy_baseline(matrix, embedder.embed(questions), args.scopes)
                del matrix
                metrics.update({f"numpy.exact.{k}_ms{label}": v for k, v in base.items()})
                rows.append(
                    (f"numpy exact {label}", {f"recall.{k}_ms": v for k, v in base.items()})
                )
                for kind in stores:
                    url = None
                    if kind == "postgres":
                        db = f"recall_{size}"
                        import psycopg

                        with psycopg.connect(server.url, autocommit=True) as conn:
                            conn.execute(f'CREATE DATABASE "{db}"'.encode())
                        url = server.url_for(db)
                    result = await bench_store(
                        kind,
                        size,
                        texts,
                        questions,
                        embedder,
                        tmp,
                        url,
                        args.bulk,
                        args.analyze_rows,
                        args.scopes,
                        exact,
                    )
                    rows.append((f"{kind} {label}", result))
                    if kind == "postgres":
                        print(
                            f"postgres {label}: statistics when timed "
                            f"{result.get('has_statistics', 0):.0f} (ANALYZE by the store "
                            f"{result.get('analyzed_by_store', 0):.0f}, by autovacuum "
                            f"{result.get('analyzed_by_autovacuum', 0):.0f})",
                            flush=True,
                        )
                    for k, v in result.items():
                        if k == "ingest_per_s":
                            metrics[f"{kind}.ingest_per_s{label}"] = v
                            metrics[f"{kind}.ingest_per_s"] = v
                        else:
                            metrics[f"{kind}.{k}{label}"] = v
                    metrics[f"{kind}.recall.p95_ratio_to_numpy{label}"] = (
                        result["recall.p95_ms"] / base["p95"]
                    )
        finally:
            if server is not None:
                server.close()
    print(
        f"{'':24} {'ingest/s':>10} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} "
        f"{'first ms':>9} {'cpu ms':>7} {'RSS MB':>7} {'peak MB':>7} {'build s':>7} "
        f"{'vec R@10':>8} {'load':>5}"
    )
    for label, r in rows:
        ingest = f"{r['ingest_per_s']:>10.0f}" if "ingest_per_s" in r else f"{'':>10}"
        extra = ""
        if "first_recall_ms" in r:
            extra = (
                f" {r['first_recall_ms']:>9.1f} {r['recall.cpu_ms']:>7.2f} {r['rss_mb']:>7.0f}"
                f" {r['rss_peak_mb']:>7.0f} {r['index_build_s']:>7.1f}"
                f" {r.get('vector_r10', float('nan')):>8.3f} {r['load_1m']:>5.2f}"
            )
        print(
            f"{label:24} {ingest} {r['recall.p50_ms']:>8.2f} {r['recall.p95_ms']:>8.2f} "
            f"{r['recall.p99_ms']:>8.2f}{extra}"
        )
        for key, name in (
            ("recall_fusion_only", "  fusion only, same run"),
            ("recall_cpu", "  CPU time"),
            ("recall_fusion_only_cpu", "  fusion only, CPU time"),
        ):
            if f"{key}.p95_ms" in r:
                print(
                    f"{name:24} {'':>10} {r[f'{key}.p50_ms']:>8.2f} "
                    f"{r[f'{key}.p95_ms']:>8.2f} {r[f'{key}.p99_ms']:>8.2f}"
                )
    print(
        f"embedder: {metrics['embedder.sentences_per_s']:.0f} sentences/s, "
        f"single query p50 {metrics['embedder.query.p50_us']:.0f} us"
    )
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
