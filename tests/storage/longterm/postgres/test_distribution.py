"""Ready to be distributed by tenant (Citus): the catalog of a freshly migrated database has
no key, unique index or foreign key without the tenant, and every statement a store on a
distributed table sends (captured by ``pg_stat_statements`` while the conformance suite and
a workload of every store call run) names one tenant at each table it touches. Both checks
are shown to fail: on deliberately bad constraints, on bad statements, and on the one kind
of statement a single-node store sends that would reach every shard (the fenced keyword
scan of a table without statistics, which a distributed store never takes)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import numpy as np
import psycopg
import pytest

from sedimem.errors import StoreUnavailable
from sedimem.storage.longterm.base import Fusion, Ranked, RecordFilter, StoredRecord
from sedimem.storage.longterm.postgres import PostgresLongTermStore
from sedimem.storage.longterm.postgres.schema import TABLE
from sedimem.testing.longterm import LongTermStoreConformance
from sedimem.testing.postgres_server import PostgresServer
from tests.fixtures.services import unavailable
from tests.storage.longterm.postgres.distribution import (
    ALL_TENANT_STATEMENTS,
    catalog_blockers,
    statement_blockers,
)

pytestmark = [pytest.mark.postgres, pytest.mark.slow]  # a server of its own, the suite again

TABLES = {TABLE}
TRACKING = {
    "shared_preload_libraries": "pg_stat_statements",
    "pg_stat_statements.track": "all",  # statements inside functions and DO blocks too
    "pg_stat_statements.max": "10000",
}


@pytest.fixture(scope="module")
def tracked_server() -> Iterator[PostgresServer]:
    """A server recording every statement it runs (``pg_stat_statements``)."""
    server = PostgresServer(settings=TRACKING)
    try:
        server.start()
    except StoreUnavailable as exc:
        server.close()
        unavailable(f"PostgreSQL: {exc}")
    try:
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        yield server
    finally:
        server.close()


def new_database(server: PostgresServer, prefix: str = "t") -> str:
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server.url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"'.encode())
    return server.url_for(name)


@pytest.fixture
async def tracked_url(tracked_server: PostgresServer) -> str:
    url = new_database(tracked_server)
    store = await PostgresLongTermStore.open(url)  # the schema, as any first open sets it up
    await store.aclose()
    return url


class TestConformanceOnATrackedServer(LongTermStoreConformance):
    """The conformance suite of a store taking its table as distributed, so that its
    statements are among those checked below."""

    @pytest.fixture
    async def store(self, tracked_url: str) -> AsyncIterator[PostgresLongTermStore]:
        store = await PostgresLongTermStore.open(tracked_url, distributed=True)
        try:
            yield store
        finally:
            await store.aclose()


# -- the catalog ---------------------------------------------------------------------------


async def test_a_freshly_migrated_schema_can_be_distributed_by_tenant(tracked_url: str) -> None:
    async with await psycopg.AsyncConnection.connect(tracked_url, autocommit=True) as conn:
        assert await catalog_blockers(conn) == []


async def test_the_catalog_check_finds_keys_and_tables_without_the_tenant(
    tracked_url: str,
) -> None:
    bad = [
        f'ALTER TABLE "{TABLE}" ADD CONSTRAINT by_id UNIQUE (id)',
        f'CREATE UNIQUE INDEX by_name ON "{TABLE}" (name)',
        "CREATE TABLE sedimem_lt_links (tenant TEXT NOT NULL, record TEXT NOT NULL "
        f'REFERENCES "{TABLE}" (id), PRIMARY KEY (tenant, record))',
        "CREATE TABLE sedimem_lt_global (id TEXT PRIMARY KEY)",
    ]
    async with await psycopg.AsyncConnection.connect(tracked_url, autocommit=True) as conn:
        for statement in bad:
            await conn.execute(statement.encode())
        found = await catalog_blockers(conn)
    assert len(found) == 5, found
    assert any(f.startswith("unique constraint by_id") for f in found)
    assert any(f.startswith("unique index by_id") for f in found)  # the constraint's index
    assert any(f.startswith("unique index by_name") for f in found)
    assert any(f.startswith("foreign key sedimem_lt_links_record_fkey") for f in found)
    assert any(f.startswith("table sedimem_lt_global") for f in found)


# -- the statements ------------------------------------------------------------------------


def record(
    i: int, vector: np.ndarray, *, tenant: str = "t1", kind: str = "episode"
) -> StoredRecord:
    return StoredRecord(
        tenant=tenant,
        id=f"r{i:05d}",
        kind=kind,
        text=f"note {i} about walrus {i % 7} and the harbour",
        occurred_at=1_700_000_000.0 + i,
        importance=0.5,
        body="{}",
        vector=vector,
        user="ana" if i % 2 else None,
        project="p" if i % 3 else None,
        agent_type=None,
        agent=None,
        session=None,
    )


FUSION = Fusion(
    rrf_k=60.0,
    keyword_weight=1.0,
    vector_weight=1.0,
    recency_weight=0.1,
    importance_weight=0.1,
    half_life_s=30 * 86400.0,
    now=1.7e9,
    limit=10,
)


def pick(keyword: list[Ranked], vector: list[Ranked], traits: object) -> list[str]:
    return [i for i, _ in keyword[:3]] + [i for i, _ in vector[:3]]


async def workload(url: str, *, distributed: bool = True) -> None:
    """Every store call, on a table without statistics and again once it has them (a
    single-node store's searches take other statements then), on two tenants."""
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((1200, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    store = await PostgresLongTermStore.open(
        url, analyze_rows=0, exact_threshold=50, distributed=distributed
    )
    try:
        await store.bind_embedder("e", 8)
        await store.put("t1", [record(i, vectors[i]) for i in range(1000)])
        await store.put("t2", [record(i, vectors[i], tenant="t2") for i in range(1000, 1200)])
        for analysed in (False, True):
            if analysed:
                async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                    await conn.execute(f'ANALYZE "{TABLE}"'.encode())
                await store.scrub()  # VACUUM, and the cached statistics are read again
            for flt in (RecordFilter(), RecordFilter(kind="episode", user="ana")):
                await store.get("t1", ["r00001", "r00002"])
                await store.find("t1", flt, limit=5, after="r00003", newest_first=True)
                await store.count("t1", flt)
                await store.count_by_user("t1", flt)
                await store.keyword_search("t1", flt, ["walrus", "harbour", "3"], 5)
                await store.keyword_search_records("t1", flt, ["walrus 4"], 5)
                await store.vector_search("t1", flt, vectors[3], 5)
                await store.vector_search_records("t1", flt, vectors[4], 300)
                for query in (vectors[5], None):
                    await store.fused_search("t1", flt, ["walrus", "note"], query, 20, pick)
                # new words (their stems checked) and fusion's top read with the candidates
                terms = ["harbours", "letters"] if analysed else ["walruses", "notes"]
                await store.fused_search("t1", flt, terms, vectors[6], 20, pick, fusion=FUSION)
            await store.update_locked(
                "t1", "key", RecordFilter(ids=("r00007",)), lambda current: list(current)
            )
        await store.delete("t1", ["r00008"])
        await store.tenants()
        await store.bind_embedder("other", 4, replace=True)
    finally:
        await store.aclose()


async def captured(server: PostgresServer, prefix: str = "t") -> list[str]:
    """The statements run in the databases named ``{prefix}_...``."""
    async with await psycopg.AsyncConnection.connect(server.url, autocommit=True) as conn:
        cursor = await conn.execute(
            "SELECT query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
            "WHERE starts_with(d.datname, %s)",
            [prefix + "_"],
        )
        return [str(row[0]) for row in await cursor.fetchall()]


async def test_every_statement_the_store_sends_names_its_tenant(
    tracked_server: PostgresServer, tracked_url: str
) -> None:
    await workload(tracked_url)
    statements = await captured(tracked_server)
    touching = [s for s in statements if TABLE in s]
    assert len(touching) >= 20, touching  # the check saw the store's work
    assert any("JOIN" in s for s in touching)  # the searches' joins among them
    blockers = [b for s in statements for b in statement_blockers(s, TABLES)]
    assert blockers == [], "\n".join(sorted(set(blockers)))
    # the statements that span every tenant on purpose are the known ones
    spanning = {" ".join(s.split()) for s in touching} & set(ALL_TENANT_STATEMENTS)
    assert spanning == set(ALL_TENANT_STATEMENTS)


async def test_plain_postgresql_is_not_taken_as_distributed(tracked_url: str) -> None:
    store = await PostgresLongTermStore.open(tracked_url)
    try:
        assert not store.distributed  # no citus extension here
    finally:
        await store.aclose()


async def test_a_single_node_store_without_statistics_fences_its_scans(
    tracked_server: PostgresServer,
) -> None:
    """The check is live on captured statements: on one node, a table without statistics is
    searched in fences (a keyword scan, a nearest-neighbour scan) that read every tenant's
    matches before keeping the tenant's; a distributed store never sends them (above)."""
    url = new_database(tracked_server, "single")
    await workload(url, distributed=False)
    blockers = [
        b for s in await captured(tracked_server, "single") for b in statement_blockers(s, TABLES)
    ]
    assert any("tsv @@" in b for b in blockers), blockers
    assert any("ORDER BY distance" in b for b in blockers), blockers
    assert all("OFFSET" in b or "ORDER BY distance LIMIT" in b for b in blockers), blockers


@pytest.mark.parametrize(
    "statement",
    [
        f'SELECT id FROM "{TABLE}" WHERE id = $1',
        f'SELECT r.id FROM top JOIN "{TABLE}" AS r ON r.id = top.id',
        # the tenant outside an OFFSET 0 fence does not restrict the scan inside it
        f'SELECT id FROM (SELECT * FROM "{TABLE}" WHERE tsv @@ $1::tsquery OFFSET $2) AS '
        f'"{TABLE}" WHERE tenant = $3',
        f'INSERT INTO "{TABLE}" ("id", "kind") VALUES ($1, $2)',
        f'DELETE FROM "{TABLE}" WHERE id = ANY($1::text[])',
        f'UPDATE "{TABLE}" SET importance = $1 WHERE id = $2',
        f'WITH x AS (SELECT id FROM "{TABLE}" WHERE kind = $1) SELECT * FROM x',
    ],
)
def test_the_statement_check_finds_a_table_not_restricted_to_one_tenant(statement: str) -> None:
    assert statement_blockers(statement, TABLES)


@pytest.mark.parametrize(
    "statement",
    [
        f'SELECT id FROM "{TABLE}" WHERE tenant = $1 AND id = $2',
        f'SELECT r.id FROM top JOIN "{TABLE}" AS r ON r.tenant = $1 AND r.id = top.id',
        f'INSERT INTO "{TABLE}" ("tenant", "id") VALUES ($1, $2) ON CONFLICT (tenant, id) '
        'DO UPDATE SET "kind" = EXCLUDED."kind"',
        f'ANALYZE "{TABLE}"',
        f'ALTER TABLE "{TABLE}" ALTER COLUMN embedding TYPE vector(8)',
        "SELECT dimension FROM sedimem_lt_embedder",
    ],
)
def test_the_statement_check_passes_a_statement_of_one_tenant(statement: str) -> None:
    assert statement_blockers(statement, TABLES) == []
