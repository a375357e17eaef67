"""The SQLite working store: durable, one file (WAL), the embedded default.

A session row carries the session's idle deadline; user keys, scratchpad entries and
checkpoints hang off it. Expired rows are invisible at once (every read compares deadlines)
and deleted by a sweep that runs, at most every ``sweep_interval_seconds``, inside a write.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from typing import Self, TypeVar

from sedimem.config import WorkingSettings
from sedimem.errors import LimitExceeded
from sedimem.storage.sqlite.connection import SqliteConnection, truncate_wal, write
from sedimem.storage.sqlite.migrations import apply_migrations
from sedimem.storage.working.base import (
    IdleSession,
    SessionCounts,
    SessionRef,
    Snapshot,
    StoredValue,
)

__all__ = ["SqliteWorkingStore"]

T = TypeVar("T")

MIGRATIONS = [
    """
    CREATE TABLE wm_session (
        sid TEXT PRIMARY KEY,
        tenant TEXT NOT NULL,
        user TEXT,
        expires_at REAL NOT NULL,
        task TEXT
    ) WITHOUT ROWID;
    CREATE INDEX wm_session_owner ON wm_session (tenant, user);
    CREATE INDEX wm_session_expiry ON wm_session (expires_at);
    CREATE TABLE wm_kv (
        sid TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        expires_at REAL,
        PRIMARY KEY (sid, key)
    ) WITHOUT ROWID;
    CREATE INDEX wm_kv_expiry ON wm_kv (expires_at) WHERE expires_at IS NOT NULL;
    CREATE TABLE wm_scratch (
        sid TEXT NOT NULL,
        seq INTEGER NOT NULL,
        entry TEXT NOT NULL,
        PRIMARY KEY (sid, seq)
    ) WITHOUT ROWID;
    CREATE TABLE wm_checkpoint (
        sid TEXT NOT NULL,
        id TEXT NOT NULL,
        tenant TEXT NOT NULL,
        user TEXT,
        info TEXT NOT NULL,
        content TEXT NOT NULL,
        expires_at REAL NOT NULL,
        PRIMARY KEY (sid, id)
    ) WITHOUT ROWID;
    CREATE INDEX wm_checkpoint_owner ON wm_checkpoint (tenant, user);
    CREATE INDEX wm_checkpoint_expiry ON wm_checkpoint (expires_at)
    """,
    # 2: the session's canonical scope and latest write, for consolidation's idle sessions
    """
    ALTER TABLE wm_session ADD COLUMN scope TEXT;
    ALTER TABLE wm_session ADD COLUMN touched REAL;
    CREATE INDEX wm_session_idle ON wm_session (tenant, touched, sid) WHERE scope IS NOT NULL
    """,
]

_LIVE_SESSION = "SELECT 1 FROM wm_session WHERE sid = ? AND expires_at > ?"
_LIVE_KV = (
    "SELECT key, value, expires_at FROM wm_kv WHERE sid = ? "
    "AND (expires_at IS NULL OR expires_at > ?) AND EXISTS (" + _LIVE_SESSION + ")"
)


def _live(conn: sqlite3.Connection, ref: SessionRef, now: float) -> bool:
    return conn.execute(_LIVE_SESSION, (ref.digest, now)).fetchone() is not None


def _purge_live(conn: sqlite3.Connection, sid: str) -> None:
    conn.execute("DELETE FROM wm_kv WHERE sid = ?", (sid,))
    conn.execute("DELETE FROM wm_scratch WHERE sid = ?", (sid,))
    conn.execute("UPDATE wm_session SET task = NULL WHERE sid = ?", (sid,))


def _touch(conn: sqlite3.Connection, ref: SessionRef, now: float) -> None:
    """Renew the session's deadline and stamp the write; an expired session restarts empty."""
    row = conn.execute("SELECT expires_at FROM wm_session WHERE sid = ?", (ref.digest,)).fetchone()
    if row is None:
        conn.execute(
            "INSERT INTO wm_session (sid, tenant, user, expires_at, scope, touched) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (ref.digest, ref.tenant, ref.user, now + ref.ttl, ref.scope, now),
        )
        return
    if row[0] <= now:
        _purge_live(conn, ref.digest)
    conn.execute(
        "UPDATE wm_session SET expires_at = ?, touched = ?, scope = COALESCE(?, scope) "
        "WHERE sid = ?",
        (now + ref.ttl, now, ref.scope, ref.digest),
    )


class SqliteWorkingStore:
    """Working memory in a SQLite file, shared by every handle and process that opens it."""

    def __init__(self, db: SqliteConnection, settings: WorkingSettings) -> None:
        self._db = db
        self._sweep_every = settings.sweep_interval_seconds
        self._last_sweep = 0.0

    @classmethod
    async def open(cls, path: str, *, settings: WorkingSettings | None = None) -> Self:
        db = SqliteConnection(path)
        await db.run(lambda conn: apply_migrations(conn, "working", MIGRATIONS))
        return cls(db, settings or WorkingSettings())

    @property
    def name(self) -> str:
        return "sqlite"

    @property
    def using_fallback(self) -> bool:
        return False

    def _sweep(self, conn: sqlite3.Connection, now: float) -> None:
        if now - self._last_sweep < self._sweep_every:
            return
        self._last_sweep = now
        expired = "SELECT sid FROM wm_session WHERE expires_at <= ?"
        conn.execute(f"DELETE FROM wm_kv WHERE sid IN ({expired})", (now,))
        conn.execute(f"DELETE FROM wm_scratch WHERE sid IN ({expired})", (now,))
        conn.execute("DELETE FROM wm_kv WHERE expires_at <= ?", (now,))
        conn.execute("DELETE FROM wm_checkpoint WHERE expires_at <= ?", (now,))
        conn.execute("DELETE FROM wm_session WHERE expires_at <= ?", (now,))

    async def _write(
        self, ref: SessionRef, now: float, body: Callable[[sqlite3.Connection], T]
    ) -> T:
        """Run ``body`` in a write transaction that also renews the session."""

        def op(conn: sqlite3.Connection) -> T:
            def inner(conn: sqlite3.Connection) -> T:
                self._sweep(conn, now)
                _touch(conn, ref, now)
                return body(conn)

            return write(conn, inner)

        return await self._db.run(op)

    # -- user keys -------------------------------------------------------------------------

    async def set(
        self,
        ref: SessionRef,
        key: str,
        value: str,
        expires_at: float | None,
        now: float,
        max_keys: int,
    ) -> None:
        def body(conn: sqlite3.Connection) -> None:
            exists = conn.execute(
                "SELECT 1 FROM wm_kv WHERE sid = ? AND key = ? "
                "AND (expires_at IS NULL OR expires_at > ?)",
                (ref.digest, key, now),
            ).fetchone()
            if exists is None:
                (count,) = conn.execute(
                    "SELECT COUNT(*) FROM wm_kv WHERE sid = ? "
                    "AND (expires_at IS NULL OR expires_at > ?)",
                    (ref.digest, now),
                ).fetchone()
                if count >= max_keys:
                    raise LimitExceeded(
                        "key",
                        f"the session already holds {max_keys} keys",
                        allowed=f"at most {max_keys} keys per session",
                    )
            conn.execute(
                "INSERT INTO wm_kv (sid, key, value, expires_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (sid, key) DO UPDATE SET value = excluded.value, "
                "expires_at = excluded.expires_at",
                (ref.digest, key, value, expires_at),
            )

        await self._write(ref, now, body)

    async def get(self, ref: SessionRef, key: str, now: float) -> str | None:
        def op(conn: sqlite3.Connection) -> str | None:
            row = conn.execute(
                "SELECT kv.value FROM wm_kv kv JOIN wm_session s ON s.sid = kv.sid "
                "WHERE kv.sid = ? AND kv.key = ? AND s.expires_at > ? "
                "AND (kv.expires_at IS NULL OR kv.expires_at > ?)",
                (ref.digest, key, now, now),
            ).fetchone()
            return None if row is None else str(row[0])

        return await self._db.read(op)

    async def delete(self, ref: SessionRef, key: str, now: float) -> bool:
        def body(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "DELETE FROM wm_kv WHERE sid = ? AND key = ? "
                "AND (expires_at IS NULL OR expires_at > ?)",
                (ref.digest, key, now),
            )
            return cur.rowcount > 0

        return await self._write(ref, now, body)

    async def items(self, ref: SessionRef, now: float) -> dict[str, StoredValue]:
        def op(conn: sqlite3.Connection) -> dict[str, StoredValue]:
            rows = conn.execute(_LIVE_KV, (ref.digest, now, ref.digest, now)).fetchall()
            return {k: StoredValue(v, exp) for k, v, exp in rows}

        return await self._db.read(op)

    async def clear(self, ref: SessionRef, now: float) -> int:
        def body(conn: sqlite3.Connection) -> int:
            (count,) = conn.execute(
                "SELECT COUNT(*) FROM wm_kv WHERE sid = ? "
                "AND (expires_at IS NULL OR expires_at > ?)",
                (ref.digest, now),
            ).fetchone()
            conn.execute("DELETE FROM wm_kv WHERE sid = ?", (ref.digest,))
            return int(count)

        return await self._write(ref, now, body)

    # -- task state ------------------------------------------------------------------------

    async def set_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "UPDATE wm_session SET task = json(?) WHERE sid = ?",
                (_json_object(fields), ref.digest),
            )

        await self._write(ref, now, body)

    async def update_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            def body(conn: sqlite3.Connection) -> bool:
                cur = conn.execute(
                    "UPDATE wm_session SET task = json_patch(task, ?) "
                    "WHERE sid = ? AND task IS NOT NULL AND expires_at > ?",
                    (_json_object(fields), ref.digest, now),
                )
                if cur.rowcount == 0:
                    return False
                _touch(conn, ref, now)
                return True

            return write(conn, body)

        return await self._db.run(op)

    async def get_task(self, ref: SessionRef, now: float) -> dict[str, str] | None:
        def op(conn: sqlite3.Connection) -> dict[str, str] | None:
            row = conn.execute(
                "SELECT task FROM wm_session WHERE sid = ? AND expires_at > ? AND task IS NOT NULL",
                (ref.digest, now),
            ).fetchone()
            return None if row is None else _from_json_object(row[0])

        return await self._db.read(op)

    # -- scratchpad ------------------------------------------------------------------------

    async def append_scratchpad(
        self, ref: SessionRef, entry: str, max_entries: int, now: float
    ) -> None:
        def body(conn: sqlite3.Connection) -> None:
            (top,) = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM wm_scratch WHERE sid = ?", (ref.digest,)
            ).fetchone()
            conn.execute(
                "INSERT INTO wm_scratch (sid, seq, entry) VALUES (?, ?, ?)",
                (ref.digest, top + 1, entry),
            )
            if top + 1 > max_entries:
                conn.execute(
                    "DELETE FROM wm_scratch WHERE sid = ? AND seq <= ?",
                    (ref.digest, top + 1 - max_entries),
                )

        await self._write(ref, now, body)

    async def scratchpad(self, ref: SessionRef, now: float) -> list[str]:
        def op(conn: sqlite3.Connection) -> list[str]:
            if not _live(conn, ref, now):
                return []
            rows = conn.execute(
                "SELECT entry FROM wm_scratch WHERE sid = ? ORDER BY seq", (ref.digest,)
            ).fetchall()
            return [r[0] for r in rows]

        return await self._db.read(op)

    async def clear_scratchpad(self, ref: SessionRef, now: float) -> int:
        def body(conn: sqlite3.Connection) -> int:
            return conn.execute("DELETE FROM wm_scratch WHERE sid = ?", (ref.digest,)).rowcount

        return await self._write(ref, now, body)

    # -- checkpoints -----------------------------------------------------------------------

    async def snapshot(self, ref: SessionRef, now: float) -> Snapshot:
        def op(conn: sqlite3.Connection) -> Snapshot:
            conn.execute("BEGIN")  # one read transaction: a consistent view
            try:
                if not _live(conn, ref, now):
                    return Snapshot({}, None, [])
                rows = conn.execute(_LIVE_KV, (ref.digest, now, ref.digest, now)).fetchall()
                task = conn.execute(
                    "SELECT task FROM wm_session WHERE sid = ?", (ref.digest,)
                ).fetchone()
                pad = conn.execute(
                    "SELECT entry FROM wm_scratch WHERE sid = ? ORDER BY seq", (ref.digest,)
                ).fetchall()
            finally:
                conn.execute("COMMIT")
            return Snapshot(
                {k: StoredValue(v, exp) for k, v, exp in rows},
                None if task[0] is None else _from_json_object(task[0]),
                [p[0] for p in pad],
            )

        return await self._db.run(op)

    async def restore(self, ref: SessionRef, snapshot: Snapshot, now: float) -> None:
        def body(conn: sqlite3.Connection) -> None:
            _purge_live(conn, ref.digest)
            conn.executemany(
                "INSERT INTO wm_kv (sid, key, value, expires_at) VALUES (?, ?, ?, ?)",
                [(ref.digest, k, v.value, v.expires_at) for k, v in snapshot.values.items()],
            )
            conn.executemany(
                "INSERT INTO wm_scratch (sid, seq, entry) VALUES (?, ?, ?)",
                [(ref.digest, i + 1, e) for i, e in enumerate(snapshot.scratchpad)],
            )
            task = None if snapshot.task is None else _json_object(snapshot.task)
            conn.execute("UPDATE wm_session SET task = json(?) WHERE sid = ?", (task, ref.digest))

        await self._write(ref, now, body)

    async def put_checkpoint(
        self,
        ref: SessionRef,
        checkpoint_id: str,
        info: str,
        content: str,
        expires_at: float,
        now: float,
    ) -> None:
        def body(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO wm_checkpoint (sid, id, tenant, user, info, content, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (ref.digest, checkpoint_id, ref.tenant, ref.user, info, content, expires_at),
            )

        await self._write(ref, now, body)

    async def get_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> str | None:
        def op(conn: sqlite3.Connection) -> str | None:
            row = conn.execute(
                "SELECT content FROM wm_checkpoint WHERE sid = ? AND id = ? AND expires_at > ?",
                (ref.digest, checkpoint_id, now),
            ).fetchone()
            return None if row is None else str(row[0])

        return await self._db.read(op)

    async def list_checkpoints(self, ref: SessionRef, now: float) -> list[str]:
        def op(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute(
                "SELECT info FROM wm_checkpoint WHERE sid = ? AND expires_at > ? ORDER BY id",
                (ref.digest, now),
            ).fetchall()
            return [r[0] for r in rows]

        return await self._db.read(op)

    async def delete_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "DELETE FROM wm_checkpoint WHERE sid = ? AND id = ? AND expires_at > ?",
                (ref.digest, checkpoint_id, now),
            )
            return cur.rowcount > 0

        return await self._db.run(op)

    # -- whole sessions --------------------------------------------------------------------

    async def counts(self, ref: SessionRef, now: float) -> SessionCounts:
        def op(conn: sqlite3.Connection) -> SessionCounts:
            (checkpoints,) = conn.execute(
                "SELECT COUNT(*) FROM wm_checkpoint WHERE sid = ? AND expires_at > ?",
                (ref.digest, now),
            ).fetchone()
            row = conn.execute(
                "SELECT task IS NOT NULL FROM wm_session WHERE sid = ? AND expires_at > ?",
                (ref.digest, now),
            ).fetchone()
            if row is None:
                return SessionCounts(0, 0, checkpoints, False)
            (keys,) = conn.execute(
                "SELECT COUNT(*) FROM wm_kv WHERE sid = ? "
                "AND (expires_at IS NULL OR expires_at > ?)",
                (ref.digest, now),
            ).fetchone()
            (pad,) = conn.execute(
                "SELECT COUNT(*) FROM wm_scratch WHERE sid = ?", (ref.digest,)
            ).fetchone()
            return SessionCounts(keys, pad, checkpoints, bool(row[0]))

        return await self._db.run(op)

    async def drop_session(self, ref: SessionRef) -> None:
        def op(conn: sqlite3.Connection) -> None:
            def body(conn: sqlite3.Connection) -> None:
                for table in ("wm_kv", "wm_scratch", "wm_checkpoint", "wm_session"):
                    conn.execute(f"DELETE FROM {table} WHERE sid = ?", (ref.digest,))

            write(conn, body)

        await self._db.run(op)

    async def idle_sessions(
        self, tenant: str, idle_seconds: float, now: float, limit: int, after: str | None
    ) -> list[IdleSession]:
        # the partial index (tenant, touched, sid) serves the range and the order
        sql = (
            "SELECT sid, scope, touched FROM wm_session WHERE tenant = ? AND scope IS NOT NULL "
            "AND touched <= ? AND expires_at > ?"
        )
        args: tuple[object, ...] = (tenant, now - idle_seconds, now)
        if after is not None:
            touched, _, sid = after.partition("|")
            sql += " AND (touched, sid) > (?, ?)"
            args += (float(touched), sid)
        sql += " ORDER BY touched, sid LIMIT ?"

        def op(conn: sqlite3.Connection) -> list[IdleSession]:
            rows = conn.execute(sql, (*args, limit)).fetchall()
            return [IdleSession(sid, scope, at, f"{at!r}|{sid}") for sid, scope, at in rows]

        return await self._db.read(op)

    async def drop_idle_session(self, ref: SessionRef, touched: float) -> bool:
        def op(conn: sqlite3.Connection) -> bool:
            def body(conn: sqlite3.Connection) -> bool:
                row = conn.execute(
                    "SELECT touched FROM wm_session WHERE sid = ?", (ref.digest,)
                ).fetchone()
                if row is None or row[0] is None or row[0] > touched:
                    return False  # gone already, or written again since it was listed
                for table in ("wm_kv", "wm_scratch", "wm_checkpoint", "wm_session"):
                    conn.execute(f"DELETE FROM {table} WHERE sid = ?", (ref.digest,))
                return True

            return write(conn, body)

        return await self._db.run(op)

    async def drop_sessions(self, tenant: str, user: str | None) -> int:
        def op(conn: sqlite3.Connection) -> int:
            def body(conn: sqlite3.Connection) -> int:
                owner = "tenant = ?" + ("" if user is None else " AND user = ?")
                args: tuple[str, ...] = (tenant,) if user is None else (tenant, user)
                sids = {
                    r[0]
                    for table in ("wm_session", "wm_checkpoint")
                    for r in conn.execute(f"SELECT sid FROM {table} WHERE {owner}", args)
                }
                for table in ("wm_kv", "wm_scratch", "wm_checkpoint", "wm_session"):
                    conn.executemany(f"DELETE FROM {table} WHERE sid = ?", [(s,) for s in sids])
                return len(sids)

            return write(conn, body)

        return await self._db.run(op)

    async def scrub(self) -> str:
        """Deleted rows are zeroed already (``secure_delete``); empty the WAL too."""
        wal = await self._db.run(truncate_wal)
        return f"sqlite working memory: {wal}"

    async def ping(self) -> bool:
        try:
            return await self._db.run(lambda conn: conn.execute("SELECT 1").fetchone() == (1,))
        except Exception:
            return False

    async def aclose(self) -> None:
        await self._db.aclose()


def _json_object(fields: dict[str, str]) -> str:
    return json.dumps(fields, separators=(",", ":"))


def _from_json_object(text: str) -> dict[str, str]:
    data = json.loads(text)
    return {str(k): str(v) for k, v in data.items()}
