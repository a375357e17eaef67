"""Hybrid search on PostgreSQL: both candidate lists by ids and scores in one statement
(iterative scans, planner statistics) or two (older servers), then the picked records."""

from __future__ import annotations

from typing import Any

import psycopg
import pytest

from sedimem.retrieval.fusion import Candidate, RetrievalSettings, fuse_ranked, fusion_rule
from sedimem.scope import Scope
from sedimem.storage.longterm.base import Ranked, RecordFilter, Traits
from sedimem.storage.longterm.postgres import PostgresLongTermStore, search
from sedimem.storage.longterm.postgres.filters import record_where
from sedimem.storage.longterm.postgres.fused import GENERIC_PLAN
from sedimem.storage.longterm.postgres.stems import Guesser
from tests.storage.longterm.postgres.test_store import (
    PITFALL_DIM,
    PITFALL_ROWS,
    TENANT,
    exact_top,
    pitfall_store,
    pitfall_url,
    pitfall_vectors,
    record,
    unit_vectors,
)

pytestmark = pytest.mark.postgres

__all__ = ["pitfall_store", "pitfall_url", "pitfall_vectors"]  # fixtures used here

FILTERS = [
    RecordFilter(task_type="rare"),
    RecordFilter(visible_to=Scope(tenant=TENANT, project="p3")),
    RecordFilter(min_importance=0.8, ids=tuple(f"r{i:05d}" for i in range(0, 700, 100))),
    RecordFilter(),
]
FILTER_IDS = ["1%", "10%-scope", "7-rows", "unfiltered"]


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> list[bytes | str]:
    """The statements pooled connections send (counted, then sent as usual), but the setting
    of a generic plan that travels with the candidates statement (one round trip, piped)."""
    sent: list[bytes | str] = []
    execute = psycopg.AsyncConnection.execute

    async def counting(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        if query != GENERIC_PLAN:
            sent.append(query if isinstance(query, bytes | str) else repr(query))
        return await execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.AsyncConnection, "execute", counting)
    return sent


def assert_same_neighbours(fused: list[Ranked], alone: list[Ranked], *, graph: bool) -> None:
    """The vector candidates of a fused search are what a vector search returns.

    ``graph``: the search may walk the HNSW graph (an unfiltered search of this table). The
    planner weighs graph against sort by the table's statistics (which autovacuum refreshes
    in the background) and by the columns each statement reads, so once statistics exist it
    may answer one statement exactly and the other from the graph: then both are valid
    nearest-neighbour answers, not the same one. Filtered searches are exact: equal."""
    ids, expected = [rid for rid, _ in fused], [rid for rid, _ in alone]
    assert len(ids) == len(expected)
    if not graph:
        assert ids == expected
    else:
        assert len(set(ids) & set(expected)) >= len(ids) // 2, (ids, expected)
        assert [s for _, s in fused] == sorted((s for _, s in fused), reverse=True)
    scores = dict(alone)
    for rid, score in fused:
        if rid in scores:
            assert score == pytest.approx(scores[rid], abs=1e-5)


@pytest.mark.parametrize("flt", FILTERS, ids=FILTER_IDS)
async def test_fused_search_is_both_searches_then_the_picked_records(
    pitfall_store: PostgresLongTermStore, flt: RecordFilter, statements: list[bytes | str]
) -> None:
    terms = ["record", "300", "1200", "4100"]  # one word in every row, three in one row each
    queries = unit_vectors(3, PITFALL_DIM, seed=21)
    seen: list[tuple[list[Ranked], list[Ranked], Traits]] = []

    def pick(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
        seen.append((keyword, vector, traits))
        return [rid for rid, _ in vector[:3]] + [rid for rid, _ in keyword[:1]]

    await pitfall_store.fused_search(TENANT, flt, terms, queries[0], 20, pick)  # stems cached
    for query in queries:
        seen.clear()
        statements.clear()
        rows = await pitfall_store.fused_search(TENANT, flt, terms, query, 20, pick)
        sent = len(statements)
        ((keyword, vector, traits),) = seen
        ranked = await pitfall_store.keyword_search(TENANT, flt, terms, 20)
        assert [rid for rid, _ in keyword] == [rid for rid, _ in ranked]
        assert [s for _, s in keyword] == pytest.approx([s for _, s in ranked])
        nearest = await pitfall_store.vector_search(TENANT, flt, query, 20)
        assert_same_neighbours(vector, nearest, graph=flt == RecordFilter())
        matching = await pitfall_store.count(TENANT, flt)
        assert len(vector) == min(20, matching)  # k rows whenever k match
        picked = pick(keyword, vector, traits)
        assert rows == {r.id: r for r in await pitfall_store.get(TENANT, picked)}
        for rid in picked:
            assert traits[rid] == (rows[rid].occurred_at, rows[rid].importance)
        if pitfall_store.iterative_scans:
            # candidates and records: two statements (stems and statistics are cached; a
            # filter of fewer than 20 rows was searched exactly, nothing more to look for)
            assert sent == 2, statements


async def test_candidates_carry_the_traits_fusion_needs(
    pitfall_store: PostgresLongTermStore,
) -> None:
    query = unit_vectors(1, PITFALL_DIM, seed=3)[0]
    seen: list[Traits] = []

    def pick(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
        seen.append(traits)
        return list(traits)

    rows = await pitfall_store.fused_search(TENANT, RecordFilter(), ["record"], query, 30, pick)
    assert len(rows) == len(seen[0]) >= 30
    for rid, (occurred_at, importance) in seen[0].items():
        assert occurred_at == rows[rid].occurred_at
        assert importance == rows[rid].importance
        assert importance == (0.9 if int(rid[1:]) % 100 == 0 else 0.5)
    assert len(rows) <= 60
    assert PITFALL_ROWS > 60


async def _graph_walked(store: PostgresLongTermStore, flt: RecordFilter, query: Any) -> bool:
    """Whether the vector search of ``flt`` ran the HNSW index scan (EXPLAIN ANALYZE)."""
    async with store._pool.connection() as conn:
        statement, params = search.iterative_query(
            conn, record_where(TENANT, flt), query, 10, exact_threshold=600, select="ids"
        )
        cursor = await conn.execute(b"EXPLAIN (ANALYZE, COSTS OFF) " + statement, params)
        plan = [str(row[0]) for row in await cursor.fetchall()]
    (scan,) = [line for line in plan if "embedding_hnsw" in line]
    return "never executed" not in scan


async def test_a_filter_within_the_exact_threshold_is_sorted_not_walked(
    pitfall_url: str, pitfall_vectors: Any
) -> None:
    """A filter of at most ``exact_threshold`` rows is answered by sorting its rows (exact,
    and the graph is not walked); a broader one by the iterative index scan."""
    store = await PostgresLongTermStore.open(pitfall_url, exact_threshold=600)
    assert store.iterative_scans  # this server has them (pgvector >= 0.8)
    try:
        scope = RecordFilter(visible_to=Scope(tenant=TENANT, project="p3"))  # 500 rows
        keep = [i for i in range(PITFALL_ROWS) if i % 10 == 3]
        for query in unit_vectors(5, PITFALL_DIM, seed=31):
            found = await store.vector_search(TENANT, scope, query, 10)
            assert [rid for rid, _ in found] == exact_top(pitfall_vectors, query, 10, keep)
            assert not await _graph_walked(store, scope, query)
            assert await _graph_walked(store, RecordFilter(), query)  # 5,000 rows
    finally:
        await store.aclose()


async def _server_keyword_list(
    url: str, iterative: bool, flt: RecordFilter, terms: list[str], tenant: str = TENANT
) -> list[Ranked]:
    """The keyword list of ``terms`` by a store of its own that stems them on the server."""
    fresh = await PostgresLongTermStore.open(url, iterative_scans=iterative)
    try:
        return await fresh.keyword_search(tenant, flt, terms, 20)
    finally:
        await fresh.aclose()


async def test_new_words_are_stemmed_by_the_candidates_statement(
    pitfall_store: PostgresLongTermStore, pitfall_url: str, statements: list[bytes | str]
) -> None:
    """Words the store has not seen are guessed and checked within the candidates statement:
    candidates and records, two statements, and the keyword list the server's stems give."""
    query = unit_vectors(1, PITFALL_DIM, seed=5)[0]
    flt = RecordFilter(visible_to=Scope(tenant=TENANT, project="p3"))
    terms = ["Records", "of", "the", "1203", "recording"]
    seen: list[list[Ranked]] = []

    def pick(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
        seen.append(keyword)
        return [rid for rid, _ in keyword[:3]]

    await pitfall_store.fused_search(TENANT, flt, ["record"], query, 20, pick)  # statistics
    statements.clear()
    rows = await pitfall_store.fused_search(TENANT, flt, terms, query, 20, pick)
    sent = list(statements)
    expected = await _server_keyword_list(pitfall_url, pitfall_store.iterative_scans, flt, terms)
    assert seen[-1] == expected
    assert seen[-1][0][0] == "r01203"  # both lexemes ("record", "1203") outrank one
    assert set(rows) == {rid for rid, _ in seen[-1][:3]}
    if pitfall_store.iterative_scans:
        assert len(sent) == 2, sent
        assert b"to_tsvector" in bytes(sent[0])  # the check of the guesses
        statements.clear()
        await pitfall_store.fused_search(TENANT, flt, terms, query, 20, pick)
        assert len(statements) == 2
        assert b"to_tsvector" not in bytes(statements[0])  # checked once, then cached
        assert seen[-1] == expected


async def test_a_wrong_guess_is_searched_again_with_the_servers_stems(
    pitfall_store: PostgresLongTermStore, pitfall_url: str, statements: list[bytes | str]
) -> None:
    """PostgreSQL's Snowball stems "organization" to ``organ``, PyStemmer's to ``organiz``: the
    check finds the guess wrong, and the search runs again with the server's stems."""
    tenant = "guesses"
    vectors = unit_vectors(3, PITFALL_DIM, seed=9)
    texts = ["the organ of the church", "an organization of friends", "nothing here"]
    await pitfall_store.put(
        tenant,
        [
            record(f"g{i}", t, vector=v, tenant=tenant)
            for i, (t, v) in enumerate(zip(texts, vectors, strict=True))
        ],
    )
    assert Guesser().lexemes(["organization"]) == [("organiz",)]  # the wrong guess
    seen: list[list[Ranked]] = []

    def pick(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
        seen.append(keyword)
        return [rid for rid, _ in keyword]

    flt, terms = RecordFilter(), ["organization"]
    await pitfall_store.fused_search(tenant, flt, ["church"], vectors[2], 5, pick)  # statistics
    seen.clear()
    statements.clear()
    rows = await pitfall_store.fused_search(tenant, flt, terms, vectors[2], 5, pick)
    sent = list(statements)
    assert len(seen) == 1  # fusion saw the right lists only
    assert {rid for rid, _ in seen[0]} == {"g0", "g1"} == set(rows)
    expected = await _server_keyword_list(
        pitfall_url, pitfall_store.iterative_scans, flt, terms, tenant
    )
    assert seen[0] == expected
    if pitfall_store.iterative_scans:
        # the candidates with the check, the server's stems, the candidates, the records
        assert len(sent) == 4, sent
        statements.clear()
        await pitfall_store.fused_search(tenant, flt, terms, vectors[2], 5, pick)
        assert len(statements) == 2  # the server's stem is cached
        assert seen[-1] == expected


@pytest.mark.parametrize("flt", FILTERS[:3], ids=FILTER_IDS[:3])
async def test_the_records_fusion_picks_come_with_the_candidates(
    pitfall_store: PostgresLongTermStore, flt: RecordFilter, statements: list[bytes | str]
) -> None:
    """Told fusion's rule, the candidates statement reads the records of its top ids: a
    search is one statement when ``pick`` fuses by that rule, and any other pick still gets
    the records it chose (read after)."""
    settings = RetrievalSettings(recency_weight=0.3, importance_weight=0.2)
    now = 1_700_000_000.0 + 4000.0 * 86400.0  # the records' times spread over 5,000 days
    rule = fusion_rule(settings, now=now, limit=10)
    terms = ["record", "300", "1203", "4100"]
    chosen: list[list[str]] = []

    def fusing(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
        candidates = {rid: Candidate(*pair) for rid, pair in traits.items()}
        fused = fuse_ranked(keyword, vector, candidates, now=now, settings=settings, limit=10)
        chosen.append([rid for rid, _ in fused])
        return chosen[-1]

    def other(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
        chosen.append([rid for rid, _ in vector[-3:]] + [rid for rid, _ in keyword[:1]])
        return chosen[-1]

    query = unit_vectors(1, PITFALL_DIM, seed=13)[0]
    await pitfall_store.fused_search(TENANT, flt, terms, query, 20, fusing)  # stems, statistics
    top = set(chosen[0])
    for pick in (fusing, other):
        statements.clear()
        rows = await pitfall_store.fused_search(TENANT, flt, terms, query, 20, pick, fusion=rule)
        sent = len(statements)
        assert rows == {r.id: r for r in await pitfall_store.get(TENANT, chosen[-1])}
        assert len(rows) == len(set(chosen[-1])) > 0
        if pitfall_store.iterative_scans:
            # the records of ids outside fusion's top are read after the candidates
            assert sent == (1 if set(chosen[-1]) <= top else 2), statements
        else:
            assert sent >= 2  # the lists, then the records
    if len(top) == 10:  # (of 7 rows, fusion's top holds every candidate)
        assert not set(chosen[-1]) <= top  # the read after the candidates was tested


async def test_the_candidates_statement_alone_runs_its_generic_plan(
    pitfall_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once prepared, the candidates statement (iterative scans: one statement) reuses its
    generic plan; the connection's other statements are still planned for their values."""
    pitfall_store = await PostgresLongTermStore.open(pitfall_url, iterative_scans=True)
    try:
        await _generic_plan_used(pitfall_store, monkeypatch)
    finally:
        await pitfall_store.aclose()


async def _generic_plan_used(
    pitfall_store: PostgresLongTermStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    used: list[Any] = []
    execute = psycopg.AsyncConnection.execute

    async def spying(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        used.append(self)
        return await execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.AsyncConnection, "execute", spying)
    flt = RecordFilter(visible_to=Scope(tenant=TENANT, project="p3"))
    queries = unit_vectors(8, PITFALL_DIM, seed=17)

    def pick(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
        return [rid for rid, _ in keyword[:2]]

    for query in queries:  # psycopg prepares a statement on its fifth run
        await pitfall_store.fused_search(TENANT, flt, ["record", "1203"], query, 20, pick)
    conn = used[-1]
    cursor = await execute(
        conn,
        "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
        "WHERE statement LIKE '%%tier0%%'",
    )
    ((generic, custom),) = await cursor.fetchall()
    assert generic >= 2
    assert custom == 0
    cursor = await execute(conn, "SELECT current_setting('plan_cache_mode')")
    assert await cursor.fetchone() == ("force_custom_plan",)
