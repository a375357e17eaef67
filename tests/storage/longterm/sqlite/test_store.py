"""SQLite specifics: the in-memory index against the rows, HNSW, migrations, other handles."""

from __future__ import annotations

import asyncio
import dataclasses
import sqlite3
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sedimem.errors import ConfigurationError, StoreError, ValidationError
from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.storage.longterm.sqlite.schema import MIGRATIONS
from sedimem.storage.sqlite.migrations import apply_migrations
from sedimem.storage.working.sqlite import MIGRATIONS as WORKING_MIGRATIONS
from sedimem.storage.working.sqlite import SqliteWorkingStore
from sedimem.testing.longterm import make_record, unit_vector

T = "t"
WORDS = "apple banana cherry date elder fig grape hazel iris juniper kiwi lemon mango".split()


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "sedimem.db")


@pytest.fixture
async def store(db_path: str) -> AsyncIterator[SqliteLongTermStore]:
    s = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    await s.bind_embedder("e", 8)
    yield s
    await s.aclose()


@pytest.fixture
async def plain(db_path: str, store: SqliteLongTermStore) -> AsyncIterator[SqliteLongTermStore]:
    """A second handle on the same file that searches FTS5 and the stored vectors."""
    s = await SqliteLongTermStore.open(db_path)
    yield s
    await s.aclose()


def random_records(rng: np.random.Generator, count: int, tenant: str = T) -> list[StoredRecord]:
    out = []
    for _ in range(count):
        words = rng.choice(WORDS, size=int(rng.integers(1, 6)))
        out.append(
            make_record(
                " ".join(words),
                tenant=tenant,
                kind=str(rng.choice(["episode", "fact"])),
                vector=unit_vector(int(rng.integers(1 << 30))) if rng.random() < 0.8 else None,
                project=str(rng.choice(["p1", "p2"])) if rng.random() < 0.7 else None,
                user="u" if rng.random() < 0.3 else None,
                importance=float(rng.random()),
            )
        )
        if out[-1].importance < 0.2:  # a fact since retired (no draw of its own: the
            # records stay those other tests were written for)
            out[-1] = dataclasses.replace(out[-1], invalidated_at=1_700_000_100.0)
    return out


FILTERS = [
    RecordFilter(),
    RecordFilter(kind="fact"),
    RecordFilter(visible_to=Scope(tenant=T, project="p1")),
    RecordFilter(visible_to=Scope(tenant=T, project="p2", user="u"), min_importance=0.3),
]


#: Counts of one kind are read from its index when it is in memory (`stats`, `profile`):
#: the same numbers as COUNT(*) of the rows, a view naming no user counting every user's.
COUNTED = [
    RecordFilter(kind="fact"),
    RecordFilter(kind="fact", current=True),
    RecordFilter(kind="episode", visible_to=Scope(tenant=T, project="p1")),
    RecordFilter(kind="fact", visible_to=Scope(tenant=T, project="p2", user="u")),
    RecordFilter(kind="episode", visible_to=Scope(tenant=T, project="p1"), all_users=True),
    RecordFilter(kind="episode", visible_to=Scope(tenant=T, user="nobody"), current=True),
    RecordFilter(kind="fact", user="u", min_importance=0.5),
    RecordFilter(kind="procedure"),
]


async def same_answers(a: LongTermStore, b: LongTermStore) -> None:
    """Both stores select the same records for every filter and query (BM25 statistics
    differ between FTS5 and the in-memory index, so keyword hits compare as sets), and
    count the same."""
    for flt in COUNTED:
        assert await a.count(T, flt) == await b.count(T, flt), flt
    for flt in FILTERS:
        for terms in (["apple"], ["kiwi", "mango", "zzz"], WORDS[3:8]):
            hits_a = await a.keyword_search(T, flt, terms, 10_000)
            hits_b = await b.keyword_search(T, flt, terms, 10_000)
            assert {i for i, _ in hits_a} == {i for i, _ in hits_b}
        for seed in range(3):
            query = unit_vector(seed)
            hits_a = await a.vector_search(T, flt, query, 7)
            hits_b = await b.vector_search(T, flt, query, 7)
            assert [i for i, _ in hits_a] == [i for i, _ in hits_b]
            assert [s for _, s in hits_a] == pytest.approx([s for _, s in hits_b], abs=1e-5)


# -- the in-memory index and the rows ---------------------------------------------------------


async def test_memory_index_follows_puts_replacements_and_deletes(
    store: SqliteLongTermStore, plain: SqliteLongTermStore, db_path: str
) -> None:
    rng = np.random.default_rng(11)
    records = random_records(rng, 300)
    await store.put(T, records[:150])
    await same_answers(store, plain)  # builds the indexes
    built = await store.index_info(T, "episode")
    assert built is not None
    await store.put(T, records[150:])
    await same_answers(store, plain)
    replaced = [
        dataclasses.replace(r, text="replaced lemon", vector=unit_vector(5)) for r in records[:40]
    ]
    await store.put(T, replaced)
    assert await store.delete(T, [r.id for r in records[40:90]]) == 50
    await same_answers(store, plain)
    info = await store.index_info(T, "episode")
    assert info is not None
    assert info["builds"] == built["builds"]  # caught up incrementally, never rebuilt
    assert info["dead"] > 0
    reopened = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    try:
        await same_answers(reopened, plain)
    finally:
        await reopened.aclose()


async def test_writes_of_another_handle_reach_the_index(
    store: SqliteLongTermStore, db_path: str
) -> None:
    await store.put(T, [make_record("first quince", tenant=T, vector=unit_vector(1))])
    assert len(await store.keyword_search(T, RecordFilter(), ["quince"], 10)) == 1
    other = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    try:
        late = make_record("second quince", tenant=T, vector=unit_vector(2))
        await other.put(T, [late])
        hits = await store.keyword_search(T, RecordFilter(), ["quince"], 10)
        assert len(hits) == 2
        assert await store.count(T, RecordFilter(kind="episode")) == 2  # from the index
        (hit,) = await store.vector_search(T, RecordFilter(), unit_vector(2), 1)
        assert hit[0] == late.id
        await other.delete(T, [late.id])
        assert len(await store.keyword_search(T, RecordFilter(), ["quince"], 10)) == 1
        assert await store.count(T, RecordFilter(kind="episode")) == 1
    finally:
        await other.aclose()


async def test_a_second_process_sees_writes_both_ways(
    store: SqliteLongTermStore, db_path: str
) -> None:
    mine = make_record("written by the parent", tenant=T)
    await store.put(T, [mine])
    assert await store.keyword_search(T, RecordFilter(), ["child"], 5) == []
    script = f"""
import asyncio
from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.storage.longterm.base import RecordFilter
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.testing.longterm import make_record

async def main():
    s = await SqliteLongTermStore.open({db_path!r}, index=MemoryIndexEngine())
    seen = await s.keyword_search("t", RecordFilter(), ["parent"], 5)
    assert [i for i, _ in seen] == [{mine.id!r}], seen
    await s.put("t", [make_record("written by the child", tenant="t", record_id="child-1")])
    await s.aclose()

asyncio.run(main())
"""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stderr=asyncio.subprocess.PIPE
    )
    _, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert [i for i, _ in await store.keyword_search(T, RecordFilter(), ["child"], 5)] == [
        "child-1"
    ]


async def test_a_pruned_change_log_rebuilds_the_index(
    store: SqliteLongTermStore, db_path: str
) -> None:
    await store.put(T, [make_record("old walnut", tenant=T)])
    assert len(await store.keyword_search(T, RecordFilter(), ["walnut"], 5)) == 1
    before = await store.index_info(T, "episode")
    other = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    try:
        await other.put(T, [make_record("new walnut", tenant=T)])
        await other.put(T, [make_record("newer walnut", tenant=T)])
    finally:
        await other.aclose()
    with sqlite3.connect(db_path) as conn:  # as a prune by another process would
        conn.execute("DELETE FROM lt_change WHERE seq < (SELECT MAX(seq) FROM lt_change)")
    assert len(await store.keyword_search(T, RecordFilter(), ["walnut"], 5)) == 3
    after = await store.index_info(T, "episode")
    assert before is not None
    assert after is not None
    # Not caught up entry by entry: built from the rows again, or read from the file the
    # other handle saved when it closed (it reflects the newest entry).
    assert after["builds"] + after["loads"] == before["builds"] + before["loads"] + 1


async def test_many_deletions_compact_the_index(store: SqliteLongTermStore) -> None:
    records = [make_record(f"hazelnut {i}", tenant=T) for i in range(4000)]
    await store.put(T, records)
    assert len(await store.keyword_search(T, RecordFilter(), ["hazelnut"], 10)) == 10
    await store.delete(T, [r.id for r in records[:1500]])
    hits = await store.keyword_search(T, RecordFilter(), ["hazelnut"], 5000)
    assert len(hits) == 2500
    info = await store.index_info(T, "episode")
    assert info is not None
    assert (info["dead"], info["slots"], info["builds"]) == (0, 2500, 2)


async def test_the_change_log_is_pruned_and_readers_recover(
    store: SqliteLongTermStore, db_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sedimem.storage.longterm.sqlite import store as module

    await store.put(T, [make_record("first almond", tenant=T)])
    assert len(await store.keyword_search(T, RecordFilter(), ["almond"], 10)) == 1
    monkeypatch.setattr(module, "_PRUNE_EVERY", 1)
    monkeypatch.setattr(module, "_CHANGE_LOG_KEEP", 1)
    writer = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    try:
        for i in range(3):
            await writer.put(T, [make_record(f"almond {i}", tenant=T)])
    finally:
        await writer.aclose()
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM lt_change").fetchone() == (1,)
    assert len(await store.keyword_search(T, RecordFilter(), ["almond"], 10)) == 4


async def test_vector_search_before_any_binding_finds_nothing(db_path: str) -> None:
    s = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    try:
        await s.put(T, [make_record("no vector", tenant=T)])
        assert await s.vector_search(T, RecordFilter(), unit_vector(1), 5) == []
    finally:
        await s.aclose()


async def test_a_rebind_elsewhere_drops_indexed_vectors(
    store: SqliteLongTermStore, db_path: str
) -> None:
    await store.put(T, [make_record("v", tenant=T, vector=unit_vector(1))])
    assert len(await store.vector_search(T, RecordFilter(), unit_vector(1), 5)) == 1
    other = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    try:
        await other.bind_embedder("e2", 4, replace=True)
    finally:
        await other.aclose()
    assert await store.vector_search(T, RecordFilter(), np.ones(4, np.float32), 5) == []
    with pytest.raises(ValidationError):
        await store.vector_search(T, RecordFilter(), unit_vector(1), 5)


async def test_cold_indexes_are_evicted_past_the_row_budget(db_path: str) -> None:
    s = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine(), max_index_rows=150)
    try:
        for tenant in ("a", "b", "c"):
            await s.put(tenant, [make_record(f"olive {i}", tenant=tenant) for i in range(60)])
        for tenant in ("a", "b"):
            assert len(await s.keyword_search(tenant, RecordFilter(), ["olive"], 100)) == 60
        assert await s.index_info("a", "episode") is not None
        assert len(await s.keyword_search("c", RecordFilter(), ["olive"], 100)) == 60
        assert await s.index_info("a", "episode") is None  # the coldest went first
        assert await s.index_info("b", "episode") is not None
        assert len(await s.keyword_search("a", RecordFilter(), ["olive"], 100)) == 60
    finally:
        await s.aclose()


async def test_unhashable_filters_still_work(store: SqliteLongTermStore) -> None:
    record = make_record("pear", tenant=T, vector=unit_vector(1))
    await store.put(T, [record])
    flt = RecordFilter(ids=[record.id])  # type: ignore[arg-type]  # a list, not a tuple
    assert [i for i, _ in await store.keyword_search(T, flt, ["pear"], 5)] == [record.id]


# -- HNSW ---------------------------------------------------------------------------------------


def clustered(rng: np.random.Generator, count: int, dim: int) -> np.ndarray:
    centres = rng.standard_normal((20, dim)).astype(np.float32)
    points = centres[rng.integers(0, 20, count)] + 0.6 * rng.standard_normal((count, dim))
    points = points.astype(np.float32)
    return points / np.linalg.norm(points, axis=1, keepdims=True)


async def hnsw_pair(
    path: str, dim: int, vectors: np.ndarray, **fields: str
) -> tuple[SqliteLongTermStore, SqliteLongTermStore, list[StoredRecord]]:
    exact = await SqliteLongTermStore.open(path, index=MemoryIndexEngine(hnsw_threshold=None))
    await exact.bind_embedder("e", dim)
    records = [
        make_record(f"r{i}", tenant=T, vector=v.astype(np.float32), **fields)
        for i, v in enumerate(vectors)
    ]
    for start in range(0, len(records), 1000):
        await exact.put(T, records[start : start + 1000])
    graph = await SqliteLongTermStore.open(
        path, index=MemoryIndexEngine(hnsw_threshold=1000, hnsw_background=False, exact_limit=100)
    )
    return exact, graph, records


async def test_hnsw_top_k_matches_exact_search(db_path: str) -> None:
    rng = np.random.default_rng(3)
    dim = 32
    exact, graph, _ = await hnsw_pair(db_path, dim, clustered(rng, 3000, dim))
    try:
        recall = []
        for query in clustered(rng, 25, dim):
            want = [i for i, _ in await exact.vector_search(T, RecordFilter(), query, 10)]
            got = await graph.vector_search(T, RecordFilter(), query, 10)
            recall.append(len(set(want) & {i for i, _ in got}) / 10)
            scores = [s for _, s in got]
            assert scores == sorted(scores, reverse=True)
        info = await graph.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] == 3000
        assert np.mean(recall) >= 0.9
        # A row written after the graph was built is searched exactly (the uncovered tail).
        query = clustered(rng, 1, dim)[0]
        fresh = dataclasses.replace(make_record("fresh", tenant=T), vector=query)
        await graph.put(T, [fresh])
        (top, *_) = await graph.vector_search(T, RecordFilter(), query, 5)
        assert top[0] == fresh.id
        info = await graph.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] == 3000
    finally:
        await exact.aclose()
        await graph.aclose()


async def test_hnsw_returns_k_when_the_filter_keeps_far_rows(db_path: str) -> None:
    rng = np.random.default_rng(4)
    dim = 16
    query = unit_vector(1)[:8]
    query = np.concatenate([query, np.zeros(dim - 8, np.float32)])
    near = query + 0.1 * rng.standard_normal((2400, dim)).astype(np.float32)
    far = -query + 0.3 * rng.standard_normal((700, dim)).astype(np.float32)
    exact, graph, records = await hnsw_pair(db_path, dim, np.concatenate([near, far]))
    far_ids = {r.id for r in records[2400:]}
    try:
        ids = tuple(r.id for r in records[2300:])  # 100 near rows and the 700 far ones
        flt = RecordFilter(ids=ids)
        want = await exact.vector_search(T, flt, query, 300)
        got = await graph.vector_search(T, flt, query, 300)
        assert len(got) == 300
        assert [i for i, _ in got] == [i for i, _ in want]
        assert len({i for i, _ in got} & far_ids) == 200
        info = await graph.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] == 3100
    finally:
        await exact.aclose()
        await graph.aclose()


async def test_hnsw_builds_in_the_background(db_path: str) -> None:
    rng = np.random.default_rng(6)
    exact, _graph, _ = await hnsw_pair(db_path, 16, clustered(rng, 1500, 16))
    await _graph.aclose()
    background = await SqliteLongTermStore.open(
        db_path, index=MemoryIndexEngine(hnsw_threshold=1000, exact_limit=0)
    )
    try:
        query = clustered(rng, 1, 16)[0]
        want = await exact.vector_search(T, RecordFilter(), query, 5)
        # Until the graph is ready, the search is exact.
        assert await background.vector_search(T, RecordFilter(), query, 5) == want
        await background.warm(T, wait=True)
        info = await background.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] == 1500
        got = await background.vector_search(T, RecordFilter(), query, 5)
        assert len({i for i, _ in got} & {i for i, _ in want}) >= 4
    finally:
        await exact.aclose()
        await background.aclose()


# -- schema, binding, errors ---------------------------------------------------------------------


async def test_migrations_are_idempotent_and_share_the_file(db_path: str) -> None:
    first = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    second = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    working = await SqliteWorkingStore.open(db_path)
    await first.put(T, [make_record("kept", tenant=T)])
    await first.aclose()
    await second.aclose()
    await working.aclose()
    with sqlite3.connect(db_path) as conn:
        conn.isolation_level = None
        assert apply_migrations(conn, "longterm", MIGRATIONS) == 0
        versions = dict(conn.execute("SELECT component, version FROM sedimem_schema"))
        assert versions == {"longterm": len(MIGRATIONS), "working": len(WORKING_MIGRATIONS)}
        assert conn.execute("SELECT COUNT(*) FROM lt_record").fetchone() == (1,)


async def test_a_newer_schema_is_refused(db_path: str) -> None:
    s = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    await s.aclose()
    with sqlite3.connect(db_path) as conn:
        conn.execute("UPDATE sedimem_schema SET version = 99 WHERE component = 'longterm'")
    with pytest.raises(ConfigurationError):
        await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())


async def test_binding_survives_reopening(db_path: str, store: SqliteLongTermStore) -> None:
    again = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    try:
        with pytest.raises(ConfigurationError):
            await again.bind_embedder("other", 8)
        await again.bind_embedder("e", 8)
    finally:
        await again.aclose()


@pytest.mark.parametrize(("name", "dimension"), [("", 8), ("e", 0), ("e", True), ("e", 2.5)])
async def test_bad_bindings_are_refused(
    store: SqliteLongTermStore, name: str, dimension: int
) -> None:
    with pytest.raises(ValidationError):
        await store.bind_embedder(name, dimension)


@pytest.mark.parametrize(
    "vector", [np.array([np.nan] * 8, np.float32), np.array(["x"] * 8), np.ones((2, 4), np.float32)]
)
async def test_bad_vectors_are_refused(store: SqliteLongTermStore, vector: np.ndarray) -> None:
    with pytest.raises(ValidationError) as info:
        await store.put(T, [make_record("bad", tenant=T, vector=vector)])
    assert info.value.field == "vector"
    with pytest.raises(ValidationError):
        await store.vector_search(T, RecordFilter(), vector, 5)
    assert await store.count(T, RecordFilter()) == 0


async def test_a_zero_vector_is_stored_and_scores_zero(store: SqliteLongTermStore) -> None:
    zero = make_record("zero", tenant=T, vector=np.zeros(8, np.float32))
    await store.put(T, [zero])
    assert await store.vector_search(T, RecordFilter(), unit_vector(1), 5) == [(zero.id, 0.0)]
    assert await store.vector_search(T, RecordFilter(), np.zeros(8, np.float32), 5) == [
        (zero.id, 0.0)
    ]


async def test_a_closed_store_raises_store_error(db_path: str) -> None:
    s = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    await s.aclose()
    await s.aclose()  # twice is fine
    with pytest.raises(StoreError):
        await s.count(T, RecordFilter())


async def test_an_unopenable_file_fails_cleanly(tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        await SqliteLongTermStore.open(
            str(tmp_path / "missing-dir" / "x.db"), index=MemoryIndexEngine()
        )


async def test_warm_without_memory_index_is_a_no_op(db_path: str) -> None:
    s = await SqliteLongTermStore.open(db_path)
    try:
        await s.put(T, [make_record("x", tenant=T)])
        await s.warm(T)
        assert await s.index_info(T, "episode") is None
        assert s.name == "sqlite"
    finally:
        await s.aclose()


# -- analysis ------------------------------------------------------------------------------------


async def test_accents_and_inflections_match_on_both_paths(
    store: SqliteLongTermStore, plain: SqliteLongTermStore
) -> None:
    record = make_record("Ana opened a café in Zürich", tenant=T)
    await store.put(T, [record])
    for s in (store, plain):
        for term in ("cafe", "zurich", "OPENS", "Café"):
            assert [i for i, _ in await s.keyword_search(T, RecordFilter(), [term], 5)] == [
                record.id
            ], term


async def test_fused_search_gives_the_same_candidates_with_or_without_the_index(
    store: SqliteLongTermStore, plain: SqliteLongTermStore
) -> None:
    records = random_records(np.random.default_rng(21), 200)
    await store.put(T, records)
    await store.delete(T, [r.id for r in records[:20]])
    by_id = {r.id: r for r in records}
    for flt in FILTERS:
        seen: list[tuple[set[str], list[str], dict[str, tuple[float, float]]]] = []
        for s in (store, plain):
            got: dict[str, Any] = {}

            def pick(
                keyword: list[tuple[str, float]],
                vector: list[tuple[str, float]],
                traits: dict[str, tuple[float, float]],
                got: dict[str, Any] = got,
            ) -> list[str]:
                got.update(keyword=keyword, vector=vector, traits=traits)
                return [i for i, _ in vector[:3]] + ["deleted-meanwhile"]

            # every match (BM25 scores differ between FTS5 and the index: compare sets)
            rows = await s.fused_search(T, flt, ["apple", "kiwi"], unit_vector(4), 10_000, pick)
            assert set(rows) == {i for i, _ in got["vector"][:3]}
            assert all(rows[i].text == by_id[i].text for i in rows)
            candidates = {i for i, _ in got["keyword"]} | {i for i, _ in got["vector"]}
            assert set(got["traits"]) == candidates
            for i, (occurred, importance) in got["traits"].items():
                assert occurred == pytest.approx(by_id[i].occurred_at)
                assert importance == pytest.approx(by_id[i].importance)
            keyword_ids = {i for i, _ in got["keyword"]}
            seen.append((keyword_ids, [i for i, _ in got["vector"]], got["traits"]))
        assert seen[0] == seen[1]
    nothing = await store.fused_search(T, RecordFilter(), [], None, 10, lambda k, v, t: [])
    assert nothing == {}


async def test_previews_and_records_now_read_the_tenants_rows(
    store: SqliteLongTermStore,
) -> None:
    a = make_record("first words", tenant=T, session="s1", occurred_at=100.0)
    b = make_record("second words", tenant=T, occurred_at=200.0)
    other = make_record("another tenant", tenant="u")
    await store.put(T, [a, b])
    await store.put("u", [other])
    previews = await store.previews(T, [a.id, b.id, other.id, "missing"])
    assert previews == {a.id: ("first words", "s1", 100.0), b.id: ("second words", None, 200.0)}
    assert await store.previews(T, []) == {}
    rows = await store.records_now(T, [b.id, other.id])
    assert [r.id for r in rows] == [b.id]
    assert rows[0] == (await store.get(T, [b.id]))[0]
    assert await store.records_now(T, []) == []


async def test_reads_right_after_a_search_follow_replacements_and_tenants(
    store: SqliteLongTermStore, db_path: str
) -> None:
    """Previews and records read right after a search (by the row ids the search found)
    are those of the rows as they are now: a record replaced since by another handle is
    read in its new version, one deleted since is absent, and another tenant asking for
    the same ids gets nothing."""
    records = [make_record(f"plum number {i}", tenant=T) for i in range(6)]
    await store.put(T, records)
    ids = [i for i, _ in await store.keyword_search(T, RecordFilter(), ["plum"], 10)]
    assert sorted(ids) == sorted(r.id for r in records)
    other = await SqliteLongTermStore.open(db_path)
    try:
        await other.put(T, [dataclasses.replace(records[0], text="plum, replaced")])
        await other.delete(T, [records[1].id])
    finally:
        await other.aclose()
    previews = await store.previews(T, ids)
    assert set(previews) == {r.id for r in records[:1] + records[2:]}
    assert previews[records[0].id][0] == "plum, replaced"
    assert previews[records[2].id][0] == "plum number 2"
    now = {r.id: r.text for r in await store.records_now(T, ids)}
    assert now == {r.id: previews[r.id][0] for r in records if r.id in previews}
    assert await store.previews("someone else", ids) == {}
    assert await store.records_now("someone else", ids) == []


async def test_a_store_of_an_earlier_schema_gains_the_later_indexes(db_path: str) -> None:
    """A file written before the time and handle indexes is brought to the current schema
    when opened: its records kept, the indexes made, the one they replace gone."""
    store = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    await store.put(T, [make_record("kept", tenant=T, session="s1")])
    await store.aclose()
    with sqlite3.connect(db_path) as conn:  # back to schema 2, as an earlier version wrote it
        conn.isolation_level = None
        conn.execute("DROP INDEX lt_record_session_time")
        conn.execute("DROP INDEX lt_record_time")
        conn.execute("DROP INDEX lt_record_handle")
        conn.execute("CREATE INDEX lt_record_session ON lt_record (tenant, session)")
        conn.execute("UPDATE sedimem_schema SET version = 2 WHERE component = 'longterm'")
    store = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine())
    try:
        assert [r.text for r in await store.find(T, RecordFilter(session="s1"), limit=5)] == [
            "kept"
        ]
    finally:
        await store.aclose()
    with sqlite3.connect(db_path) as conn:
        indexes = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
        version = conn.execute("SELECT version FROM sedimem_schema WHERE component = 'longterm'")
        assert version.fetchone() == (len(MIGRATIONS),)
    assert {"lt_record_session_time", "lt_record_time", "lt_record_handle"} <= indexes
    assert "lt_record_session" not in indexes


async def test_a_page_of_records_is_not_queued_behind_a_write(
    store: SqliteLongTermStore,
) -> None:
    """``find`` (a page of records: what ``assemble`` reads for replies, current facts and
    blocks) runs on a reader of the calling thread, like a search: it answers while the
    writer thread is busy, and sees every acknowledged write."""
    await store.put(T, [make_record("kept", tenant=T, session="s1")])
    busy, release = asyncio.Event(), asyncio.Event()
    loop = asyncio.get_running_loop()

    def hold(conn: sqlite3.Connection) -> None:  # a long write transaction on the worker
        loop.call_soon_threadsafe(busy.set)
        asyncio.run_coroutine_threadsafe(release.wait(), loop).result(timeout=10)

    holding = asyncio.create_task(store._db.run(hold))
    await asyncio.wait_for(busy.wait(), 5)
    try:
        page = await asyncio.wait_for(store.find(T, RecordFilter(session="s1"), limit=5), 2)
        assert [r.text for r in page] == ["kept"]
    finally:
        release.set()
        await holding
