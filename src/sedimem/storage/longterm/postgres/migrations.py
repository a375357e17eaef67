"""Append-only schema migrations for PostgreSQL: a list per component, index = version.

The same rules as :mod:`sedimem.storage.sqlite.migrations`: never edit or reorder a
released migration, append a new one. :func:`apply_migrations` is idempotent and safe when
several processes set up the same database at once: it runs in one transaction under a
transaction-scoped advisory lock and re-reads the version inside it. A script may hold
several statements (it is sent with the simple query protocol, without parameters).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from psycopg import AsyncConnection, errors, sql

from sedimem.errors import ConfigurationError

__all__ = ["apply_migrations", "lock_id"]

_VERSION_TABLE = """
CREATE TABLE IF NOT EXISTS sedimem_schema (
    component TEXT PRIMARY KEY,
    version INTEGER NOT NULL
)
"""


def lock_id(*parts: str) -> int:
    """A signed 64-bit advisory-lock key for ``parts`` (stable across processes)."""
    digest = hashlib.blake2b("\x00".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def apply_migrations(
    conn: AsyncConnection[Any], component: str, migrations: Sequence[str]
) -> int:
    """Bring ``component`` to ``len(migrations)``; return the number of migrations applied.

    ``conn`` must not be inside a transaction; it is left outside one.
    """
    async with conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock(%s)", [lock_id("migrations", component)])
        await conn.execute(_VERSION_TABLE)
        cursor = await conn.execute(
            "SELECT version FROM sedimem_schema WHERE component = %s", [component]
        )
        row = await cursor.fetchone()
        current = 0 if row is None else int(row[0])
        if current > len(migrations):
            raise ConfigurationError(
                f"the database's {component} schema is version {current}, newer than this "
                f"sedimem ({len(migrations)}); upgrade sedimem"
            )
        for script in migrations[current:]:
            try:
                await conn.execute(sql.SQL(script))
            except errors.InsufficientPrivilege as exc:
                raise ConfigurationError(
                    f"setting up the {component} schema needs more privileges: {exc}. "
                    "Ask an administrator to run `CREATE EXTENSION vector` in this database "
                    "(or set it up once as the owner)"
                ) from exc
        await conn.execute(
            "INSERT INTO sedimem_schema (component, version) VALUES (%s, %s) "
            "ON CONFLICT (component) DO UPDATE SET version = excluded.version",
            [component, len(migrations)],
        )
    return len(migrations) - current
