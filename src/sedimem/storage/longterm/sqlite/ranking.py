"""What a search of the long-term rows ranks: from the in-memory indexes of the kinds it
searches, or, in a store keeping none, from the full-text index and the stored vectors."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from sedimem.storage.longterm.base import Ranked, RecordFilter, Vector
from sedimem.storage.longterm.sqlite.engine import SearchIndex
from sedimem.storage.longterm.sqlite.indexes import IndexRegistry
from sedimem.storage.longterm.sqlite.rows import (
    best_of,
    checked_vector,
    fts_search,
    read_binding,
    scan_vectors,
)

__all__ = ["ranked"]

Halves = tuple[list[Ranked], list[Ranked]]


def ranked(
    conn: sqlite3.Connection,
    registry: IndexRegistry | None,
    tenant: str,
    flt: RecordFilter,
    terms: Sequence[str],
    vector: Vector | None,
    k: int,
    indexes: list[SearchIndex] | None = None,
) -> Halves:
    """The ``k`` best matches of ``flt`` for ``terms`` (the keyword half) and for
    ``vector`` (the vector half); a half is empty when not asked for (no terms, no vector)
    or when nothing can match it (no embedder bound yet: no record has a vector).
    ``indexes``: the kind's indexes when the caller has them (caught up in this snapshot)."""
    if k <= 0:
        return [], []
    query = None
    if vector is not None and (binding := read_binding(conn)) is not None:
        query = checked_vector(vector, binding, "the query")
    if registry is None:
        keyword = fts_search(conn, tenant, flt, terms, k) if terms else []
        return keyword, [] if query is None else scan_vectors(conn, tenant, flt, query, k)
    if indexes is None:
        indexes = registry.indexes(conn, tenant, flt.kind)
    stems = registry.engine.query_terms(terms) if terms else []
    if stems and query is not None:
        pairs = [index.hybrid_search(stems, query, flt, k) for index in indexes]
        return best_of(k, [p[0] for p in pairs]), best_of(k, [p[1] for p in pairs])
    if stems:
        return best_of(k, [index.keyword_search(stems, flt, k) for index in indexes]), []
    if query is not None:
        return [], best_of(k, [index.vector_search(query, flt, k) for index in indexes])
    return [], []
