"""The long-term tables in SQLite (component ``longterm``, tables ``lt_``), and row mapping.

- ``lt_record``: one row per record; ``rid`` is an AUTOINCREMENT key, never reused, that
  FTS5, the provenance links, the change log and the in-memory index refer to.
- ``lt_fts``: FTS5 over ``lt_record.text`` (external content, kept in sync by the store in
  the same transactions: the migration runner cannot create triggers).
- ``lt_source``: provenance links, so ``derived_from`` is an indexed lookup.
- ``lt_change``: an append-only log of inserted (``+``) and deleted (``-``) rids, and ``!``
  when every in-memory index must be rebuilt (vectors dropped, or an erasure scrubbed
  the file); in-memory indexes of any process catch up from it.
- ``lt_kind``: the kinds each tenant has written (to search every kind without a scan).
- ``lt_embedder``: the one embedder (name, dimension) whose vectors the file holds.
- ``lt_instance``: a random token made when the tables were created; saved index files
  carry it, so a file left beside another database of the same name is never trusted.

Append-only: never edit a released migration, add one.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from sedimem.storage.longterm.base import StoredRecord

__all__ = [
    "INDEX_COLUMNS",
    "MIGRATIONS",
    "NUMBER_COLUMNS",
    "RECORD_COLUMNS",
    "TEXT_COLUMNS",
    "WRITE_COLUMNS",
    "record_from_row",
    "row_from_record",
]

MIGRATIONS = [
    """
    CREATE TABLE lt_record (
        rid INTEGER PRIMARY KEY AUTOINCREMENT,
        tenant TEXT NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL,
        project TEXT,
        user TEXT,
        agent_type TEXT,
        agent TEXT,
        session TEXT,
        text TEXT NOT NULL,
        occurred_at REAL NOT NULL,
        importance REAL NOT NULL,
        body TEXT NOT NULL,
        vector BLOB,
        outcome TEXT,
        task_type TEXT,
        subject TEXT,
        predicate TEXT,
        name TEXT,
        valid_from REAL,
        valid_to REAL,
        recorded_at REAL,
        invalidated_at REAL,
        sources TEXT NOT NULL DEFAULT '[]'
    );
    CREATE UNIQUE INDEX lt_record_id ON lt_record (tenant, id);
    CREATE INDEX lt_record_kind ON lt_record (tenant, kind, id);
    CREATE INDEX lt_record_user ON lt_record (tenant, user);
    CREATE INDEX lt_record_session ON lt_record (tenant, session);
    CREATE INDEX lt_record_subject ON lt_record (tenant, subject, predicate);
    CREATE INDEX lt_record_name ON lt_record (tenant, name);
    CREATE VIRTUAL TABLE lt_fts USING fts5 (
        text, content='lt_record', content_rowid='rid',
        tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TABLE lt_source (
        tenant TEXT NOT NULL,
        source TEXT NOT NULL,
        rid INTEGER NOT NULL,
        PRIMARY KEY (tenant, source, rid)
    ) WITHOUT ROWID;
    CREATE INDEX lt_source_rid ON lt_source (rid);
    CREATE TABLE lt_change (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        op TEXT NOT NULL,
        rid INTEGER,
        tenant TEXT,
        kind TEXT
    );
    CREATE TABLE lt_kind (
        tenant TEXT NOT NULL,
        kind TEXT NOT NULL,
        PRIMARY KEY (tenant, kind)
    ) WITHOUT ROWID;
    CREATE TABLE lt_embedder (
        slot INTEGER PRIMARY KEY CHECK (slot = 1),
        name TEXT NOT NULL,
        dimension INTEGER NOT NULL
    )
    """,
    """
    CREATE TABLE lt_instance (
        slot INTEGER PRIMARY KEY CHECK (slot = 1),
        token TEXT NOT NULL
    );
    INSERT INTO lt_instance (slot, token) VALUES (1, lower(hex(randomblob(16))))
    """,
    # A session's records by time: "the turn after this one" (assemble asks it for its
    # best chat turns) is a range of one session. Without it the planner walks every
    # record of the kind in id order to find two rows: ~80 ms a lookup at 100k turns.
    """
    DROP INDEX IF EXISTS lt_record_session;
    CREATE INDEX lt_record_session_time ON lt_record (tenant, session, kind, occurred_at)
    """,
    # A kind's records by time: a page of "what happened this week" (see
    # ``filter.narrow_range``, which decides when a range is read through it).
    """
    CREATE INDEX lt_record_time ON lt_record (tenant, kind, occurred_at)
    """,
    # A record by its handle (``sedimem.ids.handle``: the last 10 characters of its id), as
    # a context names it. The expression is the one ``filter.where`` spells.
    """
    CREATE INDEX lt_record_handle ON lt_record (substr(id, -10))
    """,
]

#: Scope and label columns, filtered by equality (the in-memory index codes them as ints).
TEXT_COLUMNS = (
    "project",
    "user",
    "agent_type",
    "agent",
    "session",
    "outcome",
    "task_type",
    "subject",
    "predicate",
    "name",
)
#: Numeric columns, filtered by ranges (NULL becomes NaN in memory: comparisons fail alike).
NUMBER_COLUMNS = (
    "occurred_at",
    "importance",
    "valid_from",
    "valid_to",
    "recorded_at",
    "invalidated_at",
)
#: What ``get`` / ``find`` read (no vector: records come back without one).
RECORD_COLUMNS = ("id", "kind", "tenant", "text", "body", "sources", *TEXT_COLUMNS, *NUMBER_COLUMNS)
#: What the in-memory index reads.
INDEX_COLUMNS = ("rid", "id", "text", "vector", "sources", *TEXT_COLUMNS, *NUMBER_COLUMNS)
#: What ``put`` writes, in order.
WRITE_COLUMNS = (
    "tenant",
    "kind",
    "body",
    "vector",
    "sources",
    "id",
    "text",
    *TEXT_COLUMNS,
    *NUMBER_COLUMNS,
)


def row_from_record(record: StoredRecord, vector: bytes | None) -> tuple[Any, ...]:
    """The values of :data:`WRITE_COLUMNS` for ``record`` (vector already validated)."""
    return (
        record.tenant,
        record.kind,
        record.body,
        vector,
        json.dumps(list(record.sources)),
        record.id,
        record.text,
        *(getattr(record, c) for c in TEXT_COLUMNS),
        *(
            None if getattr(record, c) is None else float(getattr(record, c))
            for c in NUMBER_COLUMNS
        ),
    )


def record_from_row(row: tuple[Any, ...], vector: bytes | None = None) -> StoredRecord:
    """A record from the values of :data:`RECORD_COLUMNS` (and optionally its vector)."""
    values = dict(zip(RECORD_COLUMNS, row, strict=True))
    sources = values["sources"]
    values["sources"] = () if sources == "[]" else tuple(json.loads(sources))  # "[]": most rows
    values["vector"] = None if vector is None else np.frombuffer(vector, dtype=np.float32).copy()
    return StoredRecord(**values)
