"""Keyword and vector search on PostgreSQL: every filter inside the SQL, and the records of
the hits read by the same statement (a search is one round trip, not a search and a get).

Keyword search runs the lexeme tiers of :mod:`.keywords` in one statement, a
materialised CTE per tier ranked with ``ts_rank`` (normalised by length) against every
lexeme. Tier 0 ranks all its matches (at most ``cap`` rows: statistics can be wrong or
missing; without them the filter is also fenced off the choice of index, see ``_FENCED``);
each later tier runs only while the tiers before it found fewer than ``k`` rows (a one-time
filter: otherwise its index is never touched), and reads at most ``4 k`` of its matches to
fill the remaining places. A row of a rarer tier always outranks one of a
commoner tier: the score is ``(tiers - 1 - tier + ts_rank) / tiers`` (``ts_rank`` < 1).

Vector search, where the server has iterative index scans (pgvector >= 0.8, detected when
the store opens) and the table has planner statistics, is one statement. It reads the
filter's first ``exact_threshold + 1`` rows by the filter's own indexes; when there are no
more, the answer is their exact top ``k`` (a small scope, the common case, never walks the
graph: the planner, left to choose, walked it for a project of 6 % of 10k rows at 15-25 ms
instead of sorting its 663 rows in under 1 ms). Otherwise the filter runs beside
``ORDER BY distance LIMIT k`` (a materialised CTE, re-sorted: ``relaxed_order`` may return
neighbours slightly out of order), an HNSW scan that goes on past ``ef_search`` candidates
until ``k`` rows pass the filter (up to ``hnsw.max_scan_tuples``), or whatever the planner
prefers. Without statistics its estimates are guesses (a broad filter taken for a row or
two walks a B-tree over every row), so the fenced path below is taken instead; and when the
iterative scan returns fewer than ``k`` rows, the exact steps 2 and 3 below.

Otherwise (pgvector < 0.8, or no statistics) vector search lives with HNSW filtering *after*
the scan: an index scan yields at most ``hnsw.ef_search`` candidates and the filter may
drop most of them. So:

1. an index scan with ``ef_search`` at least ``2 k`` (a session setting, changed only when
   a search needs another value: no transaction and no extra round trip per search; were
   it lost, say behind a transaction pooler, the steps below would still find ``k`` rows,
   only slower); when it returns ``k`` rows, done;
2. otherwise an exact search over the matching rows, reading at most ``exact_threshold``
   of them (a materialised CTE, which the planner cannot answer from the HNSW index); when
   fewer match, that is the exact answer;
3. otherwise (a filter too broad for exact search, too narrow for the candidate list) one
   more index scan at the maximum ``ef_search`` (1000), and an unbounded exact search if
   even that returns fewer than ``k``.

So a search returns ``k`` rows whenever ``k`` rows match: exactly when the filter is
selective, near-exactly (HNSW) otherwise. ``k`` and the caps are literals in the SQL, so
that a prepared statement's generic plan still knows how many rows are wanted.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Literal

from psycopg import AsyncConnection, sql

from sedimem.storage.longterm.base import Vector
from sedimem.storage.longterm.postgres.filters import Where
from sedimem.storage.longterm.postgres.keywords import KeywordPlan, tsquery_text
from sedimem.storage.longterm.postgres.rows import READ_COLUMNS, record_columns
from sedimem.storage.longterm.postgres.schema import TABLE

__all__ = [
    "ITERATIVE_SCAN",
    "MAX_EF_SEARCH",
    "TRAIT_COLUMNS",
    "Hit",
    "Selected",
    "cached_statement",
    "ef_search_for",
    "exact_count",
    "iterative_cte",
    "iterative_params",
    "iterative_query",
    "keyword_ctes",
    "keyword_params",
    "keyword_query",
    "keyword_search",
    "nearest_query",
    "set_ef_search",
    "vector_search",
    "vector_search_further",
]

#: The selected columns of a hit (see :data:`Selected`) and its score.
Hit = tuple[tuple[Any, ...], float]
#: What a search reads of each hit: its record's columns (``READ_COLUMNS``), only its id,
#: or its id with what fusion needs (``TRAIT_COLUMNS``: a fused search reads the records of
#: its fused top k only, not of every candidate).
Selected = Literal["records", "ids", "traits"]
#: The columns of a hit's traits, in order.
TRAIT_COLUMNS = ("id", "occurred_at", "importance")

#: pgvector's upper bound for ``hnsw.ef_search``.
MAX_EF_SEARCH = 1000
#: The session's ``hnsw.iterative_scan`` where the server has iterative index scans.
ITERATIVE_SCAN = "relaxed_order"
#: A tier after the first reads at most this many rows per place asked for.
_FILL_FACTOR = 4

_TABLE = sql.Identifier(TABLE)

_TIER = sql.SQL(
    "{name} AS MATERIALIZED (SELECT id, ts_rank(tsv, %s::tsquery, 1) AS rank FROM {source} "
    "WHERE {where}{match}{gate} LIMIT {limit})"
)
_MATCH = sql.SQL(" AND tsv @@ %s::tsquery")
# Without statistics a filter such as "tenant = x AND kind = y" is guessed to match a row or
# two, and the planner walks the tenant's B-tree index, testing the tsquery on each of its
# rows (~200 ms at 100k records). The fence (OFFSET 0: the filter cannot be pushed inside)
# leaves it the GIN index alone; with statistics, it chooses (a small tenant in a large
# table is better read through the B-tree).
_FENCED = sql.SQL("(SELECT * FROM {table} WHERE tsv @@ %s::tsquery OFFSET 0) AS {table}")
_GATE = sql.SQL(" AND NOT tsv @@ %s::tsquery AND {found} < {k}")
_KEYWORD_TOP = sql.SQL(
    "{tiers}, top AS (SELECT id, (({last} - tier) + least(rank, 1)::float8) / {count} "
    "AS score FROM ({branches}) AS hits ORDER BY score DESC, id LIMIT {k})"
)
_KEYWORD = sql.SQL(
    "WITH {top} "
    "SELECT {columns}, top.score FROM top JOIN {table} AS r ON r.tenant = %s AND r.id = top.id "
    "ORDER BY top.score DESC, r.id"
)

# The index scan sits alone in a subquery, with the filter outside it: that is what HNSW
# does anyway (0.6 filters after the scan), and the planner is left no choice to misjudge.
# With the filter beside it, a table without statistics (a filter estimated to match a
# row or two) was answered by a B-tree scan of the tenant's every row and a sort: ~1 s at
# 100k records.
_NEAREST = sql.SQL(
    "SELECT {columns}, distance FROM ("
    "SELECT {inner}, embedding <=> %s AS distance FROM {table} "
    "WHERE embedding IS NOT NULL ORDER BY distance LIMIT {ef}) AS {table} "
    "WHERE {where} ORDER BY distance LIMIT {k}"
)
# pgvector >= 0.8 with statistics. The filter's first ``exact_threshold + 1`` rows are read
# with their distances (``candidates``, ids only: by the filter's own indexes, fenced off the
# HNSW index by the LIMIT) and counted; a filter matching at most ``exact_threshold`` rows is
# answered from them, exactly; only a broader one runs the filter beside the index scan,
# which the iterative scan keeps feeding until k rows pass it. Left to choose, the planner
# walked the graph for a project holding 6 % of 10k rows (15-25 ms) rather than sort its
# 663 rows (under 1 ms). The price of a broad filter: ``exact_threshold + 1`` rows read
# before the index scan.
_ITERATIVE_CTE = sql.SQL(
    "candidates AS MATERIALIZED (SELECT id, embedding <=> %s AS distance FROM "
    "(SELECT id, embedding FROM {table} WHERE {where} AND embedding IS NOT NULL "
    "LIMIT {over}) AS c), "
    "counted AS MATERIALIZED (SELECT count(*) AS n FROM candidates), "
    "hits AS MATERIALIZED ("
    "(SELECT {aliased}, top.distance FROM (SELECT id, distance FROM candidates "
    "WHERE (SELECT n FROM counted) < {over} ORDER BY distance, id LIMIT {k}) AS top "
    "JOIN {table} AS r ON r.tenant = %s AND r.id = top.id) UNION ALL "
    "(SELECT {columns}, embedding <=> %s AS distance FROM {table} "
    "WHERE {where} AND embedding IS NOT NULL AND (SELECT n FROM counted) >= {over} "
    "ORDER BY distance LIMIT {k}))"
)
_ITERATIVE = sql.SQL(
    "WITH {hits} SELECT *, (SELECT n FROM counted) FROM hits ORDER BY distance, id"
)
_EXACT = sql.SQL(
    "WITH candidates AS MATERIALIZED ("
    "SELECT id, embedding <=> %s AS distance FROM {table} "
    "WHERE {where} AND embedding IS NOT NULL {limit}), "
    "top AS (SELECT id, distance FROM candidates ORDER BY distance, id LIMIT {k}) "
    "SELECT {columns}, top.distance, (SELECT count(*) FROM candidates) FROM top "
    "JOIN {table} AS r ON r.tenant = %s AND r.id = top.id ORDER BY top.distance, r.id"
)

#: ``hnsw.ef_search`` as last set on each pooled connection (a session setting).
_EF_SEARCH: weakref.WeakKeyDictionary[AsyncConnection[Any], int] = weakref.WeakKeyDictionary()

#: Statements as sent, by shape: composing one costs more client CPU than a search's
#: parsing of its rows, and its text is the same for every search of that shape.
_STATEMENTS: dict[tuple[Any, ...], bytes] = {}
_STATEMENTS_KEPT = 512


def cached_statement(
    conn: AsyncConnection[Any], key: tuple[Any, ...], build: Callable[[], sql.Composable]
) -> bytes:
    """The statement ``build`` composes, composed once per shape ``key`` (and encoding)."""
    key = (conn.info.encoding, *key)
    text = _STATEMENTS.get(key)
    if text is None:
        if len(_STATEMENTS) >= _STATEMENTS_KEPT:
            _STATEMENTS.clear()
        text = _STATEMENTS[key] = build().as_bytes(conn)
    return text


def _columns(select: Selected, alias: str | None = None) -> sql.Composable:
    """What a search selects before its score (see :data:`Selected`)."""

    def column(name: str) -> sql.Composable:
        return sql.Identifier(name) if alias is None else sql.Identifier(alias, name)

    if select == "records":
        return record_columns(alias)
    if select == "traits":
        return sql.SQL(", ").join(column(c) for c in TRAIT_COLUMNS)
    return column("id")


def _width(select: Selected) -> int:
    """How many of :func:`_columns` there are."""
    return {"records": len(READ_COLUMNS), "traits": len(TRAIT_COLUMNS), "ids": 1}[select]


def keyword_ctes(where: Where, tiers: int, k: int, cap: int, *, fenced: bool) -> sql.Composed:
    """The CTEs of a keyword search, the last one ``top`` (its ``k`` best ids and scores),
    for a statement's ``WITH``; their parameters are :func:`keyword_params`' but the last."""
    ctes: list[sql.Composable] = []
    branches: list[sql.Composable] = []
    source = _FENCED.format(table=_TABLE) if fenced else _TABLE
    match = sql.SQL("") if fenced else _MATCH
    for number in range(tiers):
        name = sql.Identifier(f"tier{number}")
        gate: sql.Composable = sql.SQL("")
        if number:
            found = sql.SQL(" + ").join(
                sql.SQL("(SELECT count(*) FROM {})").format(sql.Identifier(f"tier{n}"))
                for n in range(number)
            )
            gate = _GATE.format(found=found, k=sql.Literal(k))
        limit = cap if number == 0 else _FILL_FACTOR * k
        ctes.append(
            _TIER.format(
                name=name,
                source=source,
                where=where.clause,
                match=match,
                gate=gate,
                limit=sql.Literal(limit),
            )
        )
        branches.append(
            sql.SQL("SELECT id, {} AS tier, rank FROM {}").format(sql.Literal(number), name)
        )
    return _KEYWORD_TOP.format(
        tiers=sql.SQL(", ").join(ctes),
        last=sql.Literal(tiers - 1),
        count=sql.Literal(float(tiers)),
        branches=sql.SQL(" UNION ALL ").join(branches),
        k=sql.Literal(k),
    )


def _keyword_sql(
    where: Where, tiers: int, k: int, cap: int, columns: sql.Composable, *, fenced: bool
) -> sql.Composed:
    return _KEYWORD.format(
        top=keyword_ctes(where, tiers, k, cap, fenced=fenced), columns=columns, table=_TABLE
    )


def keyword_params(where: Where, tiers: list[list[str]], *, fenced: bool) -> list[Any]:
    everything = tsquery_text(lexeme for tier in tiers for lexeme in tier)
    params: list[Any] = []
    earlier: list[str] = []
    for tier in tiers:
        if fenced:
            params += [everything, tsquery_text(tier), *where.params]
        else:
            params += [everything, *where.params, tsquery_text(tier)]
        if earlier:
            params.append(tsquery_text(earlier))
        earlier += tier
    return [*params, where.params[0]]  # the tenant, for the join to the records


def keyword_query(
    conn: AsyncConnection[Any],
    where: Where,
    plan: KeywordPlan,
    k: int,
    *,
    cap: int,
    select: Selected,
) -> tuple[bytes, list[Any]]:
    """The statement :func:`keyword_search` sends, and its parameters (to EXPLAIN it)."""
    tiers, fenced = plan.tiers, not plan.analysed
    statement = cached_statement(
        conn,
        ("keyword", where.shape, len(tiers), k, cap, select, fenced),
        lambda: _keyword_sql(where, len(tiers), k, cap, _columns(select, "r"), fenced=fenced),
    )
    return statement, keyword_params(where, tiers, fenced=fenced)


async def keyword_search(
    conn: AsyncConnection[Any],
    where: Where,
    plan: KeywordPlan,
    k: int,
    *,
    cap: int,
    select: Selected,
) -> list[Hit]:
    """The ``k`` best matches of the ``plan``'s lexeme tiers (see the module's doc)."""
    if not plan.tiers:
        return []
    statement, params = keyword_query(conn, where, plan, k, cap=cap, select=select)
    cursor = await conn.execute(statement, params)
    width = _width(select)
    return [(row[:width], float(row[width])) for row in await cursor.fetchall()]


async def set_ef_search(conn: AsyncConnection[Any], ef_search: int) -> None:
    if _EF_SEARCH.get(conn) != ef_search:
        # a session setting (the pool runs in autocommit): it stays for the next search
        await conn.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(ef_search)])
        _EF_SEARCH[conn] = ef_search


def nearest_query(
    conn: AsyncConnection[Any],
    where: Where,
    vector: Vector,
    k: int,
    ef_search: int,
    *,
    select: Selected,
) -> tuple[bytes, list[Any]]:
    """The index scan's statement and its parameters (to EXPLAIN it)."""
    statement = cached_statement(
        conn,
        ("nearest", where.shape, k, ef_search, select),
        lambda: _NEAREST.format(
            columns=_columns(select),
            inner=record_columns(),  # every column a filter can name
            table=_TABLE,
            where=where.clause,
            ef=sql.Literal(ef_search),
            k=sql.Literal(k),
        ),
    )
    return statement, [vector, *where.params]


async def _nearest(
    conn: AsyncConnection[Any],
    where: Where,
    vector: Vector,
    k: int,
    ef_search: int,
    select: Selected,
) -> list[Hit]:
    await set_ef_search(conn, ef_search)
    statement, params = nearest_query(conn, where, vector, k, ef_search, select=select)
    cursor = await conn.execute(statement, params)
    width = _width(select)
    return [(row[:width], 1.0 - float(row[width])) for row in await cursor.fetchall()]


def iterative_cte(where: Where, k: int, exact_threshold: int, select: Selected) -> sql.Composed:
    """The CTEs ``candidates``, ``counted`` (the filter's rows, up to ``exact_threshold + 1``)
    and ``hits`` (the ``k`` nearest: exact at most at ``exact_threshold`` rows, else by the
    iterative scan); their parameters are :func:`iterative_params`'."""
    return _ITERATIVE_CTE.format(
        columns=_columns(select),
        aliased=_columns(select, "r"),
        table=_TABLE,
        where=where.clause,
        k=sql.Literal(k),
        over=sql.Literal(max(exact_threshold, k) + 1),
    )


def iterative_params(where: Where, vector: Vector) -> list[Any]:
    return [vector, *where.params, where.params[0], vector, *where.params]


def iterative_query(
    conn: AsyncConnection[Any],
    where: Where,
    vector: Vector,
    k: int,
    *,
    exact_threshold: int,
    select: Selected,
) -> tuple[bytes, list[Any]]:
    """The iterative scan's statement and its parameters (to EXPLAIN it)."""
    statement = cached_statement(
        conn,
        ("iterative", where.shape, k, exact_threshold, select),
        lambda: _ITERATIVE.format(hits=iterative_cte(where, k, exact_threshold, select)),
    )
    return statement, iterative_params(where, vector)


def exact_count(exact_threshold: int, k: int, counted: int) -> bool:
    """Whether a filter of ``counted`` rows (as ``counted`` counts them) was searched
    exactly: then fewer than ``k`` hits are all there are."""
    return counted <= max(exact_threshold, k)


async def _iterative(
    conn: AsyncConnection[Any],
    where: Where,
    vector: Vector,
    k: int,
    ef_search: int,
    exact_threshold: int,
    select: Selected,
) -> tuple[list[Hit], bool]:
    """The hits, and whether they are exact (every matching row was compared)."""
    await set_ef_search(conn, ef_search)
    statement, params = iterative_query(
        conn, where, vector, k, exact_threshold=exact_threshold, select=select
    )
    cursor = await conn.execute(statement, params)
    width = _width(select)
    rows = await cursor.fetchall()
    exact = not rows or exact_count(exact_threshold, k, int(rows[0][width + 1]))
    return [(row[:width], 1.0 - float(row[width])) for row in rows], exact


async def _exact(
    conn: AsyncConnection[Any],
    where: Where,
    vector: Vector,
    k: int,
    cap: int | None,
    select: Selected,
) -> tuple[list[Hit], int]:
    """The exact top ``k`` among the first ``cap + 1`` matching rows (all when ``cap`` is
    None), and how many rows were read."""
    limit = sql.SQL("") if cap is None else sql.SQL("LIMIT {}").format(sql.Literal(cap + 1))
    statement = cached_statement(
        conn,
        ("exact", where.shape, k, cap, select),
        lambda: _EXACT.format(
            table=_TABLE,
            where=where.clause,
            limit=limit,
            k=sql.Literal(k),
            columns=_columns(select, "r"),
        ),
    )
    width = _width(select)
    cursor = await conn.execute(statement, [vector, *where.params, where.params[0]])
    rows = await cursor.fetchall()
    hits = [(row[:width], 1.0 - float(row[width])) for row in rows]
    return hits, (int(rows[0][width + 1]) if rows else 0)


def ef_search_for(ef_search: int, k: int) -> int:
    """The ``hnsw.ef_search`` of a search for ``k`` rows: at least ``2 k``."""
    return min(MAX_EF_SEARCH, max(ef_search, 2 * k))


async def vector_search(
    conn: AsyncConnection[Any],
    where: Where,
    vector: Vector,
    k: int,
    *,
    ef_search: int,
    exact_threshold: int,
    select: Selected,
    iterative: bool = False,
) -> list[Hit]:
    """The ``k`` nearest matching records by cosine similarity (see the module's doc);
    ``iterative``: the server has iterative index scans (enabled on the session) and the
    table has planner statistics."""
    ef = ef_search_for(ef_search, k)
    if iterative:
        hits, exact = await _iterative(conn, where, vector, k, ef, exact_threshold, select)
        if exact:
            return hits
    else:
        hits = await _nearest(conn, where, vector, k, ef, select)
    if len(hits) >= k:
        return hits
    return await vector_search_further(
        conn,
        where,
        vector,
        k,
        ef_search=ef,
        exact_threshold=exact_threshold,
        select=select,
        iterative=iterative,
    )


async def vector_search_further(
    conn: AsyncConnection[Any],
    where: Where,
    vector: Vector,
    k: int,
    *,
    ef_search: int,
    exact_threshold: int,
    select: Selected,
    iterative: bool,
) -> list[Hit]:
    """Steps 2 and 3 of the module's doc: after a first index scan at ``ef_search``
    returned fewer than ``k`` rows."""
    cap = max(exact_threshold, k)
    hits, read = await _exact(conn, where, vector, k, cap, select)
    if read <= cap:
        return hits  # every matching row was read: exact
    if ef_search < MAX_EF_SEARCH and not iterative:  # (an iterative scan went further already)
        hits = await _nearest(conn, where, vector, k, MAX_EF_SEARCH, select)
        if len(hits) >= k:
            return hits
    hits, _ = await _exact(conn, where, vector, k, None, select)
    return hits
