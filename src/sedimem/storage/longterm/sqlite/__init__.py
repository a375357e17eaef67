"""The SQLite long-term store: schema, filters, rows, FTS5 queries, and the registry that
keeps an in-memory search index (an engine the opener passes in) in step with the file."""

from sedimem.storage.longterm.sqlite.engine import IndexEngine, SearchIndex
from sedimem.storage.longterm.sqlite.store import SqliteLongTermStore

__all__ = ["IndexEngine", "SearchIndex", "SqliteLongTermStore"]
