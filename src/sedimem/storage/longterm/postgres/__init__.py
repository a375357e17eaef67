"""The PostgreSQL + pgvector long-term store: schema and migrations, filters, keyword
planning, searches, row mapping, background ANALYZE, and the store that joins them."""

from sedimem.storage.longterm.postgres.store import PostgresLongTermStore

__all__ = ["PostgresLongTermStore"]
