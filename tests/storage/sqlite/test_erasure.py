"""Physical deletion on SQLite: ``secure_delete`` and WAL truncation."""

import sqlite3
from pathlib import Path

from sedimem.storage.sqlite.connection import SqliteConnection, truncate_wal


def _size(path: Path) -> int:
    return path.stat().st_size


async def test_deleted_text_leaves_the_file_and_the_wal(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    db = SqliteConnection(str(path))
    marker = b"qzvsecretmarker"
    try:
        await db.run(lambda c: c.execute("CREATE TABLE t (v TEXT)"))
        await db.run(lambda c: c.execute("INSERT INTO t VALUES (?)", (marker.decode(),)))
        await db.run(truncate_wal)
        assert marker in path.read_bytes()
        await db.run(lambda c: c.execute("DELETE FROM t"))
        assert await db.run(truncate_wal) == "WAL checkpointed and truncated"
        assert _size(Path(f"{path}-wal")) == 0
        assert marker not in path.read_bytes()  # zeroed in place: secure_delete
    finally:
        await db.aclose()


async def test_a_busy_reader_is_reported_and_memory_has_no_wal(tmp_path: Path) -> None:
    path = tmp_path / "x.db"
    db = SqliteConnection(str(path), busy_timeout_ms=0)
    reader = sqlite3.connect(path, isolation_level=None)
    try:
        await db.run(lambda c: c.execute("CREATE TABLE t (v TEXT)"))
        reader.execute("BEGIN")
        reader.execute("SELECT * FROM t").fetchall()  # holds a snapshot open
        await db.run(lambda c: c.execute("INSERT INTO t VALUES ('x')"))
        assert (await db.run(truncate_wal)).startswith("WAL not truncated: a reader was busy")
        reader.execute("COMMIT")
        assert await db.run(truncate_wal) == "WAL checkpointed and truncated"
    finally:
        reader.close()
        await db.aclose()
    memory = SqliteConnection(":memory:")
    try:
        assert await memory.run(truncate_wal) == "no WAL"
    finally:
        await memory.aclose()
