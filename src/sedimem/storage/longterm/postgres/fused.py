"""Hybrid search on PostgreSQL in one round trip: both candidate lists and the records of
the fused top k.

Searching each list with its records (``*_search_records``) read and decoded ~100 full rows
per hybrid search, of which fusion keeps ``k``, and spent two pooled connections whose
statements the server ran one after the other anyway (the two CPUs of a small server are
busy with either). Here:

1. **candidates**: one statement whose CTEs are the keyword tiers (:mod:`.search`) and the
   vector search (the iterative scan, where the server has it and the table has planner
   statistics), answering each hit's id, score and what fusion needs (time, importance):
   ``TRAIT_COLUMNS``, a few bytes per row instead of a record. Given the service's fusion
   rule (:class:`~sedimem.storage.longterm.base.Fusion`), the same statement ranks both
   lists by it and returns the records of its top ``limit`` too. Without iterative scans or
   statistics, the two searches of :mod:`.search` run one after the other on the same
   connection, selecting the same columns; a vector list short of ``pool`` continues as
   :func:`~.search.vector_search` would (exact search of a selective filter).
2. ``pick`` (the service's fusion, not repeated here) chooses the ids to return;
3. **records** of the chosen ids the candidates statement did not return (all of them
   without a fusion rule; with one, only when the lists changed after the statement or
   ``pick`` ranks otherwise): one statement reading them by primary key under the same
   filter (a record edited out of the filter's reach meanwhile is not returned).

The server's copy of the rule is a prefetch, never the answer: ``pick`` decides, so results
are what they were with two round trips (all 1,531 LoCoMo questions at 10k records return
the same ids), and a recall that saved the records statement saved a round trip and its
planning (~3 ms each on a busy two-core machine).

The words of the search terms the store has not stemmed yet are not sent to the server in a
statement of their own first: their stems are guessed on the client and the candidates
statement checks the guesses (:mod:`.stems`); a wrong guess (rare) sends the stems
statement and the candidates statement again, before ``pick`` sees anything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from psycopg import AsyncConnection, sql

from sedimem.storage.longterm.base import (
    Fusion,
    Pick,
    RecordFilter,
    StoredRecord,
    Traits,
    Vector,
)
from sedimem.storage.longterm.postgres import search
from sedimem.storage.longterm.postgres.filters import Where, record_where
from sedimem.storage.longterm.postgres.keywords import Guess, KeywordPlan
from sedimem.storage.longterm.postgres.rows import READ_COLUMNS, record_columns, record_of
from sedimem.storage.longterm.postgres.schema import TABLE
from sedimem.storage.longterm.postgres.stems import CHECK_CTE, tsvector_text

__all__ = ["GENERIC_PLAN", "Settings", "fused_search", "one_statement"]

_TABLE = sql.Identifier(TABLE)
_KEYWORD, _VECTOR, _COUNTED, _CHECKED, _RECORD = 0, 1, 2, 3, 4

# (list, id, time, importance, score): the keyword list's score is its rank score, the
# vector list's the distance (turned into a similarity by the client, as elsewhere); with
# guessed stems, whether the server stems the words alike (1 or 0, see .stems). With a
# fusion rule, the records of its top ids come first (row kind 4, their columns after the
# five; NULL in the other rows): first, because a UNION of two NULL columns is typed text.
_CANDIDATES = sql.SQL(
    "WITH {keyword}, {vector}{check}{fused} {records}"
    "SELECT 0, r.id, r.occurred_at, r.importance, top.score{pad} FROM top "
    "JOIN {table} AS r ON r.tenant = %s AND r.id = top.id "
    "UNION ALL SELECT 1, id, occurred_at, importance, distance{pad} FROM hits "
    "UNION ALL SELECT 2, NULL, NULL, NULL, n{pad} FROM counted{checked}"
)
_CHECKED_ROW = sql.SQL(" UNION ALL SELECT 3, NULL, NULL, NULL, ok::int{pad} FROM checked")
# Fusion's rule (see base.Fusion) on both lists, ranked as the client ranks them (ids in
# code point order: COLLATE "C"), to the ids of its top ``limit``. Parameters: keyword
# weight, rrf_k, tenant, vector weight, rrf_k; keyword weight, vector weight, rrf_k,
# recency weight, now, half-life, importance weight.
_FUSED = sql.SQL(
    ", fused AS MATERIALIZED (SELECT id, sum(part) AS raw, min(occurred_at) AS occurred_at, "
    "min(importance) AS importance FROM ("
    "SELECT r.id, %s::float8 / (%s::float8 + row_number() OVER "
    '(ORDER BY top.score DESC, r.id COLLATE "C")) AS part, r.occurred_at, r.importance '
    "FROM top JOIN {table} AS r ON r.tenant = %s AND r.id = top.id "
    "UNION ALL SELECT id, %s::float8 / (%s::float8 + row_number() OVER "
    '(ORDER BY distance, id COLLATE "C")), occurred_at, importance FROM hits) AS parts '
    "GROUP BY id), "
    "chosen AS MATERIALIZED (SELECT id FROM fused ORDER BY "
    "raw / coalesce(nullif((CASE WHEN EXISTS (SELECT FROM top) THEN %s::float8 ELSE 0 END "
    "+ CASE WHEN EXISTS (SELECT FROM hits) THEN %s::float8 ELSE 0 END) / (%s::float8 + 1), 0), "
    "1.0) + %s::float8 * power(0.5::float8, greatest(%s::float8 - occurred_at, 0) / %s::float8) "
    '+ %s::float8 * importance DESC, id COLLATE "C" LIMIT {limit})'
)
_CHOSEN_RECORDS = sql.SQL(
    "SELECT 4, NULL, NULL, NULL, NULL, {columns} FROM chosen "
    "JOIN {table} AS r ON r.tenant = %s AND r.id = chosen.id UNION ALL "
)
_RECORDS = sql.SQL("SELECT {columns} FROM {table} WHERE {where}")
# The store plans every statement for its parameters (``force_custom_plan``: a generic plan
# cannot see a filter's selectivity, and walked the HNSW graph for small scopes). This one's
# choices do not hang on it: the vector part sorts the filter's first rows exactly unless
# counting them shows more than ``exact_threshold`` (its plan cannot use the graph for them),
# and its keyword tiers are bitmap scans of the GIN index whatever the values. Planning it
# cost 1.3-3 ms per recall at 10k records, more than the rest of its execution on a busy
# server; so, once psycopg has prepared it (its fifth run), its generic plan is reused.
# Set for the pipeline's implicit transaction only: the session's mode is back after it,
# even when the statement fails. (All 1,531 LoCoMo questions return the same ids at 10k
# and 100k records with either plan.)
GENERIC_PLAN = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)"


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
    fusion: Fusion | None = None,
) -> dict[str, StoredRecord] | None:
    """Up to ``pool`` keyword hits of ``plan`` and vector hits of ``vector``, then the
    records of the ids ``pick`` chooses (see the module's doc).

    ``check``: the guessed stems ``plan`` was made of, checked by the candidates statement
    (only one statement can: both lists, see :func:`one_statement`); None, without calling
    ``pick``, when the server stems a word otherwise (search again with its stems).
    ``fusion``: how ``pick`` ranks; the records of its top ids are read by that statement
    too, and only those ``pick`` chooses besides them after it."""
    where = record_where(tenant, flt)
    keyword: list[search.Hit] = []
    similar: list[search.Hit] = []
    read: dict[str, StoredRecord] = {}
    cap = max(settings.keyword_cap, 4 * pool)
    if one_statement(plan, vector, settings):
        assert vector is not None
        both = await _both(conn, where, plan, vector, pool, cap, settings, check, fusion)
        if both is None:
            return None
        keyword, similar, read = both
    else:
        assert check is None, "guessed stems are only checked by a search in one statement"
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
    found = {rid: read[rid] for rid in chosen if rid in read}
    missing = [rid for rid in chosen if rid not in read]
    if missing:
        found.update(await _records(conn, tenant, flt, missing))
    return found


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
    fusion: Fusion | None,
) -> tuple[list[search.Hit], list[search.Hit], dict[str, StoredRecord]] | None:
    """Both candidate lists from one statement (iterative scans, planner statistics), and
    the records of ``fusion``'s top ids; None when ``check``'s guesses are not the server's
    stems."""
    tiers, fenced = plan.tiers, not plan.analysed
    ef = search.ef_search_for(settings.ef_search, pool)
    await search.set_ef_search(conn, ef)
    statement = search.cached_statement(
        conn,
        (
            "candidates",
            where.shape,
            len(tiers),
            pool,
            cap,
            fenced,
            check is not None,
            None if fusion is None else fusion.limit,
        ),
        lambda: _candidates_sql(where, len(tiers), pool, cap, fenced, settings, check, fusion),
    )
    keyword_params = search.keyword_params(where, tiers, fenced=fenced)
    checked: list[Any] = []
    if check is not None:
        checked = [check.words, [tsvector_text(lexemes) for lexemes in check.guessed]]
    fused: list[Any] = []
    if fusion is not None:
        fused = [*_fusion_params(fusion, tenant=keyword_params[-1]), keyword_params[-1]]
    # the tiers' parameters, the vector CTEs', the check's, fusion's (and the tenant of the
    # records' join), then the tenant of the keyword list's join
    params = [
        *keyword_params[:-1],
        *search.iterative_params(where, vector),
        *checked,
        *fused,
        keyword_params[-1],
    ]
    # A generic plan, for this statement only (see GENERIC_PLAN), in the same round trip.
    async with conn.pipeline():
        await conn.execute(GENERIC_PLAN)
        cursor = await conn.execute(statement, params)
    read: dict[str, StoredRecord] = {}
    keyword: list[tuple[float, str, search.Hit]] = []
    similar: list[tuple[float, str, search.Hit]] = []
    exact = False
    for which, rid, occurred_at, importance, score, *columns in await cursor.fetchall():
        row = (rid, occurred_at, importance)
        if which == _RECORD:
            record = record_of(columns)
            read[record.id] = record
        elif which == _CHECKED:
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
    return [hit for _, _, hit in keyword], vector_hits, read


def _candidates_sql(
    where: Where,
    tiers: int,
    pool: int,
    cap: int,
    fenced: bool,
    settings: Settings,
    check: Guess | None,
    fusion: Fusion | None,
) -> sql.Composed:
    """The candidates statement of :func:`_both` (see ``_CANDIDATES``)."""
    pad: sql.Composable = sql.SQL("")
    fused: sql.Composable = sql.SQL("")
    records: sql.Composable = sql.SQL("")
    if fusion is not None:
        pad = sql.SQL("").join(sql.SQL(", NULL") for _ in READ_COLUMNS)
        fused = _FUSED.format(table=_TABLE, limit=sql.Literal(fusion.limit))
        records = _CHOSEN_RECORDS.format(columns=record_columns("r"), table=_TABLE)
    return _CANDIDATES.format(
        keyword=search.keyword_ctes(where, tiers, pool, cap, fenced=fenced),
        vector=search.iterative_cte(where, pool, settings.exact_threshold, "traits"),
        check=sql.SQL(", {}").format(CHECK_CTE) if check is not None else sql.SQL(""),
        fused=fused,
        records=records,
        table=_TABLE,
        pad=pad,
        checked=_CHECKED_ROW.format(pad=pad) if check is not None else sql.SQL(""),
    )


def _fusion_params(fusion: Fusion, *, tenant: str) -> list[Any]:
    """The parameters of ``_FUSED``, in order."""
    k0, kw, vw = fusion.rrf_k, fusion.keyword_weight, fusion.vector_weight
    return [
        *(kw, k0, tenant, vw, k0),
        *(kw, vw, k0, fusion.recency_weight, fusion.now, fusion.half_life_s),
        fusion.importance_weight,
    ]


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
