"""Statements on the long-term tables, each run inside the caller's transaction.

Writing a record touches four tables (the row, its FTS5 entry, its provenance links, the
change log); doing it here, in the same transaction as the row, keeps them in sync without
triggers (which the migration runner's statement splitter cannot create).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from sedimem.errors import ConfigurationError, ValidationError
from sedimem.storage.longterm.base import (
    Preview,
    Ranked,
    RecordFilter,
    ScoredRecord,
    StoredRecord,
    Traits,
    Vector,
)
from sedimem.storage.longterm.sqlite.filter import where
from sedimem.storage.longterm.sqlite.fts import fts_or_query
from sedimem.storage.longterm.sqlite.schema import (
    RECORD_COLUMNS,
    WRITE_COLUMNS,
    record_from_row,
    row_from_record,
)

__all__ = [
    "best_of",
    "select_previews",
    "with_rows",
    "checked_vector",
    "Binding",
    "delete_rows",
    "fts_search",
    "read_binding",
    "scan_vectors",
    "select_records",
    "upsert",
]

_RECORD = ", ".join("r." + c for c in RECORD_COLUMNS)
_INSERT = (
    f"INSERT INTO lt_record ({', '.join(WRITE_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(WRITE_COLUMNS))})"
)


class Binding(NamedTuple):
    name: str
    dimension: int


def read_binding(conn: sqlite3.Connection) -> Binding | None:
    row = conn.execute("SELECT name, dimension FROM lt_embedder").fetchone()
    return None if row is None else Binding(str(row[0]), int(row[1]))


def checked_vector(vector: object, binding: Binding, what: str) -> Vector:
    """``vector`` as float32 of the binding's dimension, L2-normalised (zero stays zero)."""
    try:
        array = np.asarray(vector, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValidationError("vector", "not an array of numbers", allowed="float32") from exc
    if array.ndim != 1 or array.shape[0] != binding.dimension:
        raise ValidationError(
            "vector",
            f"{what} has a vector of shape {array.shape}",
            allowed=f"{binding.dimension} values (embedder {binding.name!r})",
        )
    norm = float(np.linalg.norm(array))
    if not np.isfinite(norm):
        raise ValidationError("vector", "contains NaN or infinity", allowed="finite values")
    return array / np.float32(norm) if norm > 0 else array


def _vector_blob(record: StoredRecord, binding: Binding | None) -> bytes | None:
    """The record's vector, checked against the binding and L2-normalised, as bytes."""
    if record.vector is None:
        return None
    if binding is None:
        raise ConfigurationError(
            f"record {record.id!r} has a vector but no embedder is bound to this store; "
            "call bind_embedder first"
        )
    vector = checked_vector(record.vector, binding, f"record {record.id!r}")
    return vector.astype(np.float32).tobytes()


def upsert(conn: sqlite3.Connection, tenant: str, records: Sequence[StoredRecord]) -> None:
    """Insert or replace ``records`` by id (the last one wins within a batch)."""
    latest = {r.id: r for r in records}
    binding = read_binding(conn)
    rows = [row_from_record(r, _vector_blob(r, binding)) for r in latest.values()]
    ids = json.dumps(list(latest))
    delete_rows(conn, tenant, list(latest))
    conn.executemany(_INSERT, rows)
    written = conn.execute(
        "SELECT rid, id, kind, text FROM lt_record "
        "WHERE tenant = ? AND id IN (SELECT value FROM json_each(?))",
        (tenant, ids),
    ).fetchall()
    conn.executemany(
        "INSERT INTO lt_fts (rowid, text) VALUES (?, ?)", [(w[0], w[3]) for w in written]
    )
    conn.executemany(
        "INSERT INTO lt_change (op, rid, tenant, kind) VALUES ('+', ?, ?, ?)",
        [(w[0], tenant, w[2]) for w in written],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO lt_source (tenant, source, rid) VALUES (?, ?, ?)",
        [(tenant, s, w[0]) for w in written for s in latest[w[1]].sources],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO lt_kind (tenant, kind) VALUES (?, ?)",
        [(tenant, kind) for kind in {w[2] for w in written}],
    )


def delete_rows(conn: sqlite3.Connection, tenant: str, ids: list[str]) -> int:
    """Delete the tenant's records with these ids, with everything that refers to them."""
    old = conn.execute(
        "SELECT rid, kind, text FROM lt_record "
        "WHERE tenant = ? AND id IN (SELECT value FROM json_each(?))",
        (tenant, json.dumps(ids)),
    ).fetchall()
    if not old:
        return 0
    # External-content FTS5 removes an entry given the exact text it indexed.
    conn.executemany(
        "INSERT INTO lt_fts (lt_fts, rowid, text) VALUES ('delete', ?, ?)",
        [(o[0], o[2]) for o in old],
    )
    conn.executemany("DELETE FROM lt_source WHERE rid = ?", [(o[0],) for o in old])
    conn.executemany("DELETE FROM lt_record WHERE rid = ?", [(o[0],) for o in old])
    conn.executemany(
        "INSERT INTO lt_change (op, rid, tenant, kind) VALUES ('-', ?, ?, ?)",
        [(o[0], tenant, o[1]) for o in old],
    )
    return len(old)


def select_records(
    conn: sqlite3.Connection,
    tenant: str,
    flt: RecordFilter,
    tail: str,
    params: list[Any],
    *,
    vectors: bool = False,
    ranged: bool = True,
) -> list[StoredRecord]:
    """The tenant's records matching ``flt``; ``tail`` adds SQL after the condition;
    ``ranged``: see :func:`~sedimem.storage.longterm.sqlite.filter.where`."""
    condition, args = where(tenant, flt, ranged=ranged)
    columns = _RECORD + (", r.vector" if vectors else "")
    rows = conn.execute(f"SELECT {columns} FROM lt_record r WHERE {condition}{tail}", args + params)
    if vectors:
        return [record_from_row(row[:-1], row[-1]) for row in rows]
    return [record_from_row(row) for row in rows]


def select_previews(
    conn: sqlite3.Connection, tenant: str, ids: Sequence[str], rids: dict[str, int]
) -> dict[str, Preview]:
    """``(text, session, occurred_at)`` of the tenant's records among ``ids``: columns that
    precede the body and the vector in a row, so no overflow page of theirs is read.

    ``rids``: the row ids of some of them, when known (a search just returned them): those
    rows are read by primary key, one b-tree descent each instead of two (the id index,
    then the table); the others, and any no longer there (replaced since), by id."""
    found: dict[str, Preview] = {}
    if rids:
        rows = conn.execute(
            "SELECT id, text, session, occurred_at FROM lt_record "
            "WHERE rid IN (SELECT value FROM json_each(?)) AND +tenant = ?",
            (json.dumps(list(rids.values())), tenant),
        )
        found = {str(i): (str(t), s, float(o)) for i, t, s, o in rows}
    missing = [i for i in ids if i not in found] if found else list(ids)
    if missing:
        rows = conn.execute(
            "SELECT id, text, session, occurred_at FROM lt_record "
            "WHERE tenant = ? AND id IN (SELECT value FROM json_each(?))",
            (tenant, json.dumps(missing)),
        )
        found.update((str(i), (str(t), s, float(o))) for i, t, s, o in rows)
    return found


def select_records_now(
    conn: sqlite3.Connection, tenant: str, ids: Sequence[str], rids: dict[str, int]
) -> list[StoredRecord]:
    """The tenant's records among ``ids``, those in ``rids`` read by primary key (see
    :func:`select_previews`)."""
    found: list[StoredRecord] = []
    if rids:
        rows = conn.execute(
            f"SELECT {_RECORD} FROM lt_record r "
            "WHERE r.rid IN (SELECT value FROM json_each(?)) AND +r.tenant = ?",
            (json.dumps(list(rids.values())), tenant),
        )
        found = [record_from_row(row) for row in rows]
    if len(found) < len(ids):
        have = {record.id for record in found}
        missing = tuple(i for i in ids if i not in have)
        found += select_records(conn, tenant, RecordFilter(ids=missing), "", [])
    return found


def read_traits(conn: sqlite3.Connection, tenant: str, ids: Sequence[str]) -> Traits:
    """``(occurred_at, importance)`` of the tenant's records among ``ids``."""
    rows = conn.execute(
        "SELECT id, occurred_at, importance FROM lt_record "
        "WHERE tenant = ? AND id IN (SELECT value FROM json_each(?))",
        (tenant, json.dumps(list(ids))),
    )
    return {str(i): (float(t), float(w)) for i, t, w in rows}


def fts_search(
    conn: sqlite3.Connection, tenant: str, flt: RecordFilter, terms: Sequence[str], k: int
) -> list[Ranked]:
    """BM25 over FTS5: every term's tokens quoted and OR-ed, the filter inside the query."""
    match = fts_or_query(terms)
    if match is None:
        return []
    condition, args = where(tenant, flt)
    rows = conn.execute(
        "SELECT r.id, bm25(lt_fts) AS score FROM lt_fts JOIN lt_record r ON r.rid = lt_fts.rowid "
        f"WHERE lt_fts MATCH ? AND {condition} ORDER BY score, r.rid LIMIT ?",
        [match, *args, k],
    ).fetchall()
    return [(str(i), -float(s)) for i, s in rows]  # FTS5's bm25 is negated: lower is better


def scan_vectors(
    conn: sqlite3.Connection, tenant: str, flt: RecordFilter, query: Vector, k: int
) -> list[Ranked]:
    """Exact search over the vectors read from the file (no in-memory index)."""
    condition, args = where(tenant, flt)
    rows = conn.execute(
        f"SELECT r.id, r.vector FROM lt_record r WHERE {condition} AND r.vector IS NOT NULL "
        "ORDER BY r.rid",
        args,
    ).fetchall()
    rows = [r for r in rows if len(r[1]) == 4 * query.shape[0]]
    if not rows:
        return []
    matrix = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32)
    scores = matrix.reshape(len(rows), query.shape[0]) @ query
    order = np.lexsort((np.arange(len(rows)), -scores))[:k]
    return [(str(rows[i][0]), float(scores[i])) for i in order]


def with_rows(conn: sqlite3.Connection, tenant: str, ranked: list[Ranked]) -> list[ScoredRecord]:
    """The records of ``ranked`` in rank order, read in the search's own snapshot."""
    if not ranked:
        return []
    found = select_records(conn, tenant, RecordFilter(ids=tuple(i for i, _ in ranked)), "", [])
    rows = {row.id: row for row in found}
    return [(rows[i], score) for i, score in ranked if i in rows]


def best_of(k: int, lists: list[list[Ranked]]) -> list[Ranked]:
    """The ``k`` best of several ranked lists (one per kind)."""
    if len(lists) == 1:
        return lists[0]
    merged = [hit for hits in lists for hit in hits]
    merged.sort(key=lambda hit: -hit[1])
    return merged[:k]
