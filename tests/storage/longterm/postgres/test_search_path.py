"""The PostgreSQL store's search path: planner statistics kept fresh by the store, keyword
tiers, bounded keyword work, and what a search costs in round trips."""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector_async
from psycopg import sql
from psycopg_pool import AsyncConnectionPool

from sedimem.ids import HANDLE_LENGTH, ID_LENGTH, handle, new_id
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter, StoredRecord
from sedimem.storage.longterm.postgres import PostgresLongTermStore
from sedimem.storage.longterm.postgres import search as postgres_search
from sedimem.storage.longterm.postgres.analyze import Analyzer
from sedimem.storage.longterm.postgres.filters import HANDLE_CLAUSE, record_where
from sedimem.storage.longterm.postgres.keywords import KeywordPlan, KeywordPlanner

pytestmark = pytest.mark.postgres

TENANT = "acme"


def record(id_: str, text: str, **fields: Any) -> StoredRecord:
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
    return StoredRecord(id=id_, tenant=TENANT, text=text, **values)


def chatter(count: int, start: int = 0) -> list[StoredRecord]:
    return [record(f"c{i:04d}", f"common chatter number {i}") for i in range(start, start + count)]


#: Rows holding a rare word in a long text: ts_rank (by length) puts them below short rows.
AXOLOTLS = [
    record(f"r{i}", f"a long story about many unrelated things that also mentions an axolotl {i}")
    for i in range(3)
]


def table_statistics(url: str) -> tuple[bool, int]:
    """(pg_stats has the tsv column, ANALYZE statements run on the table so far)."""
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT EXISTS (SELECT 1 FROM pg_stats WHERE tablename = 'sedimem_lt_records' "
            "AND attname = 'tsv'), analyze_count FROM pg_stat_user_tables "
            "WHERE relname = 'sedimem_lt_records'"
        ).fetchone()
    assert row is not None
    return bool(row[0]), int(row[1])


@pytest.fixture
def quiet_url(postgres_url: str) -> str:
    """A database whose records table autovacuum leaves alone (so only the store analyses)."""
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE sedimem_lt_records SET (autovacuum_enabled = false)")
    return postgres_url


@pytest.fixture
async def unanalysed(quiet_url: str) -> str:
    """303 records written by a store that never analyses: no statistics at all."""
    writer = await PostgresLongTermStore.open(quiet_url, analyze_rows=0)
    try:
        await writer.put(TENANT, chatter(300))
        await writer.put(TENANT, AXOLOTLS)
    finally:
        await writer.aclose()
    assert table_statistics(quiet_url) == (False, 0)
    return quiet_url


# -- statistics -------------------------------------------------------------------------------


async def test_large_writes_make_the_store_analyse(quiet_url: str) -> None:
    store = await PostgresLongTermStore.open(quiet_url, analyze_rows=200)
    try:
        await store.put(TENANT, chatter(150))
        await store.analyzed()
        assert table_statistics(quiet_url) == (False, 0)  # 150 rows: below the threshold
        await store.put(TENANT, chatter(100, start=150))
        await store.analyzed()
        assert table_statistics(quiet_url) == (True, 1)
        # then as many rows as the table holds (at least 200) again: deletes and updates
        # count too
        await store.delete(TENANT, [f"c{i:04d}" for i in range(120)])
        await store.put(TENANT, chatter(60))
        await store.analyzed()
        assert table_statistics(quiet_url) == (True, 1)
        await store.update_locked(
            TENANT, "k", RecordFilter(ids=("c0000",)), lambda _: chatter(70, start=1000)
        )
        await store.analyzed()
        assert table_statistics(quiet_url) == (True, 2)
    finally:
        await store.aclose()


async def test_the_threshold_grows_with_the_table(quiet_url: str) -> None:
    store = await PostgresLongTermStore.open(quiet_url, analyze_rows=10)
    try:
        await store.put(TENANT, chatter(300))
        await store.analyzed()
        assert table_statistics(quiet_url) == (True, 1)
        await store.put(TENANT, chatter(290, start=300))  # fewer than the 300 it holds
        await store.analyzed()
        assert table_statistics(quiet_url) == (True, 1)
        await store.put(TENANT, chatter(10, start=590))  # now it has doubled
        await store.analyzed()
        assert table_statistics(quiet_url) == (True, 2)
    finally:
        await store.aclose()


async def test_a_search_without_statistics_asks_for_them(unanalysed: str) -> None:
    store = await PostgresLongTermStore.open(unanalysed, keyword_budget=10)
    try:
        await store.keyword_search(TENANT, RecordFilter(), ["common", "axolotl"], 10)
        await store.analyzed()
        assert table_statistics(unanalysed) == (True, 1)
        # the next search plans with them: the rare word's rows come first
        hits = await store.keyword_search(TENANT, RecordFilter(), ["common", "axolotl"], 10)
        assert {id_ for id_, _ in hits[:3]} == {"r0", "r1", "r2"}
        await store.analyzed()
        assert table_statistics(unanalysed) == (True, 1)  # asked once, not per search
    finally:
        await store.aclose()


async def test_missing_statistics_are_asked_for_at_most_once_per_period(quiet_url: str) -> None:
    """ANALYZE by a user who does not own the table does nothing: searches must not ask for
    it again and again."""
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(quiet_url, open=False)
    await pool.open()
    try:
        for retry, runs in ((600.0, 1), (0.0, 2)):
            analyzer = Analyzer(
                pool, min_rows=1, table_rows=0, on_analyzed=lambda: None, retry_seconds=retry
            )
            for _ in range(2):
                analyzer.statistics_missing()
                await analyzer.wait()
            assert analyzer.runs == runs
        disabled = Analyzer(pool, min_rows=0, table_rows=0, on_analyzed=lambda: None)
        disabled.statistics_missing()
        disabled.wrote(10**6)
        await disabled.wait()
        assert disabled.runs == 0
    finally:
        await pool.close()


async def test_an_analyzer_failure_is_logged_not_raised(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pool: AsyncConnectionPool[Any] = AsyncConnectionPool(
        "postgresql://nobody@127.0.0.1:1/none", open=False, timeout=0.5
    )
    analyzed: list[bool] = []
    analyzer = Analyzer(pool, min_rows=1, table_rows=0, on_analyzed=lambda: analyzed.append(True))
    analyzer.wrote(5)
    await analyzer.wait()
    assert analyzed == []
    assert "ANALYZE of sedimem_lt_records failed" in caplog.text
    await pool.close()


# -- keyword tiers ----------------------------------------------------------------------------


async def test_rarer_words_outrank_commoner_ones_and_commoner_ones_fill(quiet_url: str) -> None:
    store = await PostgresLongTermStore.open(quiet_url, keyword_budget=10, analyze_rows=100)
    try:
        await store.put(TENANT, [*chatter(300), *AXOLOTLS])
        await store.analyzed()
        hits = await store.keyword_search(TENANT, RecordFilter(), ["common", "axolotl"], 10)
        # ts_rank alone would put the 300 short "common" rows first and drop the long ones
        assert {id_ for id_, _ in hits[:3]} == {"r0", "r1", "r2"}
        assert len(hits) == 10
        assert all(id_.startswith("c") for id_, _ in hits[3:])
        scores = [score for _, score in hits]
        assert scores == sorted(scores, reverse=True)
        assert all(0 < score <= 1 for score in scores)
        # with the records, the same ranking
        found = await store.keyword_search_records(TENANT, RecordFilter(), ["axolotl", "common"], 4)
        assert [r.id for r, _ in found][:3] == [id_ for id_, _ in hits[:3]]
        assert found[0][0].text.startswith("a long story")
    finally:
        await store.aclose()


async def test_tiers_split_lexemes_by_estimated_rows(quiet_url: str) -> None:
    store = await PostgresLongTermStore.open(quiet_url, analyze_rows=100)
    rows = [
        record(f"a{i}", "alpha " * (i % 2) + "beta " * (i % 5 == 0) + f"w{i}") for i in range(400)
    ]
    try:
        await store.put(TENANT, rows)
        await store.analyzed()
    finally:
        await store.aclose()
    planner = KeywordPlanner(50)  # alpha: ~200 rows, beta: ~80, w7: 1
    async with await psycopg.AsyncConnection.connect(quiet_url, autocommit=True) as conn:
        assert await planner.tiers(conn, ["alpha", "w7", "beta"]) == [["w7"], ["beta"], ["alpha"]]
        assert await planner.tiers(conn, ["w7", "w8"]) == [["w7", "w8"]]
        assert await planner.tiers(conn, ["alpha"]) == [["alpha"]]
        assert await planner.tiers(conn, []) == []
    # a budget of 1,000 rows in a table of 400: tier 0 is held to 100 rows (2 % of the
    # table, at least 100: past a few percent the planner would scan the whole table)
    wide = KeywordPlanner(1000)
    async with await psycopg.AsyncConnection.connect(quiet_url, autocommit=True) as conn:
        assert await wide.tiers(conn, ["alpha", "w7", "beta"]) == [["w7", "beta"], ["alpha"]]


async def test_without_statistics_a_keyword_search_ranks_a_bounded_number_of_rows(
    unanalysed: str,
) -> None:
    """No statistics (or wrong ones): tier 0 reads at most ``keyword_budget`` rows (the first
    found), so a search never ranks the whole table; once analysed, rare words lead."""
    capped = await PostgresLongTermStore.open(unanalysed, keyword_budget=50, analyze_rows=0)
    whole = await PostgresLongTermStore.open(unanalysed, keyword_budget=1000, analyze_rows=0)
    try:
        await capped.put(TENANT, [record("best", "chatter chatter")])  # the last row written
        hits = await capped.keyword_search(TENANT, RecordFilter(), ["chatter"], 1)
        assert hits[0][0] != "best"  # it was beyond the first 50 matching rows
        hits = await whole.keyword_search(TENANT, RecordFilter(), ["chatter"], 1)
        assert hits[0][0] == "best"
    finally:
        await capped.aclose()
        await whole.aclose()


#: The B-tree indexes a planner without statistics prefers for "tenant = x AND kind = y".
BTREES = ("_kind", "_occurred", "_project", "_user", "_agent", "_session")


async def explain(url: str, statement: bytes, params: list[Any]) -> str:
    async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
        await register_vector_async(conn)
        cursor = await conn.execute(b"EXPLAIN (COSTS OFF) " + statement, params)
        return "\n".join(str(row[0]) for row in await cursor.fetchall())


async def test_without_statistics_searches_keep_to_their_indexes(quiet_url: str) -> None:
    """No statistics: "tenant = x AND kind = y" is guessed to match a row or two, and a
    planner left to choose walks the tenant's B-tree testing every row (at 100k records:
    ~0.2 s for a keyword search, ~1 s for a vector search, sorting every distance)."""
    writer = await PostgresLongTermStore.open(quiet_url, analyze_rows=0)
    try:
        await writer.bind_embedder("e", 4)
        vectors = np.random.default_rng(3).standard_normal((2000, 4)).astype(np.float32)
        rows = [
            record(f"v{i}", f"row {i} mentions walrus {i % 7}", vector=v / np.linalg.norm(v))
            for i, v in enumerate(vectors)
        ]
        await writer.put(TENANT, rows)
    finally:
        await writer.aclose()
    assert table_statistics(quiet_url) == (False, 0)
    where = record_where(TENANT, RecordFilter(kind="episode", visible_to=Scope(project="p")))
    async with await psycopg.AsyncConnection.connect(quiet_url, autocommit=True) as conn:
        tiers = [["walrus", "3"]]
        guessed = postgres_search.keyword_query(
            conn, where, KeywordPlan(tiers, analysed=False), 10, cap=100, select="records"
        )
        trusted = postgres_search.keyword_query(
            conn, where, KeywordPlan(tiers, analysed=True), 10, cap=100, select="records"
        )
        nearest = postgres_search.nearest_query(conn, where, vectors[0], 10, 40, select="records")
    plan = await explain(quiet_url, *guessed)
    assert "sedimem_lt_records_tsv" in plan
    assert not any(f"sedimem_lt_records{name} " in plan for name in BTREES), plan
    # (what the fence prevents: the same statement without it)
    plan = await explain(quiet_url, *trusted)
    assert any(f"sedimem_lt_records{name} " in plan for name in BTREES), plan
    plan = await explain(quiet_url, *nearest)
    # (on so small a table pgvector >= 0.8 may rightly prefer reading it all to the index)
    assert not any(f"sedimem_lt_records{name} " in plan for name in BTREES), plan
    # and the answers are right
    store = await PostgresLongTermStore.open(quiet_url, analyze_rows=0)
    try:
        hits = await store.keyword_search(TENANT, RecordFilter(), ["walrus", "3"], 5)
        assert len(hits) == 5
        assert all(int(id_[1:]) % 7 == 3 for id_, _ in hits)
        found = await store.vector_search(TENANT, RecordFilter(kind="episode"), vectors[0], 3)
        assert found[0][0] == "v0"
    finally:
        await store.aclose()


def test_filters_of_the_same_shape_share_a_statement_others_do_not() -> None:
    scope = Scope(tenant=TENANT, project="p", user="u")
    same = [
        record_where(TENANT, RecordFilter(kind="episode", visible_to=scope)),
        record_where("other", RecordFilter(kind="fact", visible_to=Scope(project="q", user="v"))),
    ]
    assert same[0].shape == same[1].shape
    assert same[0].params != same[1].params
    others = [
        RecordFilter(kind="episode"),
        RecordFilter(task_type="episode"),
        RecordFilter(visible_to=scope),
        RecordFilter(visible_to=Scope(tenant=TENANT, project="p")),
        RecordFilter(ids=("a",)),
        RecordFilter(),
    ]
    assert len({record_where(TENANT, flt).shape for flt in others}) == len(others)


# -- round trips and session settings ---------------------------------------------------------


@pytest.fixture
def counted_checks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    check = AsyncConnectionPool.check_connection

    async def counting(conn: Any) -> None:
        calls.append(conn)
        await check(conn)

    monkeypatch.setattr(AsyncConnectionPool, "check_connection", counting)
    return calls


async def test_idle_connections_are_lent_without_a_round_trip(
    postgres_url: str, counted_checks: list[object]
) -> None:
    store = await PostgresLongTermStore.open(postgres_url, min_size=1, max_size=1)
    try:
        await store.put(TENANT, chatter(3))
        for _ in range(5):
            assert len(await store.keyword_search(TENANT, RecordFilter(), ["chatter"], 5)) == 3
        assert counted_checks == []
        # a connection the server closed is noticed before it is lent, and replaced
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            # (waits until the backend is gone: its farewell is in the pool's socket)
            admin.execute(
                "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        assert len(await store.get(TENANT, ["c0000", "c0001"])) == 2
        assert len(counted_checks) == 1
    finally:
        await store.aclose()


async def test_pooled_connections_run_without_jit_and_keep_ef_search(postgres_url: str) -> None:
    store = await PostgresLongTermStore.open(postgres_url, min_size=1, max_size=1, ef_search=40)
    try:
        await store.bind_embedder("e", 2)
        await store.put(TENANT, [record("v", "v", vector=np.ones(2, np.float32))])
        for k, ef in ((5, 40), (50, 100), (1, 40)):
            await store.vector_search(TENANT, RecordFilter(), np.ones(2, np.float32), k)
            async with store._pool.connection() as conn:  # the only connection
                cursor = await conn.execute(
                    "SELECT current_setting('jit'), current_setting('hnsw.ef_search')"
                )
                assert await cursor.fetchone() == ("off", str(ef))
    finally:
        await store.aclose()


async def test_a_handle_is_read_through_its_index(quiet_url: str) -> None:
    """A record named by its handle (a context's ``(id ...)``: the filter ``Memory.read``
    passes) is read through the index on the id's last characters, not by walking the
    tenant's records, once the table has statistics (the store analyses it as it grows)."""
    turns = [record(new_id(), f"turn {i}") for i in range(2000)]
    writer = await PostgresLongTermStore.open(quiet_url, analyze_rows=0)
    try:
        await writer.put(TENANT, turns)
        named = turns[1234]
        flt = RecordFilter(handle=handle(named.id))
        assert [r.id for r in await writer.find(TENANT, flt, limit=5)] == [named.id]
    finally:
        await writer.aclose()
    where = record_where(TENANT, flt)
    async with await psycopg.AsyncConnection.connect(quiet_url, autocommit=True) as conn:
        statement = (
            sql.SQL("SELECT id FROM sedimem_lt_records WHERE {} ORDER BY id LIMIT 5")
            .format(where.clause)
            .as_bytes(conn)
        )
        await conn.execute("ANALYZE sedimem_lt_records")
    plan = await explain(quiet_url, statement, where.params)
    assert "sedimem_lt_records_handle" in plan, plan


def test_the_handle_clause_spells_the_handle_of_sedimem_ids() -> None:
    assert f"right(id, {HANDLE_LENGTH}) = %s AND length(id) = {ID_LENGTH}" == HANDLE_CLAUSE
