"""Long-term stores: SQLite (embedded) and PostgreSQL + pgvector."""

from memstrata.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord

__all__ = ["LongTermStore", "RecordFilter", "StoredRecord"]
