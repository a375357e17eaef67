"""A store whose indexes hold an IVF partition (a low ``ivf_threshold``): adds, deletes
and filters answer as exact search does, and a saved partition is checked list by list,
a damaged one rebuilt, never served."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.storage.longterm.base import RecordFilter
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.testing.longterm import unit_vector
from tests.storage.longterm.sqlite.test_saved_indexes import damage_section, index_files
from tests.storage.longterm.sqlite.test_store import FILTERS, random_records

T = "t"


def partitioned() -> MemoryIndexEngine:
    # A partition from the first vector, built inline, used for every search. Small
    # inputs make few lists, all of them probed: answers equal exact search's.
    return MemoryIndexEngine(
        hnsw_threshold=1, hnsw_background=False, exact_limit=0, ivf_threshold=1
    )


async def open_store(
    path: str, engine: MemoryIndexEngine, save: bool = True
) -> SqliteLongTermStore:
    s = await SqliteLongTermStore.open(path, index=engine, save_indexes=save)
    await s.bind_embedder("e", 8)
    return s


async def same_vector_answers(a: SqliteLongTermStore, b: SqliteLongTermStore) -> None:
    for flt in FILTERS:
        for seed in range(5):
            hits_a = await a.vector_search(T, flt, unit_vector(seed), 7)
            hits_b = await b.vector_search(T, flt, unit_vector(seed), 7)
            assert [i for i, _ in hits_a] == [i for i, _ in hits_b]
            assert [s for _, s in hits_a] == pytest.approx([s for _, s in hits_b], abs=1e-6)


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "sedimem.db")


async def test_adds_deletes_and_filters_answer_as_exact_search(db_path: str) -> None:
    rng = np.random.default_rng(21)
    s = await open_store(db_path, partitioned())
    exact = await open_store(db_path, MemoryIndexEngine(hnsw_threshold=None), save=False)
    try:
        records = random_records(rng, 400)
        await s.put(T, records)
        await same_vector_answers(s, exact)
        info = await s.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] == info["slots"] > 0
        # added after the build: scanned as the uncovered tail, then (past 2,048 of them)
        # assigned to their nearest lists
        more = random_records(rng, 100)
        await s.put(T, more)
        await same_vector_answers(s, exact)
        await s.delete(T, [r.id for r in records[:120]] + [r.id for r in more[:10]])
        await same_vector_answers(s, exact)
        hits = await s.vector_search(T, RecordFilter(), unit_vector(1), 300)
        assert not {i for i, _ in hits} & {r.id for r in records[:120]}
        await s.put(T, random_records(rng, 5000))
        await same_vector_answers(s, exact)
        info = await s.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] > 2000
    finally:
        await s.aclose()
        await exact.aclose()


async def test_a_saved_partition_is_served_and_a_damaged_one_rebuilt(db_path: str) -> None:
    s = await open_store(db_path, partitioned())
    await s.put(T, random_records(np.random.default_rng(22), 600))
    await s.warm(T, wait=True)
    await s.aclose()
    exact = await open_store(db_path, MemoryIndexEngine(hnsw_threshold=None), save=False)
    try:
        s = await open_store(db_path, partitioned())
        try:
            await same_vector_answers(s, exact)
            info = await s.index_info(T, "episode")  # (counts of both kinds' indexes)
            assert info is not None
            assert (info["loads"], info["builds"]) == (2, 0)
            assert info["hnsw_covered"] == info["slots"]
        finally:
            await s.aclose()
        for path in index_files(db_path):
            damage_section(path, "ivf_codes")
        s = await open_store(db_path, partitioned())
        try:
            # the keyword half reads no code: the file is loaded, its codes unchecked
            await s.keyword_search(T, RecordFilter(kind="episode"), ["apple"], 5)
            info = await s.index_info(T, "episode")
            assert info is not None
            assert (info["loads"], info["builds"]) == (1, 0)
            # the first probe finds the damage: each index is built from the rows
            await same_vector_answers(s, exact)
            info = await s.index_info(T, "episode")
            assert info is not None
            assert (info["loads"], info["builds"]) == (2, 2)
        finally:
            await s.aclose()
        s = await open_store(db_path, partitioned())  # closing wrote whole files again
        try:
            await same_vector_answers(s, exact)
            info = await s.index_info(T, "episode")
            assert info is not None
            assert (info["loads"], info["builds"]) == (2, 0)
        finally:
            await s.aclose()
    finally:
        await exact.aclose()


Halves = tuple[list[tuple[str, float]], list[tuple[str, float]]]
QUERIES = [(["apple", "kiwi"], 4), (["pear"], 9), (["plum", "fig", "apple"], 13)]


async def hybrid(s: SqliteLongTermStore, flt: RecordFilter, terms: list[str], seed: int) -> Halves:
    """The two halves a fused search hands its fusion."""
    got: list[Halves] = []

    def pick(keyword: Any, vector: Any, traits: Any) -> list[str]:
        got.append((keyword, vector))
        return []

    await s.fused_search(T, flt, terms, unit_vector(seed), 20, pick)
    return got[0]


async def alone(s: SqliteLongTermStore, flt: RecordFilter, terms: list[str], seed: int) -> Halves:
    """The same two halves searched one at a time."""
    keyword = await s.keyword_search(T, flt, terms, 20)
    return keyword, await s.vector_search(T, flt, unit_vector(seed), 20)


def helper_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("sedimem-search")]


async def test_a_hybrid_search_runs_its_halves_side_by_side_with_the_same_answers(
    db_path: str,
) -> None:
    s = await open_store(db_path, partitioned())
    try:
        await s.put(T, random_records(np.random.default_rng(23), 800))
        for flt in FILTERS:
            for terms, seed in QUERIES:
                assert await hybrid(s, flt, terms, seed) == await alone(s, flt, terms, seed)
        # the partition's vector half ran on the helper thread
        assert helper_threads()
    finally:
        await s.aclose()


async def test_hybrid_searches_of_two_stores_on_two_threads_answer_as_alone(
    tmp_path: Path,
) -> None:
    """Two handles (each its own indexes) searched at once from two threads: one gets the
    process's helper thread, the other runs its halves in turn; every answer is the same."""
    paths = [str(tmp_path / f"{n}.db") for n in ("a", "b")]
    for n, path in enumerate(paths):
        s = await open_store(path, partitioned())
        await s.put(T, random_records(np.random.default_rng(30 + n), 600))
        await s.aclose()

    async def expected(path: str) -> list[Halves]:
        s = await open_store(path, partitioned(), save=False)
        try:
            return [await alone(s, f, t, q) for f in FILTERS for t, q in QUERIES]
        finally:
            await s.aclose()

    answers = [await expected(path) for path in paths]
    start = threading.Barrier(2)

    def searches(path: str) -> list[list[Halves]]:
        async def run() -> list[list[Halves]]:
            s = await open_store(path, partitioned(), save=False)
            try:
                await hybrid(s, FILTERS[0], ["apple"], 1)  # the index is in memory
                start.wait()
                return [
                    [await hybrid(s, f, t, q) for f in FILTERS for t, q in QUERIES]
                    for _ in range(10)
                ]
            finally:
                await s.aclose()

        return asyncio.run(run())

    with ThreadPoolExecutor(2) as pool:
        rounds = list(pool.map(searches, paths))
    for got, want in zip(rounds, answers, strict=True):
        assert all(one == want for one in got)


async def test_a_damaged_list_found_by_the_helper_thread_is_rebuilt_not_served(
    db_path: str,
) -> None:
    s = await open_store(db_path, partitioned())
    await s.put(T, random_records(np.random.default_rng(24), 600))
    await s.warm(T, wait=True)
    await s.aclose()
    for path in index_files(db_path):
        damage_section(path, "ivf_codes")
    exact = await open_store(db_path, MemoryIndexEngine(hnsw_threshold=None), save=False)
    s = await open_store(db_path, partitioned(), save=False)
    try:
        for terms, seed in QUERIES:
            got = await hybrid(s, RecordFilter(kind="episode"), terms, seed)
            want = await alone(exact, RecordFilter(kind="episode"), terms, seed)
            assert {i for i, _ in got[0]} == {i for i, _ in want[0]}  # (BM25 statistics)
            assert [i for i, _ in got[1]] == [i for i, _ in want[1]]
        info = await s.index_info(T, "episode")
        assert info is not None
        assert info["builds"] >= 1
    finally:
        await s.aclose()
        await exact.aclose()
