"""The SQLite long-term store: the embedded default, in one file (WAL) with working memory.

Rows, vectors (float32 blobs), FTS5 and provenance links are written in one ``BEGIN
IMMEDIATE`` transaction per call, so a failed write leaves nothing behind. Opened with an
index engine (:mod:`.engine`; the one in :mod:`sedimem.retrieval.index`), searches run on
in-memory indexes per (tenant, kind) kept beside the rows (see :mod:`.indexes`); without
one they run on FTS5 and on vectors read from the file instead (slower, same results up to
BM25 statistics, which FTS5 takes from the whole table).

SQLite has one writer at a time per file, across processes: ``BEGIN IMMEDIATE`` already
serialises every ``update_locked``, whatever its lock key.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Self, TypeVar

from sedimem.errors import ConfigurationError, ValidationError
from sedimem.storage.longterm.base import (
    Decision,
    Fusion,
    Pick,
    Preview,
    Ranked,
    RecordFilter,
    ScoredRecord,
    StoredRecord,
    Vector,
    check_tenant,
    with_records,
)
from sedimem.storage.longterm.sqlite.engine import IndexEngine
from sedimem.storage.longterm.sqlite.filter import narrow_range, page_order, where
from sedimem.storage.longterm.sqlite.indexes import IndexRegistry
from sedimem.storage.longterm.sqlite.indexfile import IndexFileError, remove_index_files
from sedimem.storage.longterm.sqlite.ranking import ranked
from sedimem.storage.longterm.sqlite.rows import (
    Binding,
    delete_rows,
    fts_search,
    read_binding,
    read_traits,
    select_previews,
    select_records,
    select_records_now,
    upsert,
    with_rows,
)
from sedimem.storage.longterm.sqlite.schema import MIGRATIONS
from sedimem.storage.sqlite.connection import SqliteConnection, truncate_wal, write
from sedimem.storage.sqlite.migrations import apply_migrations

__all__ = ["SqliteLongTermStore"]

T = TypeVar("T")

log = logging.getLogger(__name__)

_CHANGE_LOG_KEEP = 200_000  # entries kept for other processes to catch up from
_PRUNE_EVERY = 256  # writes between two prunes of the change log


class SqliteLongTermStore:
    """Long-term memory in a SQLite file; every handle and process on the file shares it."""

    def __init__(
        self,
        db: SqliteConnection,
        *,
        index: IndexEngine | None,
        max_index_rows: int = 1_000_000,
        index_dir: Path | None = None,
        save_indexes: bool = True,
    ) -> None:
        self._db = db
        self._registry = (
            None
            if index is None
            else IndexRegistry(
                index, max_rows=max_index_rows, directory=index_dir if save_indexes else None
            )
        )
        self._writes = 0
        self._closed = False
        self._index_dir = index_dir
        # The indexes are used by one thread at a time: the worker, or a caller searching
        # on its own thread (see fused_search).
        self._index_lock = threading.Lock()

    @classmethod
    async def open(
        cls,
        path: str,
        *,
        index: IndexEngine | None = None,
        max_index_rows: int = 1_000_000,
        busy_timeout_ms: int = 10_000,
        save_indexes: bool = True,
    ) -> Self:
        """Open (creating or migrating) the long-term tables of the file at ``path``.

        ``index``: the engine of the in-memory indexes searches run on (the store owns it
        and closes it); ``None``: search FTS5 and the stored vectors. ``max_index_rows``:
        rows kept in in-memory indexes over all (tenant, kind) pairs; the least recently
        searched are dropped past it (and rebuilt from the file when searched again).
        ``save_indexes``: keep the indexes in ``<path>.idx/`` (saved by :meth:`warm`,
        :meth:`save_indexes` and :meth:`aclose`), so that a reopened store searches at once
        instead of rebuilding them from the rows.
        """
        db = SqliteConnection(path, busy_timeout_ms=busy_timeout_ms)
        try:
            await db.run(lambda conn: apply_migrations(conn, "longterm", MIGRATIONS))
        except BaseException:
            await db.aclose()
            if index is not None:
                await asyncio.to_thread(index.close)
            raise
        index_dir = None  # even when this handle saves none, it deletes them (erasure)
        if path != ":memory:" and not path.startswith("file:"):
            index_dir = Path(path + ".idx")
        store = cls(
            db,
            index=index,
            max_index_rows=max_index_rows,
            index_dir=index_dir,
            save_indexes=save_indexes,
        )
        registry = store._registry
        if registry is not None and registry.directory is not None:
            await db.run(store._locked(registry.start))
        return store

    @property
    def name(self) -> str:
        return "sqlite"

    async def _write(self, body: Callable[[sqlite3.Connection], T]) -> T:
        def op(conn: sqlite3.Connection) -> T:
            result = write(conn, body)
            self._writes += 1
            if self._writes % _PRUNE_EVERY == 0:
                conn.execute(
                    "DELETE FROM lt_change WHERE seq <= (SELECT MAX(seq) FROM lt_change) - ?",
                    (_CHANGE_LOG_KEEP,),
                )
            return result

        return await self._db.run(op)

    async def _read(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``body`` in one read transaction: indexes and rows from the same snapshot."""

        def op(conn: sqlite3.Connection) -> T:
            with self._index_lock:
                return self._guarded(body, conn)

        return await self._db.run(op)

    def _guarded(self, body: Callable[[sqlite3.Connection], T], conn: sqlite3.Connection) -> T:
        """``body`` in one read transaction, run again when it found a block of a saved
        index damaged (sections checked as they are read, see :mod:`.indexfile`): that index
        is dropped with its file and built from the rows, so nothing of it is served. A
        search over several kinds may meet several damaged files, one per run: each run
        drops one index, so this ends."""
        while True:
            try:
                return _snapshot(body, conn)
            except IndexFileError as exc:
                if self._registry is None or not self._registry.discard(exc):
                    raise

    def _locked(self, body: Callable[[sqlite3.Connection], T]) -> Callable[[sqlite3.Connection], T]:
        def op(conn: sqlite3.Connection) -> T:
            with self._index_lock:
                return body(conn)

        return op

    # -- embedder --------------------------------------------------------------------------

    async def bind_embedder(self, name: str, dimension: int, *, replace: bool = False) -> None:
        if not name:
            raise ValidationError("name", "the embedder needs a name", allowed="non-empty text")
        if isinstance(dimension, bool) or not isinstance(dimension, int) or dimension < 1:
            raise ValidationError("dimension", f"got {dimension!r}", allowed="an integer >= 1")

        def body(conn: sqlite3.Connection) -> None:
            bound = read_binding(conn)
            if bound == Binding(name, dimension) and not replace:
                return
            if bound is not None and not replace:
                raise ConfigurationError(
                    f"this store holds vectors of embedder {bound.name!r} (dimension "
                    f"{bound.dimension}), not {name!r} (dimension {dimension}); configure "
                    "that embedder, or re-embed (bind with replace=True)"
                )
            conn.execute(
                "INSERT INTO lt_embedder (slot, name, dimension) VALUES (1, ?, ?) "
                "ON CONFLICT (slot) DO UPDATE SET name = excluded.name, "
                "dimension = excluded.dimension",
                (name, dimension),
            )
            if bound is not None:
                conn.execute("UPDATE lt_record SET vector = NULL WHERE vector IS NOT NULL")
            conn.execute("INSERT INTO lt_change (op) VALUES ('!')")  # every index rebuilds

        await self._write(body)

    # -- records ---------------------------------------------------------------------------

    async def put(self, tenant: str, records: Sequence[StoredRecord]) -> None:
        check_tenant(tenant, records)
        if records:
            await self._write(lambda conn: upsert(conn, tenant, records))

    async def get(self, tenant: str, ids: Sequence[str]) -> list[StoredRecord]:
        if not ids:
            return []
        return await self._db.run(
            lambda conn: select_records(conn, tenant, RecordFilter(ids=tuple(ids)), "", [])
        )

    async def previews(self, tenant: str, ids: Sequence[str]) -> dict[str, Preview]:
        if not ids:
            return {}
        rids = self._recent_rids(tenant, ids)
        return await self._db.read(lambda conn: select_previews(conn, tenant, ids, rids))

    async def records_now(self, tenant: str, ids: Sequence[str]) -> list[StoredRecord]:
        if not ids:
            return []
        rids = self._recent_rids(tenant, ids)
        return await self._db.read(lambda conn: select_records_now(conn, tenant, ids, rids))

    def _recent_rids(self, tenant: str, ids: Sequence[str]) -> dict[str, int]:
        """Row ids of those of ``ids`` the tenant's indexes just returned from a search
        (none when the indexes are busy on another thread: the rows are then read by id)."""
        registry = self._registry
        if registry is None or not self._index_lock.acquire(blocking=False):
            return {}
        try:
            found: dict[str, int] = {}
            for index in registry.held(tenant):
                found.update(index.recent_rids(ids))
            return found
        finally:
            self._index_lock.release()

    async def find(
        self,
        tenant: str,
        flt: RecordFilter,
        *,
        limit: int,
        after: str | None = None,
        newest_first: bool = False,
    ) -> list[StoredRecord]:
        if limit <= 0:
            return []
        extra, params = "", list[Any]()
        if after is not None:
            extra = " AND r.id < ?" if newest_first else " AND r.id > ?"
            params.append(after)
        params.append(limit)

        def page(conn: sqlite3.Connection) -> list[StoredRecord]:
            order = page_order(conn, tenant, flt, newest_first=newest_first)
            ranged = narrow_range(conn, tenant, flt)
            return select_records(
                conn, tenant, flt, f"{extra}{order} LIMIT ?", params, ranged=ranged
            )

        # its statements (plan, range, page) on one snapshot, on the caller's reader
        return await self._db.read(lambda conn: _snapshot(page, conn))

    async def count(self, tenant: str, flt: RecordFilter) -> int:
        registry = self._registry
        if registry is not None and flt.kind is not None and registry.peek(tenant, flt.kind):
            # its index's filter mask: ~1 ms at 100k (COUNT(*) reads every row, ~160 ms)
            kind, on = flt.kind, registry.indexes
            return await self._read(lambda conn: sum(i.count(flt) for i in on(conn, tenant, kind)))
        condition, params = where(tenant, flt)
        sql = f"SELECT COUNT(*) FROM lt_record r WHERE {condition}"
        return await self._db.run(lambda conn: int(conn.execute(sql, params).fetchone()[0]))

    async def count_by_user(self, tenant: str, flt: RecordFilter) -> dict[str | None, int]:
        condition, params = where(tenant, flt)
        sql = f"SELECT r.user, COUNT(*) FROM lt_record r WHERE {condition} GROUP BY r.user"
        counts: dict[str | None, int] = await self._db.run(
            lambda conn: {user: int(n) for user, n in conn.execute(sql, params)}
        )
        return counts

    async def tenants(self) -> list[str]:
        sql = "SELECT DISTINCT tenant FROM lt_record ORDER BY tenant"
        return await self._db.run(lambda conn: [str(r[0]) for r in conn.execute(sql)])

    async def delete(self, tenant: str, ids: Sequence[str]) -> int:
        if not ids:
            return 0
        deleted = await self._write(lambda conn: delete_rows(conn, tenant, list(ids)))
        if deleted:
            # A saved index may hold what was just deleted: gone from disk now, written
            # again (without it) the next time indexes are saved.
            await self.drop_saved_indexes(tenant)
        return deleted

    async def update_locked(
        self, tenant: str, lock_key: str, flt: RecordFilter, decide: Decision
    ) -> list[StoredRecord]:
        def body(conn: sqlite3.Connection) -> list[StoredRecord]:
            # With vectors: a decision that edits a record and writes it back keeps its vector.
            # Sorted here, not by ORDER BY: that made SQLite walk the (tenant, kind, id) index
            # over every record of the kind (ordered already) instead of the filter's index,
            # e.g. all 100k episodes for the one a session's end writes (keyed by name).
            current = select_records(conn, tenant, flt, "", [], vectors=True)
            current.sort(key=lambda record: record.id)
            chosen = list(decide(current))
            check_tenant(tenant, chosen)
            if chosen:
                upsert(conn, tenant, chosen)
            return chosen

        return await self._write(body)

    # -- searches --------------------------------------------------------------------------

    async def keyword_search(
        self, tenant: str, flt: RecordFilter, terms: Sequence[str], k: int
    ) -> list[Ranked]:
        if k <= 0 or not terms:
            return []
        registry = self._registry
        if registry is None:
            return await self._db.run(lambda conn: fts_search(conn, tenant, flt, terms, k))
        return await self._read(lambda conn: ranked(conn, registry, tenant, flt, terms, None, k)[0])

    async def vector_search(
        self, tenant: str, flt: RecordFilter, vector: Vector, k: int
    ) -> list[Ranked]:
        if k <= 0:
            return []
        registry = self._registry
        return await self._read(lambda conn: ranked(conn, registry, tenant, flt, [], vector, k)[1])

    async def fused_search(
        self,
        tenant: str,
        flt: RecordFilter,
        terms: Sequence[str],
        vector: Vector | None,
        pool: int,
        pick: Pick,
        *,
        fusion: Fusion | None = None,  # (in-process: reading the picked records is cheap)
    ) -> dict[str, StoredRecord]:
        registry = self._registry

        def body(conn: sqlite3.Connection) -> dict[str, StoredRecord]:
            # The indexes once per search: each look-up reads the change log.
            indexes = None if registry is None else registry.indexes(conn, tenant, flt.kind)
            keyword, similar = ranked(conn, registry, tenant, flt, terms, vector, pool, indexes)
            ids = list(dict.fromkeys([i for i, _ in keyword] + [i for i, _ in similar]))
            if indexes is None:
                traits = read_traits(conn, tenant, ids)
            else:
                traits = {}
                for index in indexes:
                    traits.update(index.traits(ids))
            chosen = pick(keyword, similar, traits)
            if not chosen:
                return {}
            found = select_records(conn, tenant, RecordFilter(ids=tuple(chosen)), "", [])
            return {row.id: row for row in found}

        # An index already in memory is searched on the caller's thread, on its read-only
        # connection: two thread hand-offs fewer per search (on a loaded machine each one
        # waits for a scheduler slice, milliseconds). Anything slower (loading or building
        # an index, or the worker holding the indexes) goes to the worker thread.
        if (
            registry is not None
            and self._db.path != ":memory:"
            and flt.kind is not None
            and registry.peek(tenant, flt.kind) is not None
            and self._index_lock.acquire(blocking=False)
        ):
            try:
                return await self._db.read(lambda conn: self._guarded(body, conn))
            finally:
                self._index_lock.release()
        return await self._read(body)

    async def keyword_search_records(
        self, tenant: str, flt: RecordFilter, terms: Sequence[str], k: int
    ) -> list[ScoredRecord]:
        registry = self._registry
        if registry is None or k <= 0 or not terms:
            return await with_records(
                self, tenant, await self.keyword_search(tenant, flt, terms, k)
            )
        # Search and rows in one trip to the worker thread, from one snapshot.
        return await self._read(
            lambda conn: with_rows(
                conn, tenant, ranked(conn, registry, tenant, flt, terms, None, k)[0]
            )
        )

    async def vector_search_records(
        self, tenant: str, flt: RecordFilter, vector: Vector, k: int
    ) -> list[ScoredRecord]:
        if k <= 0:
            return []
        registry = self._registry
        return await self._read(
            lambda conn: with_rows(
                conn, tenant, ranked(conn, registry, tenant, flt, [], vector, k)[1]
            )
        )

    async def scrub(self) -> str:
        """Erased text out of every byte: rows are already zeroed (``secure_delete``); the
        full-text index is merged into one segment ('optimize': measured to drop deleted
        entries from its pages, 0.7 s at 50k records, where 'rebuild' took 2.6 s); every
        process's in-memory indexes are rebuilt (a ``!`` entry in the change log) and every
        saved index file deleted (written again from the rows at the next save), and the
        WAL is checkpointed and truncated."""

        def body(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT INTO lt_fts (lt_fts) VALUES ('optimize')")
            conn.execute("INSERT INTO lt_change (op) VALUES ('!')")

        def op(conn: sqlite3.Connection) -> str:
            write(conn, body)
            if self._registry is not None:
                with self._index_lock:
                    self._registry.reset()
            files = 0 if self._index_dir is None else remove_index_files(self._index_dir)
            return f"{files} saved index file(s) deleted, {truncate_wal(conn)}"

        done = await self._db.run(op)
        return f"sqlite: full-text index merged, in-memory indexes dropped, {done}"

    # -- SQLite specifics ------------------------------------------------------------------

    async def warm(self, tenant: str, kind: str | None = None, *, wait: bool = False) -> None:
        """Build (or load) the in-memory indexes now, not on the first search, and save
        them beside the file; with ``wait``, first build every HNSW graph that is due, so
        that the saved files hold it. That build runs on every core on the store's worker
        thread (a bulk load's graph: its calls wait meanwhile), not on the one background
        thread searches leave the graph to."""
        registry = self._registry
        if registry is None:
            return
        while True:
            kinds = await self._read(
                lambda conn: (
                    [kind]
                    if kind
                    else [
                        r[0]
                        for r in conn.execute(
                            "SELECT kind FROM lt_kind WHERE tenant = ?", (tenant,)
                        )
                    ]
                )
            )

            def body(conn: sqlite3.Connection, kinds: list[str] = kinds) -> list[Any]:
                for name in kinds:
                    for index in registry.indexes(conn, tenant, name):
                        if wait:
                            index.complete_graph()
                return registry.pending_jobs(tenant, kinds)

            jobs = await self._read(body)
            if not wait or not jobs:
                await self.save_indexes()
                return
            await asyncio.gather(*(asyncio.wrap_future(j) for j in jobs), return_exceptions=True)

    async def save_indexes(self) -> int:
        """Write the index files that are behind their indexes, or behind what this handle
        wrote (an index not in memory is loaded or built for it); return how many (0
        without an index directory). The worker thread is busy meanwhile (about a second
        per 100k rows, several to build an index), so this runs on :meth:`warm` and
        :meth:`aclose`, never in a search."""
        registry = self._registry
        if registry is None or registry.directory is None:
            return 0
        return await self._read(registry.save)

    async def drop_saved_indexes(self, tenant: str) -> int:
        """Delete the tenant's index files now (erasure: a file may hold deleted rows);
        the indexes in memory are saved again, without them, when indexes are next saved.
        Returns how many files were deleted."""
        registry, directory = self._registry, self._index_dir
        if directory is None:
            return 0
        if registry is not None and registry.directory is not None:
            return await self._db.run(self._locked(lambda conn: registry.drop_files(tenant)))
        return await asyncio.to_thread(remove_index_files, directory, tenant)

    async def index_info(self, tenant: str, kind: str) -> dict[str, int] | None:
        """Sizes of the in-memory index of (tenant, kind), ``None`` when not built."""

        registry = self._registry
        if registry is None:
            return None

        def op(conn: sqlite3.Connection) -> dict[str, int] | None:
            index = registry.peek(tenant, kind)
            if index is None:
                return None
            return {**index.info(), "builds": registry.builds, "loads": registry.loads}

        return await self._db.run(self._locked(op))

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        registry = self._registry
        if registry is not None:
            try:
                await self.save_indexes()
            except Exception:  # a store closing must still close; the files are rebuilt
                log.exception("saving the indexes of %s failed", self._db.path)
            with contextlib.suppress(Exception):  # already closed: nothing left to release
                await self._db.run(self._locked(lambda conn: registry.close()))
        await self._db.aclose()
        if registry is not None:
            await asyncio.to_thread(registry.engine.close)


def _snapshot(body: Callable[[sqlite3.Connection], T], conn: sqlite3.Connection) -> T:
    """``body`` in one read transaction: indexes and rows from the same snapshot."""
    conn.execute("BEGIN")
    try:
        result = body(conn)
    except BaseException:
        conn.rollback()
        raise
    conn.execute("COMMIT")
    return result
