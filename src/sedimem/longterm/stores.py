"""Open a long-term store from a URL: ``sqlite:///path`` or ``postgresql://...``.

Here, above the engines, because the SQLite store searches through the in-memory index
engine (:mod:`sedimem.retrieval.index`), which storage may not import.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from sedimem.config import PostgresSettings
from sedimem.errors import ConfigurationError
from sedimem.storage.longterm.base import LongTermStore
from sedimem.storage.working.factory import sqlite_path

__all__ = ["open_longterm_store"]


async def open_longterm_store(
    url: str, postgres: PostgresSettings | None = None, *, read_urls: Sequence[str] = ()
) -> LongTermStore:
    """The store ``url`` names; ``postgres`` tunes a PostgreSQL one (default: the defaults),
    whose searches ``read_urls`` (streaming replicas) may serve."""
    scheme = urlsplit(url).scheme
    if read_urls and scheme not in ("postgresql", "postgres"):
        raise ConfigurationError(
            f"store_read_urls: read replicas need a PostgreSQL store, not {scheme!r}"
        )
    if scheme == "sqlite":
        from sedimem.retrieval.index import MemoryIndexEngine
        from sedimem.storage.longterm.sqlite import SqliteLongTermStore

        return await SqliteLongTermStore.open(sqlite_path(url), index=MemoryIndexEngine())
    if scheme in ("postgresql", "postgres"):
        from sedimem.storage.longterm.postgres import PostgresLongTermStore

        tuned = postgres or PostgresSettings()
        return await PostgresLongTermStore.open(
            url,
            min_size=tuned.min_pool_size,
            max_size=tuned.max_pool_size,
            connect_timeout=tuned.connect_timeout_seconds,
            ef_search=tuned.ef_search,
            exact_threshold=tuned.exact_threshold,
            keyword_budget=tuned.keyword_budget,
            analyze_rows=tuned.analyze_rows,
            iterative_scans=tuned.iterative_scans,
            read_urls=read_urls,
            replica_max_lag=tuned.replica_max_lag_seconds,
            replica_retry=tuned.replica_retry_seconds,
        )
    raise ConfigurationError(
        f"unsupported long-term store URL scheme {scheme!r} in {url!r}"
        " (expected sqlite:///path or postgresql://...)"
    )
