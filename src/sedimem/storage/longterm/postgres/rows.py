"""Record columns as SQL and rows back into :class:`StoredRecord`.

The columns are read in the order of :class:`StoredRecord`'s fields, so that a row becomes
a record positionally: a search reads a hundred of them, and building each from a dict of
its columns cost more than the rest of the client's work on it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from psycopg import AsyncConnection, sql

from sedimem.storage.longterm.base import StoredRecord
from sedimem.storage.longterm.postgres.schema import RECORD_COLUMNS, TABLE

__all__ = ["READ_COLUMNS", "record_columns", "record_of", "row_values", "upsert"]

_FIELDS = tuple(f.name for f in dataclasses.fields(StoredRecord))
#: The columns a record is read from (every field but its vector), in field order.
READ_COLUMNS: tuple[str, ...] = tuple(name for name in _FIELDS if name != "vector")
_VECTOR_AT = _FIELDS.index("vector")
_WIDTH = len(READ_COLUMNS)
assert _FIELDS[-1] == "sources", "record_of converts the last field (sources) to a tuple"


def record_columns(alias: str | None = None, *, vector: bool = False) -> sql.Composable:
    """The columns :func:`record_of` reads, optionally qualified by a table alias."""

    def column(name: str) -> sql.Composable:
        return sql.Identifier(name) if alias is None else sql.Identifier(alias, name)

    columns = sql.SQL(", ").join(column(c) for c in READ_COLUMNS)
    if not vector:
        return columns
    # cast to the unsized type: a prepared statement's result type must survive a re-binding
    return sql.SQL("{}, {}::vector").format(columns, column("embedding"))


def record_of(row: Sequence[Any], *, vector: bool = False) -> StoredRecord:
    """The record in the first columns of ``row`` (and its vector right after, if asked)."""
    values = list(row[:_WIDTH])
    values[-1] = tuple(values[-1])  # sources: text[] comes back as a list
    stored = row[_WIDTH] if vector else None
    values.insert(
        _VECTOR_AT, None if stored is None else np.array(stored.to_numpy(), dtype=np.float32)
    )
    return StoredRecord(*values)


_UPSERT = sql.SQL(
    "INSERT INTO {table} ({columns}) VALUES ({values}) "
    "ON CONFLICT (tenant, id) DO UPDATE SET {updates}"
).format(
    table=sql.Identifier(TABLE),
    columns=sql.SQL(", ").join(sql.Identifier(c) for c in RECORD_COLUMNS),
    values=sql.SQL(", ").join(sql.Placeholder() for _ in RECORD_COLUMNS),
    updates=sql.SQL(", ").join(
        sql.SQL("{0} = EXCLUDED.{0}").format(sql.Identifier(c))
        for c in RECORD_COLUMNS
        if c not in ("tenant", "id")
    ),
)


def row_values(record: StoredRecord, checked: Callable[[Any, str], Any]) -> list[Any]:
    """``record`` as the values of a written row, in :data:`RECORD_COLUMNS` order; its
    vector passed through ``checked`` (the store's check of its dimension)."""
    row: list[Any] = []
    for column in RECORD_COLUMNS:
        if column == "embedding":
            vector = record.vector
            row.append(None if vector is None else checked(vector, "vector"))
        elif column == "sources":
            row.append(list(record.sources))
        else:
            row.append(getattr(record, column))
    return row


async def upsert(conn: AsyncConnection[Any], rows: list[list[Any]]) -> None:
    """Insert ``rows`` (:func:`row_values`), replacing the tenant's records of their ids."""
    if rows:
        async with conn.cursor() as cursor:
            await cursor.executemany(_UPSERT, rows)
