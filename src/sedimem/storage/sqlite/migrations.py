"""Append-only schema migrations: a list per component whose index is the version.

Never edit or reorder a released migration; append a new one. ``apply_migrations`` is
idempotent and safe when two processes open the same file at once (it runs under a write
lock and re-reads the version inside it).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from sedimem.errors import ConfigurationError

__all__ = ["apply_migrations"]

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS sedimem_schema (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)
"""


def apply_migrations(conn: sqlite3.Connection, component: str, migrations: Sequence[str]) -> int:
    """Bring ``component`` to ``len(migrations)``; return the number of migrations applied."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(_VERSION_TABLE)
        row = conn.execute(
            "SELECT version FROM sedimem_schema WHERE component = ?", (component,)
        ).fetchone()
        current = 0 if row is None else int(row[0])
        if current > len(migrations):
            raise ConfigurationError(
                f"the database's {component} schema is version {current}, newer than this "
                f"sedimem ({len(migrations)}); upgrade sedimem"
            )
        for script in migrations[current:]:
            for statement in script.split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute(
            "INSERT INTO sedimem_schema (component, version) VALUES (?, ?) "
            "ON CONFLICT (component) DO UPDATE SET version = excluded.version",
            (component, len(migrations)),
        )
    except BaseException:
        conn.rollback()
        raise
    conn.execute("COMMIT")
    return len(migrations) - current
