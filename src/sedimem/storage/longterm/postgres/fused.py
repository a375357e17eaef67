"""Hybrid search on PostgreSQL in two short round trips: both candidate lists, then the
records of the fused top k.

Searching each list with its records (``*_search_records``) read and decoded ~100 full rows
per hybrid search, of which fusion keeps ``k``, and spent two pooled connections whose
statements the server ran one after the other anyway (the two CPUs of a small server are
busy with either). Here:

1. **candidates**: one statement whose CTEs are the keyword tiers (:mod:`.search`) and the
   vector search (the iterative scan, where the server has it and the table has planner
   statistics), answering each hit's id, score and what fusion needs (time, importance):
   ``TRAIT_COLUMNS``, a few bytes per row instead of a record. Without iterative scans or
   statistics, the two searches of :mod:`.search` run one after the other on the same
   connection, selecting the same columns; a vector list short of ``pool`` continues as
   :func:`~.search.vector_search` would (exact search of a selective filter).
2. ``pick`` (the service's fusion, not repeated here) chooses the ids to return;
3. **records**: one statement reading them by primary key under the same filter (a
   record edited out of the filter's reach between the two statements is not returned).

The words of the search terms the store has not stemmed yet are not sent to the server in a
statement of their own first: their stems are guessed on the client and the candidates
statement checks the guesses (:mod:`.stems`); a wrong guess (rare) sends the stems
statement and the candidates statement again, before ``pick`` sees anything.

Fusion stays in the service (one implementation for every store), which costs the second
round trip: on loopback ~0.1 ms, against the ~90 records no longer read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from psycopg import AsyncConnection, sql

from sedimem.storage.longterm.base import Pick, RecordFilter, StoredRecord, Traits, Vector
from sedimem.storage.longterm.postgres import search
from sedimem.storage.longterm.postgres.filters import Where, record_where
from sedimem.storage.longterm.postgres.keywords import Guess, KeywordPlan
from sedimem.storage.longterm.postgres.rows import record_columns, record_of
from sedimem.storage.longterm.postgres.schema import TABLE
from sedimem.storage.longterm.postgres.stems import CHECK_CTE, tsvector_text

__all__ = ["Settings", "fused_search"]

_TABLE = sql.Identifier(TABLE)
_KEYWORD, _VECTOR, _COUNTED, _CHECKED = 0, 1, 2, 3

# (list, id, time, importance, score): the keyword list's score is its rank score, the
# vector list's the distance (turned into a similarity by the client, as elsewhere); with
# guessed stems, whether the server stems the words alike (1 or 0, see .stems)
_CANDIDATES = sql.SQL(
    "WITH {keyword}, {vector}{check} "
    "SELECT 0, r.id, r.occurred_at, r.importance, top.score FROM top "
    "JOIN {table} AS r ON r.tenant = %s AND r.id = top.id "
    "UNION ALL SELECT 1, id, occurred_at, importance, distance FROM hits "
    "UNION ALL SELECT 2, NULL, NULL, NULL, n FROM counted{checked}"
)
_CHECKED_ROW = sql.SQL(" UNION ALL SELECT 3, NULL, NULL, NULL, ok::int FROM checked")
_RECORDS = sql.SQL("SELECT {columns} FROM {table} WHERE {where}")


@dataclasses.dataclass(frozen=True, slots=True)
class Settings:
    """The store's search settings a fused search needs."""

    ef_search: int
    exact_threshold: int
    keyword_cap: int
    iterative: bool  # iterative scans on the server and planner statistics of the table


async def fused_search(
    conn: AsyncConnection[Any],
    tenant: str,
    flt: RecordFilter,
    plan: KeywordPlan,
    vector: Vector | None,
    pool: int,
    pick: Pick,
    settings: Settings,
    *,
    check: Guess | None = None,
) -> dict[str, StoredRecord] | None:
    """Up to ``pool`` keyword hits of ``plan`` and vector hits of ``vector``, then the
    records of the ids ``pick`` chooses (see the module's doc).

    ``check``: the guessed stems ``plan`` was made of, checked by the candidates statement
    (only one statement can: both lists, see :func:`one_statement`); None, without calling
    ``pick``, when the server stems a word otherwise (search again with its stems)."""
    where = record_where(tenant, flt)
    keyword: list[search.Hit] = []
    similar: list[search.Hit] = []
    cap = max(settings.keyword_cap, 4 * pool)
    if one_statement(plan, vector, settings):
        assert vector is not None
        both = await _both(conn, where, plan, vector, pool, cap, settings, check)
        if both is None:
            return None
        keyword, similar = both
    else:
        if check is not None:
            raise ValueError("guessed stems are only checked by a search in one statement")
        if plan.tiers:
            keyword = await search.keyword_search(conn, where, plan, pool, cap=cap, select="traits")
        if vector is not None:
            similar = await search.vector_search(
                conn,
                where,
                vector,
                pool,
                ef_search=settings.ef_search,
                exact_threshold=settings.exact_threshold,
                select="traits",
                iterative=settings.iterative,
            )
    traits: Traits = {}
    for row, _ in (*keyword, *similar):
        traits[str(row[0])] = (float(row[1]), float(row[2]))
    chosen = pick(_ranked(keyword), _ranked(similar), traits)
    if not chosen:
        return {}
    return await _records(conn, tenant, flt, chosen)


def one_statement(plan: KeywordPlan, vector: Vector | None, settings: Settings) -> bool:
    """Whether both candidate lists come from one statement (keyword tiers, a vector, and
    iterative scans with planner statistics)."""
    return bool(plan.tiers) and vector is not None and settings.iterative


def _ranked(hits: list[search.Hit]) -> list[tuple[str, float]]:
    return [(str(row[0]), score) for row, score in hits]


async def _both(
    conn: AsyncConnection[Any],
    where: Where,
    plan: KeywordPlan,
    vector: Vector,
    pool: int,
    cap: int,
    settings: Settings,
    check: Guess | None,
) -> tuple[list[search.Hit], list[search.Hit]] | None:
    """Both candidate lists from one statement (iterative scans, planner statistics); None
    when ``check``'s guesses are not the server's stems."""
    tiers, fenced = plan.tiers, not plan.analysed
    ef = search.ef_search_for(settings.ef_search, pool)
    await search.set_ef_search(conn, ef)
    statement = search.cached_statement(
        conn,
        ("candidates", where.shape, len(tiers), pool, cap, fenced, check is not None),
        lambda: _CANDIDATES.format(
            keyword=search.keyword_ctes(where, len(tiers), pool, cap, fenced=fenced),
            vector=search.iterative_cte(where, pool, settings.exact_threshold, "traits"),
            check=sql.SQL(", {}").format(CHECK_CTE) if check is not None else sql.SQL(""),
            table=_TABLE,
            checked=_CHECKED_ROW if check is not None else sql.SQL(""),
        ),
    )
    keyword_params = search.keyword_params(where, tiers, fenced=fenced)
    checked: list[Any] = []
    if check is not None:
        checked = [check.words, [tsvector_text(lexemes) for lexemes in check.guessed]]
    # the tiers' parameters, the vector CTEs', the check's, then the tenant of the keyword
    # list's join
    params = [
        *keyword_params[:-1],
        *search.iterative_params(where, vector),
        *checked,
        keyword_params[-1],
    ]
    cursor = await conn.execute(statement, params)
    keyword: list[tuple[float, str, search.Hit]] = []
    similar: list[tuple[float, str, search.Hit]] = []
    exact = False
    for which, rid, occurred_at, importance, score in await cursor.fetchall():
        row = (rid, occurred_at, importance)
        if which == _CHECKED:
            if not score:
                return None
        elif which == _COUNTED:
            exact = search.exact_count(settings.exact_threshold, pool, int(score))
        elif which == _KEYWORD:
            keyword.append((-float(score), rid, (row, float(score))))
        else:
            similar.append((float(score), rid, (row, 1.0 - float(score))))
    # each list in the order its own search gives (score, then id; distance, then id)
    keyword.sort(key=lambda entry: (entry[0], entry[1]))
    similar.sort(key=lambda entry: (entry[0], entry[1]))
    vector_hits = [hit for _, _, hit in similar]
    # fewer than pool passed the filter within the iterative scan's reach (an exact search
    # found all there are)
    if len(vector_hits) < pool and not exact:
        vector_hits = await search.vector_search_further(
            conn,
            where,
            vector,
            pool,
            ef_search=ef,
            exact_threshold=settings.exact_threshold,
            select="traits",
            iterative=True,
        )
    return [hit for _, _, hit in keyword], vector_hits


async def _records(
    conn: AsyncConnection[Any], tenant: str, flt: RecordFilter, ids: Sequence[str]
) -> dict[str, StoredRecord]:
    """The records of ``ids`` that still exist and still match ``flt``, by id."""
    where = record_where(tenant, dataclasses.replace(flt, ids=tuple(dict.fromkeys(ids))))
    statement = search.cached_statement(
        conn,
        ("records", where.shape),
        lambda: _RECORDS.format(columns=record_columns(), table=_TABLE, where=where.clause),
    )
    cursor = await conn.execute(statement, where.params)
    records = [record_of(row) for row in await cursor.fetchall()]
    return {record.id: record for record in records}
