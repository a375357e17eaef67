"""The in-memory search index: per (tenant, kind) filter columns, exact and HNSW vector
search, and BM25 over analysed text. The SQLite store keeps it beside its rows through
the :class:`~sedimem.storage.longterm.sqlite.IndexEngine` protocol."""

from sedimem.retrieval.index.engine import MemoryIndexEngine

__all__ = ["MemoryIndexEngine"]
