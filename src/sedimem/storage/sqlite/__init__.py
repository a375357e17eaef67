"""What every SQLite store shares: one worker thread per file, append-only migrations."""

from sedimem.storage.sqlite.connection import SqliteConnection
from sedimem.storage.sqlite.migrations import apply_migrations

__all__ = ["SqliteConnection", "apply_migrations"]
