"""Keyword and vector search on PostgreSQL, with every filter inside the SQL.

Keyword search runs an OR tsquery (built by :mod:`.postgres_keywords`) on the GIN index of
the stored ``tsvector`` and ranks the matches with ``ts_rank`` normalised by length.

Vector search has to live with pgvector's HNSW index filtering *after* the scan (0.6 has no
iterative scans): an index scan yields at most ``hnsw.ef_search`` candidates and the filter
may drop most of them. So:

1. an index scan with ``ef_search`` raised for this transaction (``SET LOCAL``) to at
   least ``2 k``; when it returns ``k`` rows, done;
2. otherwise an exact search over the matching rows, reading at most ``exact_threshold``
   of them (a materialised CTE, which the planner cannot answer from the HNSW index); when
   fewer match, that is the exact answer;
3. otherwise (a filter too broad for exact search, too narrow for the candidate list) one
   more index scan at the maximum ``ef_search`` (1000), and an unbounded exact search if
   even that returns fewer than ``k``.

So a search returns ``k`` rows whenever ``k`` rows match: exactly when the filter is
selective, near-exactly (HNSW) otherwise.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection, sql

from memstrata.storage.longterm.base import Ranked, Vector
from memstrata.storage.longterm.postgres_filters import Where
from memstrata.storage.longterm.postgres_schema import TABLE

__all__ = ["MAX_EF_SEARCH", "keyword_search", "vector_search"]

#: pgvector's upper bound for ``hnsw.ef_search``.
MAX_EF_SEARCH = 1000

_KEYWORD = sql.SQL(
    "SELECT id, ts_rank(tsv, %s::tsquery, 1) AS score FROM {table} "
    "WHERE {where} AND tsv @@ %s::tsquery ORDER BY score DESC, id LIMIT %s"
)

_NEAREST = sql.SQL(
    "SELECT id, embedding <=> %s AS distance FROM {table} "
    "WHERE {where} AND embedding IS NOT NULL ORDER BY distance LIMIT %s"
)

_EXACT = sql.SQL(
    "WITH candidates AS MATERIALIZED ("
    "SELECT id, embedding <=> %s AS distance FROM {table} "
    "WHERE {where} AND embedding IS NOT NULL {limit}) "
    "SELECT id, distance, (SELECT count(*) FROM candidates) FROM candidates "
    "ORDER BY distance, id LIMIT %s"
)


async def keyword_search(
    conn: AsyncConnection[Any], where: Where, query: str, k: int
) -> list[Ranked]:
    """The ``k`` best matches of the tsquery text ``query`` (see :func:`tsquery_text`)."""
    statement = _KEYWORD.format(table=sql.Identifier(TABLE), where=where.clause)
    cursor = await conn.execute(statement, [query, *where.params, query, k])
    return [(str(id_), float(score)) for id_, score in await cursor.fetchall()]


def _ranked(rows: list[tuple[Any, ...]]) -> list[Ranked]:
    return [(str(id_), 1.0 - float(distance)) for id_, distance in rows]


async def _nearest(
    conn: AsyncConnection[Any], where: Where, vector: Vector, k: int, ef_search: int
) -> list[tuple[Any, ...]]:
    async with conn.transaction():
        await conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(ef_search)])
        query = _NEAREST.format(table=sql.Identifier(TABLE), where=where.clause)
        cursor = await conn.execute(query, [vector, *where.params, k])
        return await cursor.fetchall()


async def _exact(
    conn: AsyncConnection[Any], where: Where, vector: Vector, k: int, cap: int | None
) -> tuple[list[tuple[Any, ...]], int]:
    """The exact top ``k`` among the first ``cap + 1`` matching rows (all when ``cap`` is
    None), and how many rows were read."""
    limit = sql.SQL("") if cap is None else sql.SQL("LIMIT {}").format(sql.Literal(cap + 1))
    query = _EXACT.format(table=sql.Identifier(TABLE), where=where.clause, limit=limit)
    cursor = await conn.execute(query, [vector, *where.params, k])
    rows = await cursor.fetchall()
    return [row[:2] for row in rows], (int(rows[0][2]) if rows else 0)


async def vector_search(
    conn: AsyncConnection[Any],
    where: Where,
    vector: Vector,
    k: int,
    *,
    ef_search: int,
    exact_threshold: int,
) -> list[Ranked]:
    """The ``k`` nearest matching records by cosine similarity (see the module's doc)."""
    ef = min(MAX_EF_SEARCH, max(ef_search, 2 * k))
    rows = await _nearest(conn, where, vector, k, ef)
    if len(rows) >= k:
        return _ranked(rows)
    cap = max(exact_threshold, k)
    rows, read = await _exact(conn, where, vector, k, cap)
    if read <= cap:
        return _ranked(rows)  # every matching row was read: exact
    if ef < MAX_EF_SEARCH:
        rows = await _nearest(conn, where, vector, k, MAX_EF_SEARCH)
        if len(rows) >= k:
            return _ranked(rows)
    rows, _ = await _exact(conn, where, vector, k, None)
    return _ranked(rows)
