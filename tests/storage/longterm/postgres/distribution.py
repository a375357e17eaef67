"""What would keep the PostgreSQL schema from being distributed by tenant (Citus
``create_distributed_table(table, 'tenant')``), found in a real database's catalog and in
the statements the store sends.

Citus requires of a table distributed by a column that every primary key, unique
constraint, unique index and exclusion constraint includes that column, and that a foreign
key between two distributed tables includes it on both sides (a key to a reference table is
fine). A statement stays on one node when each distributed table it reads or writes is
restricted to one value of the column (``tenant = $n`` at the level of the query that names
it: a filter outside a subquery fenced with ``OFFSET 0`` does not reach into it); an
``INSERT`` is routed by the value it gives the column.

Tables without a tenant column are reference tables (a copy on every node) and must be
named in :data:`REFERENCE_TABLES`, with why; statements that touch every tenant on purpose
are named in :data:`ALL_TENANT_STATEMENTS` (Citus runs them on every shard).
"""

from __future__ import annotations

import re
from typing import Any

from psycopg import AsyncConnection

COLUMN = "tenant"

#: Tables that hold no tenant's data, and so are not distributed: what each one holds.
REFERENCE_TABLES = {
    "sedimem_lt_embedder": "one row: the embedder the store's vectors were written by",
    "sedimem_schema": "the schema version of each component (read by migrations only)",
}

#: Statements that run across every tenant on purpose (normalised as pg_stat_statements
#: prints them), and why each is right.
ALL_TENANT_STATEMENTS = {
    'SELECT DISTINCT tenant FROM "sedimem_lt_records" ORDER BY tenant': (
        "the list of tenants (metrics, maintenance): a query of every shard"
    ),
    'UPDATE "sedimem_lt_records" SET embedding = $1 WHERE embedding IS NOT NULL': (
        "binding another embedder drops every stored vector, of every tenant"
    ),
}

# key constraints (p, u, x) and foreign keys (f) of our tables, with their columns
_CONSTRAINTS = """
SELECT c.conname, c.contype, t.relname,
       ARRAY(SELECT a.attname::text FROM unnest(c.conkey) AS k(n)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),
       f.relname,
       ARRAY(SELECT a.attname::text FROM unnest(c.confkey) AS k(n)
             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n)
FROM pg_constraint c
JOIN pg_class t ON t.oid = c.conrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
LEFT JOIN pg_class f ON f.oid = c.confrelid
WHERE n.nspname = current_schema() AND t.relname LIKE 'sedimem%%'
  AND c.contype IN ('p', 'u', 'x', 'f')
ORDER BY t.relname, c.conname
"""
# unique indexes, constraint-backed or not (an index on an expression has no column 0)
_UNIQUE_INDEXES = """
SELECT i.relname, t.relname,
       ARRAY(SELECT a.attname::text FROM unnest(x.indkey) AS k(n)
             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n)
FROM pg_index x
JOIN pg_class i ON i.oid = x.indexrelid
JOIN pg_class t ON t.oid = x.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE n.nspname = current_schema() AND t.relname LIKE 'sedimem%%' AND x.indisunique
ORDER BY t.relname, i.relname
"""
_TABLES = """
SELECT t.relname, bool_or(a.attname = %s)
FROM pg_class t
JOIN pg_namespace n ON n.oid = t.relnamespace
JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = current_schema() AND t.relname LIKE 'sedimem%%' AND t.relkind IN ('r', 'p')
GROUP BY t.relname ORDER BY t.relname
"""


async def catalog_blockers(conn: AsyncConnection[Any]) -> list[str]:
    """Every table, key, unique index or foreign key of ours that would block distributing
    the schema by tenant, one line each (none: it can be distributed)."""
    found: list[str] = []
    cursor = await conn.execute(_TABLES, [COLUMN])
    distributed = set()
    for table, has_tenant in await cursor.fetchall():
        if has_tenant:
            distributed.add(table)
        elif table not in REFERENCE_TABLES:
            found.append(f"table {table} has no {COLUMN} column and is no known reference table")
    cursor = await conn.execute(_CONSTRAINTS)
    for name, kind, table, columns, target, target_columns in await cursor.fetchall():
        if table not in distributed:
            continue  # a reference table's keys are its own
        if kind == "f":
            if target in distributed and (
                COLUMN not in columns or COLUMN not in (target_columns or [])
            ):
                found.append(
                    f"foreign key {name} of {table} {columns} -> {target} {target_columns} "
                    f"lacks {COLUMN} on both sides"
                )
        elif COLUMN not in columns:
            what = {"p": "primary key", "u": "unique constraint", "x": "exclusion constraint"}
            found.append(f"{what[kind]} {name} of {table} {columns} lacks {COLUMN}")
    cursor = await conn.execute(_UNIQUE_INDEXES)
    for index, table, columns in await cursor.fetchall():
        if table in distributed and COLUMN not in columns:
            found.append(f"unique index {index} of {table} {columns} lacks {COLUMN}")
    return sorted(set(found))


# a reference to a table: where a statement reads or writes it
_REFERENCE = re.compile(r'\b(FROM|JOIN|UPDATE|INTO)\s+"?(\w+)"?', re.IGNORECASE)
# a tenant equality: ``tenant = $1``, ``"r"."tenant" = $2``, ``r.tenant = 'x'``
_EQUALITY = re.compile(r'(?:"?\w+"?\.)?"?tenant"?\s*=\s*(?:\$\d+|\'[^\']*\')', re.IGNORECASE)
_MAINTENANCE = re.compile(
    r"^\s*(ALTER|CREATE|DROP|ANALYZE|VACUUM|SET|RESET|SHOW|COMMENT|BEGIN|COMMIT|ROLLBACK)\b",
    re.IGNORECASE,
)


def _level_end(text: str, start: int) -> int:
    """Where the query level holding ``start`` ends (its closing parenthesis, or the end)."""
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return index
            depth -= 1
    return len(text)


def _same_level(text: str, start: int, end: int) -> str:
    """``text[start:end]`` without the parts nested in parentheses deeper than ``start``."""
    kept: list[str] = []
    depth = 0
    for char in text[start:end]:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif depth == 0:
            kept.append(char)
    return "".join(kept)


def statement_blockers(statement: str, tables: set[str]) -> list[str]:
    """Why ``statement`` would reach every shard of ``tables`` (distributed by tenant): a
    reference not restricted to one tenant at its own query level, an INSERT without the
    tenant column. None for maintenance (DDL, ANALYZE, VACUUM: Citus runs them on every
    shard) and the statements of :data:`ALL_TENANT_STATEMENTS`."""
    text = " ".join(statement.split())
    if _MAINTENANCE.match(text) or text in ALL_TENANT_STATEMENTS:
        return []
    found: list[str] = []
    for match in _REFERENCE.finditer(text):
        verb, table = match.group(1).upper(), match.group(2)
        if table not in tables:
            continue
        if verb == "INTO":
            columns = text[match.end() :].split(")", 1)[0]
            if not re.search(r'\(\s*"?tenant"?\s*[,)]|,\s*"?tenant"?\s*[,)]', columns + ")"):
                found.append(f"INSERT INTO {table} without the {COLUMN} column: {text[:160]}")
            continue
        level = _same_level(text, match.end(), _level_end(text, match.end()))
        if not _EQUALITY.search(level):
            where = text[max(0, match.start() - 40) : match.end() + 120]
            found.append(f"{verb} {table} not restricted to one {COLUMN}: ...{where}...")
    return found
