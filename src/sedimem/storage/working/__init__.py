"""Working-memory stores: in-process, SQLite and Redis, plus the Redis fallback wrapper."""

from sedimem.storage.working.base import (
    IdleSession,
    SessionCounts,
    SessionRef,
    Snapshot,
    StoredValue,
    WorkingStore,
)
from sedimem.storage.working.factory import open_working_store
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry

__all__ = [
    "IdleSession",
    "InProcessWorkingStore",
    "SessionCounts",
    "SessionRef",
    "SessionRegistry",
    "Snapshot",
    "StoredValue",
    "WorkingStore",
    "open_working_store",
]
