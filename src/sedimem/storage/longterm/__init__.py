"""Long-term stores: SQLite (embedded) and PostgreSQL + pgvector."""

from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord

__all__ = ["LongTermStore", "RecordFilter", "StoredRecord"]
