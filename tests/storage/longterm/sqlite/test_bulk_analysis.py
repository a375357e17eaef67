"""A store whose index is built in bulk (past 20,000 rows: texts analysed in worker
processes) answers keyword searches exactly as one analysed inline, saved and reopened,
and after later adds and deletes; its engine's close leaves no process behind."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import numpy as np

from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.retrieval.index.analysis import POOL_FROM
from sedimem.storage.longterm.base import RecordFilter, StoredRecord
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.testing.longterm import make_record

T = "t"
WORDS = [f"w{i}" for i in range(300)] + ["running", "runs", "Café", "naïve", "x_y"]
QUERIES = (["w1"], ["run", "w2"], ["cafe", "w299", "naiv"], ["w7", "w8", "w9", "x"])


def records(rng: np.random.Generator, count: int) -> list[StoredRecord]:
    return [
        make_record(" ".join(rng.choice(WORDS, size=int(rng.integers(1, 8)))), tenant=T)
        for _ in range(count)
    ]


async def answers(store: SqliteLongTermStore) -> list[list[tuple[str, float]]]:
    return [await store.keyword_search(T, RecordFilter(kind="episode"), q, 25) for q in QUERIES]


async def test_a_bulk_built_index_answers_as_an_inline_one(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    path = str(tmp_path / "s.db")
    writer = await SqliteLongTermStore.open(
        path, index=MemoryIndexEngine(analysis_workers=0), save_indexes=False
    )
    first = records(rng, POOL_FROM + 2000)
    await writer.put(T, first)

    def engine(workers: int) -> MemoryIndexEngine:
        return MemoryIndexEngine(hnsw_threshold=None, analysis_workers=workers)

    bulk = engine(2)
    pooled = await SqliteLongTermStore.open(path, index=bulk)
    inline = await SqliteLongTermStore.open(path, index=engine(0), save_indexes=False)
    try:
        await pooled.warm(T, "episode")  # built in bulk, then saved
        assert bulk._analysis._pool is not None  # its last batch went to the workers
        info = await pooled.index_info(T, "episode")
        assert info is not None
        assert info["slots"] == len(first)
        assert await answers(pooled) == await answers(inline)
        await writer.put(T, records(rng, 40))
        await writer.delete(T, [r.id for r in first[:3000:7]])
        assert await answers(pooled) == await answers(inline)
    finally:
        await pooled.aclose()
        await inline.aclose()
    assert not multiprocessing.active_children()
    # (a running index reuses weights within a 1% drift of the mean length: compared
    # with indexes made from the rows as they are now)
    reopened = await SqliteLongTermStore.open(path, index=engine(2))
    rebuilt = await SqliteLongTermStore.open(path, index=engine(0), save_indexes=False)
    try:
        assert await answers(reopened) == await answers(rebuilt)
    finally:
        await reopened.aclose()
        await rebuilt.aclose()
        await writer.aclose()


_UNGUARDED = """
import asyncio, sys
print("top level ran", flush=True)
from sedimem import Memory
from sedimem.scope import Scope
from sedimem.types import Episode
async def main():
    async with await Memory.open(sys.argv[1]) as memory:
        scope = Scope(tenant="t", user="u")
        count = int(sys.argv[2])
        await memory.episodes.record_many(
            [Episode(scope=scope, description=f"note {i} on topic {i % 97}") for i in range(count)]
        )
        await memory.longterm_store.warm("t", wait=True)
asyncio.run(main())
"""


def test_an_unguarded_script_runs_its_top_level_once(tmp_path: Path) -> None:
    # Worker processes are spawned, and a spawned process imports the main script again:
    # by default a bulk build starts none, so a script without a __main__ guard (most
    # quick scripts) runs once, and writes its records once.
    import sqlite3
    import subprocess
    import sys

    script = tmp_path / "unguarded.py"
    script.write_text(_UNGUARDED)
    url = f"sqlite:///{tmp_path}/m.db"
    count = POOL_FROM + 2000
    done = subprocess.run(
        [sys.executable, str(script), url, str(count)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout.count("top level ran") == 1
    with sqlite3.connect(tmp_path / "m.db") as conn:
        tables = [r[0] for r in conn.execute("select name from sqlite_master where type='table'")]
        table = next(t for t in tables if "record" in t)
        (stored,) = conn.execute(f"select count(*) from {table}").fetchone()
    assert stored == count
