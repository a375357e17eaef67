"""The in-memory indexes of one SQLite store, kept in step with the file.

Indexes are loaded or built lazily, per (tenant, kind), on the first search. Every write
(of this process or another one on the same file) appends to ``lt_change`` in its
transaction; before a search the registry reads the entries past its cursor and applies
them (tombstones, then appended rows), so a search sees exactly the committed rows of its
read snapshot. A gap in the sequence (old entries pruned) or a ``!`` entry (vectors dropped,
embedder changed) makes it drop its indexes and build them again.

With a directory, indexes are saved there (:mod:`.indexfile`), each stamped with the
``lt_change`` sequence it reflects, the file's instance token and the embedder. Opening an
index reads its file and applies the log entries past the stamp, which is what a search
does anyway; a file that is damaged, foreign, from another embedder, ahead of the snapshot
or behind what the log still covers is ignored and the index built from the rows.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from sedimem.storage.longterm.sqlite.engine import IndexEngine, SearchIndex
from sedimem.storage.longterm.sqlite.indexfile import (
    IndexFileError,
    index_file,
    read_index_file,
    remove_index_files,
    write_index_file,
)
from sedimem.storage.longterm.sqlite.schema import INDEX_COLUMNS

__all__ = ["IndexRegistry"]

log = logging.getLogger(__name__)

_SELECT = "SELECT " + ", ".join(INDEX_COLUMNS) + " FROM lt_record"
_BATCH = 5000  # rows per fetch while building: bounds the memory of one step
# of the metadata below; another value is ignored (rebuilt). 2: the HNSW graph holds
# vectors minus a saved centre ("hnsw_center"), compared by cosine (1: raw vectors).
# 3: a large bulk-built index may hold an IVF partition (sections "ivf_*") instead.
_FORMAT = 3
# Rows added to a (tenant, kind) since a handle opened past which its save brings that
# index's file up to date even though the handle never searched it (a bulk load). Fewer
# (a CLI command's write, say) are cheaper to apply from the change log when the index is
# next opened than a whole index file is to rewrite at every close.
BULK_ROWS = 2048

Key = tuple[str, str]


class IndexRegistry:
    """Used from the store's worker thread only, inside a read transaction."""

    def __init__(
        self, engine: IndexEngine, *, max_rows: int = 1_000_000, directory: Path | None = None
    ) -> None:
        self._engine = engine
        self._max_rows = max_rows
        self._directory = directory
        # Least recently searched first: with many tenants, memory stays bounded by
        # evicting the coldest indexes (rebuilt from the rows if searched again).
        self._indexes: OrderedDict[Key, SearchIndex] = OrderedDict()
        self._kinds: set[str] = set()  # every kind an index was held for (a handful)
        # What each index's file holds: (stamp, HNSW slots covered); absent: no file.
        self._saved: dict[Key, tuple[int, int]] = {}
        self._changed: set[Key] = set()  # indexes that differ from their file
        self._cursor = 0  # the last lt_change entry applied
        # The log entry past which writes may have left a saved index behind without this
        # registry holding it (see :meth:`save`); ``None``: not started.
        self._written_since: int | None = None
        self.builds = 0  # how many indexes were built from rows (tests watch it)
        self.loads = 0  # how many were read from their files

    @property
    def engine(self) -> IndexEngine:
        return self._engine

    @property
    def directory(self) -> Path | None:
        return self._directory

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
                    self._saved.pop(key, None)  # compacted: its file no longer matches
                index = self._load(conn, key) or self._build(conn, key)
                self._indexes[key] = index
                self._kinds.add(name)
            self._indexes.move_to_end(key)
            found.append(index)
        self._evict(keep=len(found))
        return found

    def _evict(self, keep: int) -> None:
        """Drop the least recently used indexes past ``max_rows`` (never the ``keep``
        most recent ones: the search in progress needs them)."""
        total = sum(len(i) for i in self._indexes.values())
        while total > self._max_rows and len(self._indexes) > keep:
            key, index = self._indexes.popitem(last=False)
            total -= len(index)
            index.close()
            self._changed.discard(key)

    def peek(self, tenant: str, kind: str) -> SearchIndex | None:
        return self._indexes.get((tenant, kind))

    def held(self, tenant: str) -> list[SearchIndex]:
        """The tenant's indexes in memory (none loaded or built): a look-up per kind, not a
        pass over every tenant's indexes (this runs on each search's reads)."""
        found = (self._indexes.get((tenant, kind)) for kind in self._kinds)
        return [index for index in found if index is not None]

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        if not self._indexes:
            self._cursor = _top(conn)
            return
        entries = conn.execute(
            "SELECT seq, op, rid, tenant, kind FROM lt_change WHERE seq > ? ORDER BY seq",
            (self._cursor,),
        ).fetchall()
        if not entries:
            return
        if entries[0][0] != self._cursor + 1:
            self.reset()  # entries we never saw were pruned: what changed is unknown
        self._cursor = int(entries[-1][0])
        if any(op == "!" for _, op, _, _, _ in entries):
            self.reset()  # every vector dropped: every index is rebuilt when searched
            return
        self._apply(conn, self._indexes, entries)

    def _apply(
        self,
        conn: sqlite3.Connection,
        indexes: dict[Key, SearchIndex],
        entries: Sequence[tuple[Any, ...]],
    ) -> None:
        """Apply log entries to the indexes they concern (the others ignore them)."""
        removed: dict[Key, list[int]] = defaultdict(list)
        added: dict[Key, list[int]] = defaultdict(list)
        for _seq, op, rid, tenant, kind in entries:
            if (tenant, kind) in indexes:
                (removed if op == "-" else added)[(tenant, kind)].append(rid)
        # Tombstones first: a rid added and deleted within the batch is then simply absent.
        for key, rids in removed.items():
            indexes[key].remove_rids(rids)
            self._changed.add(key)
        for key, rids in added.items():
            rows = conn.execute(
                _SELECT + " WHERE rid IN (SELECT value FROM json_each(?)) ORDER BY rid",
                (json.dumps(rids),),
            ).fetchall()
            indexes[key].add_rows(rows)
            self._changed.add(key)

    def _build(self, conn: sqlite3.Connection, key: Key) -> SearchIndex:
        row = conn.execute("SELECT dimension FROM lt_embedder").fetchone()
        index = self._engine.create(None if row is None else int(row[0]))
        cursor = conn.execute(_SELECT + " WHERE tenant = ? AND kind = ? ORDER BY rid", key)
        while rows := cursor.fetchmany(_BATCH):
            index.add_rows(rows)
        self.builds += 1
        self._changed.add(key)
        return index

    # -- files -----------------------------------------------------------------------------

    def _stamp(self, conn: sqlite3.Connection) -> dict[str, Any]:
        """What a file must carry to be used with this database as it is now."""
        (token,) = conn.execute("SELECT token FROM lt_instance").fetchone()
        binding = conn.execute("SELECT name, dimension FROM lt_embedder").fetchone()
        return {
            "format": _FORMAT,
            "instance": token,
            "embedder": None if binding is None else [binding[0], int(binding[1])],
        }

    def _load(self, conn: sqlite3.Connection, key: Key) -> SearchIndex | None:
        """The index saved in ``key``'s file, brought up to the snapshot, when usable."""
        if self._directory is None:
            return None
        path = index_file(self._directory, *key)
        if not path.exists():
            return None
        try:
            meta, arrays = read_index_file(path, lazy=self._engine.lazy_sections)
        except IndexFileError as exc:
            log.warning("ignoring index file %s: %s (rebuilding from the rows)", path, exc)
            return None
        stamp = self._stamp(conn)
        seq = meta.get("seq")
        if not isinstance(seq, int) or seq > self._cursor:
            return None  # a file from past this snapshot cannot be rolled back
        if meta.get("key") != list(key) or any(meta.get(n) != v for n, v in stamp.items()):
            return None  # another database, embedder or format
        entries: list[tuple[Any, ...]] = []
        if seq < self._cursor:
            (first,) = conn.execute("SELECT MIN(seq) FROM lt_change").fetchone()
            if first is None or first > seq + 1:
                return None  # the entries past the stamp were pruned: what changed is unknown
            entries = conn.execute(
                "SELECT seq, op, rid, tenant, kind FROM lt_change WHERE seq > ? AND seq <= ? "
                "ORDER BY seq",
                (seq, self._cursor),
            ).fetchall()
            if any(op == "!" for _, op, _, _, _ in entries):
                return None
        try:
            index = self._engine.restore(meta["index"], arrays)
        except (KeyError, ValueError, TypeError) as exc:
            log.warning("ignoring index file %s: %s (rebuilding from the rows)", path, exc)
            return None
        self._changed.discard(key)
        self._apply(conn, {key: index}, entries)
        self._saved[key] = (seq, index.info().get("hnsw_covered", 0))
        self.loads += 1
        return index

    def start(self, conn: sqlite3.Connection) -> None:
        """Remember where the change log stands: :meth:`save` brings the indexes of what
        is written past it up to date on disk."""
        self._written_since = _top(conn)

    def save(self, conn: sqlite3.Connection) -> int:
        """Write the files of the indexes that differ from them; return how many.

        Called inside a read transaction: the stamp is the cursor, which is exactly what
        the indexes hold once caught up. A (tenant, kind) with :data:`BULK_ROWS` or more
        rows added since :meth:`start` whose index this registry does not hold (recorded,
        never searched here) is loaded or built, saved and let go: a process that only
        writes, a bulk load say, leaves files the next process searches at once, instead of
        a rebuild on its first search.
        """
        if self._directory is None:
            return 0
        self._catch_up(conn)
        written = self._save_held(conn)
        if self._written_since is not None:
            keys = conn.execute(
                "SELECT tenant, kind FROM lt_change "
                "WHERE seq > ? AND op = '+' AND tenant IS NOT NULL "
                "GROUP BY tenant, kind HAVING COUNT(*) >= ?",
                (self._written_since, BULK_ROWS),
            ).fetchall()
            for tenant, kind in keys:
                key = (str(tenant), str(kind))
                if key in self._indexes:
                    continue
                index = self._load(conn, key) or self._build(conn, key)
                # A bulk load's close can take a while here (100k episodes: ~15 s): say why.
                log.info("saving the index of %s (%d rows) for the next process", key, len(index))
                index.complete_graph()  # (built for the file alone: nothing runs beside it)
                self._indexes[key] = index
                self._kinds.add(key[1])
                written += self._save_held(conn, only=key)
                self._evict(keep=0)  # saved: the least recently searched may go
            self._written_since = self._cursor
        return written

    def _save_held(self, conn: sqlite3.Connection, *, only: Key | None = None) -> int:
        assert self._directory is not None  # checked by save()
        stamp = self._stamp(conn)
        written = 0
        for key, index in list(self._indexes.items()):
            if only is not None and key != only:
                continue
            covered = index.info().get("hnsw_covered", 0)
            if key not in self._changed and self._saved.get(key, (-1, -1))[1] == covered:
                continue
            meta, arrays = index.export()
            try:
                write_index_file(
                    index_file(self._directory, *key),
                    {**stamp, "key": list(key), "seq": self._cursor, "index": meta},
                    arrays,
                )
            except OSError as exc:
                # A full disk or a read-only directory costs the next open a rebuild, no more.
                log.warning("could not save the index of %s in %s: %s", key, self._directory, exc)
                continue
            self._saved[key] = (self._cursor, int(meta.get("hnsw_covered", 0)))
            self._changed.discard(key)
            written += 1
        return written

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Apply the log to every held index (what a search does first)."""
        self._catch_up(conn)

    def discard(self, damaged: IndexFileError) -> bool:
        """Drop the index whose file a search found damaged (a block of a section checked
        lazily) and delete the file: the next search builds it from the rows. ``False``
        when no held index came from that file (the error is then not this registry's)."""
        if self._directory is None or damaged.path is None:
            return False
        for key in list(self._indexes):
            if index_file(self._directory, *key) == damaged.path:
                log.warning("%s (rebuilding the index from the rows)", damaged)
                self._indexes.pop(key).close()
                self._saved.pop(key, None)
                self._changed.discard(key)
                with contextlib.suppress(FileNotFoundError):
                    damaged.path.unlink()
                return True
        return False

    def drop_files(self, tenant: str) -> int:
        """Delete the tenant's index files (its in-memory indexes are saved again, without
        what was deleted, the next time indexes are saved)."""
        if self._directory is None or not self._directory.exists():
            return 0
        for key in [k for k in self._saved if k[0] == tenant]:
            del self._saved[key]
            self._changed.add(key)
        return remove_index_files(self._directory, tenant)

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
        self._changed.clear()
        self._saved.clear()

    def close(self) -> None:
        self.reset()


def _top(conn: sqlite3.Connection) -> int:
    (top,) = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM lt_change").fetchone()
    return int(top)
