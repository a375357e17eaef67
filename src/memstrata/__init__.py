"""memstrata: layered memory for AI agents.

The names below are the public API; everything in a module not listed here may change.
"""

import typing as _typing

from memstrata.config import Settings, WorkingSettings
from memstrata.errors import (
    ConfigurationError,
    Conflict,
    LimitExceeded,
    MemstrataError,
    NotFound,
    PermissionDenied,
    StoreError,
    StoreUnavailable,
    ValidationError,
)
from memstrata.scope import Scope
from memstrata.storage.working import WorkingStore, open_working_store
from memstrata.types.working import (
    CheckpointInfo,
    ScratchpadEntry,
    TaskState,
    TaskStatus,
    WorkingStats,
)
from memstrata.working.memory import WorkingMemory

__all__ = [
    "CheckpointInfo",
    "ConfigurationError",
    "Conflict",
    "LimitExceeded",
    "Memory",
    "MemstrataError",
    "NotFound",
    "PermissionDenied",
    "ScratchpadEntry",
    "Scope",
    "Settings",
    "StoreError",
    "StoreUnavailable",
    "TaskState",
    "TaskStatus",
    "ValidationError",
    "WorkingMemory",
    "WorkingSettings",
    "WorkingStats",
    "WorkingStore",
    "open_working_store",
]
__version__ = "0.1.0"

if _typing.TYPE_CHECKING:
    from memstrata.memory import Memory


def __getattr__(name: str) -> _typing.Any:
    # The facade pulls in numpy, the embedder and every service: load it on first use, so
    # ``import memstrata`` for a Scope or an error stays cheap.
    if name == "Memory":
        from memstrata.memory import Memory

        return Memory
    raise AttributeError(f"module 'memstrata' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "Memory"])
