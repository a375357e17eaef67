"""The PostgreSQL long-term schema: migrations, column lists and the vector index DDL.

One table holds every record of every tenant, keyed ``(tenant, id)``; each index leads
with ``tenant`` so a tenant's rows are found without touching another's. Keyword search
uses a stored, generated ``tsvector`` (english) with a GIN index; provenance is a ``text[]``
with a GIN index (``derived_from`` is ``sources && ids``); both GIN indexes are written
directly (no fastupdate pending list, which every search would scan). The vector column is
declared without a dimension until an embedder is bound: :func:`vector_index_ddl` then
fixes the dimension and builds the HNSW index (cosine). Vectors are kept in their rows
(storage MAIN), the body is what moves out of line when a row is large.
"""

from __future__ import annotations

from psycopg import sql

__all__ = [
    "COMPONENT",
    "MIGRATIONS",
    "RECORD_COLUMNS",
    "SELECT_COLUMNS",
    "TABLE",
    "drop_vector_index_ddl",
    "vector_index_ddl",
]

COMPONENT = "longterm"
TABLE = "sedimem_lt_records"
_HNSW_INDEX = "sedimem_lt_records_embedding_hnsw"

MIGRATIONS: list[str] = [
    # 1: records, their indexes, the bound embedder, and an OR aggregate over tsqueries
    """
    CREATE EXTENSION IF NOT EXISTS vector;

    CREATE TABLE sedimem_lt_embedder (
        singleton BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (singleton),
        name TEXT NOT NULL,
        dimension INTEGER NOT NULL CHECK (dimension > 0)
    );

    CREATE TABLE sedimem_lt_records (
        tenant TEXT NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL,
        project TEXT,
        "user" TEXT,
        agent_type TEXT,
        agent TEXT,
        session TEXT,
        text TEXT NOT NULL,
        occurred_at DOUBLE PRECISION NOT NULL,
        importance DOUBLE PRECISION NOT NULL,
        body TEXT NOT NULL,
        embedding vector,
        outcome TEXT,
        task_type TEXT,
        subject TEXT,
        predicate TEXT,
        name TEXT,
        valid_from DOUBLE PRECISION,
        valid_to DOUBLE PRECISION,
        recorded_at DOUBLE PRECISION,
        invalidated_at DOUBLE PRECISION,
        sources TEXT[] NOT NULL DEFAULT '{}',
        tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('english'::regconfig, text)) STORED,
        PRIMARY KEY (tenant, id)
    );

    -- tenant first everywhere; the scope columns serve the visibility rule's
    -- "column IS NULL OR column = x" (a BitmapOr of two scans) and the exact fallback of a
    -- selective vector search
    CREATE INDEX sedimem_lt_records_kind ON sedimem_lt_records (tenant, kind, id);
    CREATE INDEX sedimem_lt_records_occurred
        ON sedimem_lt_records (tenant, kind, occurred_at);
    CREATE INDEX sedimem_lt_records_project ON sedimem_lt_records (tenant, project);
    CREATE INDEX sedimem_lt_records_user ON sedimem_lt_records (tenant, "user");
    CREATE INDEX sedimem_lt_records_agent ON sedimem_lt_records (tenant, agent);
    CREATE INDEX sedimem_lt_records_session ON sedimem_lt_records (tenant, session);
    CREATE INDEX sedimem_lt_records_task_type
        ON sedimem_lt_records (tenant, task_type) WHERE task_type IS NOT NULL;
    CREATE INDEX sedimem_lt_records_subject
        ON sedimem_lt_records (tenant, kind, subject, predicate) WHERE subject IS NOT NULL;
    CREATE INDEX sedimem_lt_records_name
        ON sedimem_lt_records (tenant, kind, name) WHERE name IS NOT NULL;
    CREATE INDEX sedimem_lt_records_tsv ON sedimem_lt_records USING gin (tsv);
    CREATE INDEX sedimem_lt_records_sources ON sedimem_lt_records USING gin (sources);

    CREATE AGGREGATE sedimem_tsquery_or (tsquery) (SFUNC = tsquery_or, STYPE = tsquery);
    """,
    # 2: GIN indexes without a pending list. With fastupdate (the default) new entries wait
    # in an unordered list, up to gin_pending_list_limit (4 MB), until VACUUM merges them,
    # and every search reads the whole list: after a bulk load, keyword search was several
    # times slower until autovacuum came by. Writing straight into the index costs a row
    # far less than its HNSW insert.
    """
    ALTER INDEX sedimem_lt_records_tsv SET (fastupdate = off);
    ALTER INDEX sedimem_lt_records_sources SET (fastupdate = off);
    SELECT gin_clean_pending_list('sedimem_lt_records_tsv'::regclass);
    SELECT gin_clean_pending_list('sedimem_lt_records_sources'::regclass);
    """,
    # 3: vectors stay in their rows (rows written from then on). pgvector's type is stored
    # EXTERNAL: a row past ~2 kB (text, body, tsvector and a 384-float vector are ~2.6 kB)
    # had its vector moved out of line, into the TOAST table, so an exact search over a
    # scope's rows read three buffers per row (2.4 ms for 700 rows at 100k records). MAIN
    # keeps the vector in the row and moves the body out of line instead (read only for the
    # records a search returns). See also vector_index_ddl.
    """
    ALTER TABLE sedimem_lt_records ALTER COLUMN embedding SET STORAGE MAIN;
    """,
    # 4: a record by its handle (``sedimem.ids.handle``: the last 10 characters of its id),
    # as a context names it; the expression is ``filters.HANDLE_CLAUSE``'s.
    """
    CREATE INDEX sedimem_lt_records_handle ON sedimem_lt_records (tenant, right(id, 10));
    """,
]


#: Columns written by ``put`` (in this order); ``tsv`` is generated.
RECORD_COLUMNS: tuple[str, ...] = (
    "tenant",
    "id",
    "kind",
    "project",
    "user",
    "agent_type",
    "agent",
    "session",
    "text",
    "occurred_at",
    "importance",
    "body",
    "embedding",
    "outcome",
    "task_type",
    "subject",
    "predicate",
    "name",
    "valid_from",
    "valid_to",
    "recorded_at",
    "invalidated_at",
    "sources",
)

#: Columns read back into a StoredRecord (no vector: records come back without one).
SELECT_COLUMNS: tuple[str, ...] = tuple(c for c in RECORD_COLUMNS if c != "embedding")


def vector_index_ddl(dimension: int) -> sql.Composed:
    """Fix the vector column's dimension and build its HNSW (cosine) index; keep vectors in
    their rows (``ALTER COLUMN ... TYPE`` resets a column's storage to its type's, EXTERNAL
    for pgvector's: see migration 3)."""
    return sql.SQL(
        "ALTER TABLE {table} ALTER COLUMN embedding TYPE vector({dim}); "
        "ALTER TABLE {table} ALTER COLUMN embedding SET STORAGE MAIN; "
        "CREATE INDEX IF NOT EXISTS {index} ON {table} USING hnsw (embedding vector_cosine_ops)"
    ).format(
        table=sql.Identifier(TABLE), dim=sql.Literal(dimension), index=sql.Identifier(_HNSW_INDEX)
    )


def drop_vector_index_ddl() -> sql.Composed:
    """Drop the HNSW index and every stored vector (before binding another embedder)."""
    return sql.SQL(
        "DROP INDEX IF EXISTS {index}; "
        "UPDATE {table} SET embedding = NULL WHERE embedding IS NOT NULL"
    ).format(table=sql.Identifier(TABLE), index=sql.Identifier(_HNSW_INDEX))
