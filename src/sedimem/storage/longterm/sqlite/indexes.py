"""The in-memory indexes of one SQLite store, kept in step with the file.

Indexes are built lazily, per (tenant, kind), from the rows on the first search. Every
write (of this process or another one on the same file) appends to ``lt_change`` in its
transaction; before a search the registry reads the entries past its cursor and applies
them (tombstones, then appended rows), so a search sees exactly the committed rows of its
read snapshot. A gap in the sequence (old entries pruned) or a ``!`` entry (vectors dropped,
embedder changed) makes it drop its indexes and build them again.
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict, defaultdict
from concurrent.futures import Future
from typing import Any

from sedimem.storage.longterm.sqlite.engine import IndexEngine, SearchIndex
from sedimem.storage.longterm.sqlite.schema import INDEX_COLUMNS

__all__ = ["IndexRegistry"]

_SELECT = "SELECT " + ", ".join(INDEX_COLUMNS) + " FROM lt_record"
_BATCH = 5000  # rows per fetch while building: bounds the memory of one step


class IndexRegistry:
    """Used from the store's worker thread only, inside a read transaction."""

    def __init__(self, engine: IndexEngine, *, max_rows: int = 1_000_000) -> None:
        self._engine = engine
        self._max_rows = max_rows
        # Least recently searched first: with many tenants, memory stays bounded by
        # evicting the coldest indexes (rebuilt from the rows if searched again).
        self._indexes: OrderedDict[tuple[str, str], SearchIndex] = OrderedDict()
        self._cursor = 0  # the last lt_change entry applied
        self.builds = 0  # how many indexes were built from rows (tests watch it)

    @property
    def engine(self) -> IndexEngine:
        return self._engine

    def indexes(self, conn: sqlite3.Connection, tenant: str, kind: str | None) -> list[SearchIndex]:
        """The up-to-date indexes of the tenant's ``kind`` (every kind when ``None``)."""
        self._catch_up(conn)
        if kind is None:
            kinds = [
                r[0] for r in conn.execute("SELECT kind FROM lt_kind WHERE tenant = ?", (tenant,))
            ]
        else:
            kinds = [kind]
        found = []
        for name in kinds:
            key = (tenant, name)
            index = self._indexes.get(key)
            if index is None or index.needs_compaction:
                if index is not None:
                    index.close()
                index = self._build(conn, tenant, name)
                self._indexes[key] = index
            self._indexes.move_to_end(key)
            found.append(index)
        self._evict(keep=len(found))
        return found

    def _evict(self, keep: int) -> None:
        """Drop the least recently used indexes past ``max_rows`` (never the ``keep``
        most recent ones: the search in progress needs them)."""
        total = sum(len(i) for i in self._indexes.values())
        while total > self._max_rows and len(self._indexes) > keep:
            _, index = self._indexes.popitem(last=False)
            total -= len(index)
            index.close()

    def peek(self, tenant: str, kind: str) -> SearchIndex | None:
        return self._indexes.get((tenant, kind))

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        if not self._indexes:
            (top,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM lt_change").fetchone()
            self._cursor = int(top)
            return
        entries = conn.execute(
            "SELECT seq, op, rid, tenant, kind FROM lt_change WHERE seq > ? ORDER BY seq",
            (self._cursor,),
        ).fetchall()
        if not entries:
            return
        if entries[0][0] != self._cursor + 1:
            self.reset()  # entries we never saw were pruned: what changed is unknown
        removed: dict[tuple[str, str], list[int]] = defaultdict(list)
        added: dict[tuple[str, str], list[int]] = defaultdict(list)
        for _seq, op, rid, tenant, kind in entries:
            if op == "!":
                self.reset()
                removed.clear()
                added.clear()
            elif (tenant, kind) in self._indexes:
                (removed if op == "-" else added)[(tenant, kind)].append(rid)
        self._cursor = int(entries[-1][0])
        # Tombstones first: a rid added and deleted within the batch is then simply absent.
        for key, rids in removed.items():
            self._indexes[key].remove_rids(rids)
        for key, rids in added.items():
            rows = conn.execute(
                _SELECT + " WHERE rid IN (SELECT value FROM json_each(?)) ORDER BY rid",
                (json.dumps(rids),),
            ).fetchall()
            self._indexes[key].add_rows(rows)

    def _build(self, conn: sqlite3.Connection, tenant: str, kind: str) -> SearchIndex:
        row = conn.execute("SELECT dimension FROM lt_embedder").fetchone()
        index = self._engine.create(None if row is None else int(row[0]))
        cursor = conn.execute(
            _SELECT + " WHERE tenant = ? AND kind = ? ORDER BY rid", (tenant, kind)
        )
        while rows := cursor.fetchmany(_BATCH):
            index.add_rows(rows)
        self.builds += 1
        return index

    def pending_jobs(self, tenant: str, kinds: list[str]) -> list[Future[Any]]:
        """Start HNSW builds that are due and return the running ones."""
        jobs = []
        for kind in kinds:
            index = self._indexes.get((tenant, kind))
            if index is not None and (job := index.hnsw_job()) is not None:
                jobs.append(job)
        return jobs

    def reset(self) -> None:
        for index in self._indexes.values():
            index.close()
        self._indexes.clear()

    def close(self) -> None:
        self.reset()
