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
