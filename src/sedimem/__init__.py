"""sedimem: layered memory for AI agents.

The names below are the public API; everything in a module not listed here may change.
"""

import typing as _typing

from sedimem.config import Settings, WorkingSettings
from sedimem.errors import (
    ConfigurationError,
    Conflict,
    LimitExceeded,
    NotFound,
    PermissionDenied,
    SedimemError,
    StoreError,
    StoreUnavailable,
    ValidationError,
)
from sedimem.scope import Scope
from sedimem.storage.working import WorkingStore, open_working_store
from sedimem.types.working import (
    CheckpointInfo,
    ScratchpadEntry,
    TaskState,
    TaskStatus,
    WorkingStats,
)
from sedimem.working.memory import WorkingMemory

__all__ = [
    "CheckpointInfo",
    "ConfigurationError",
    "Conflict",
    "LimitExceeded",
    "Memory",
    "NotFound",
    "PermissionDenied",
    "ScratchpadEntry",
    "Scope",
    "SedimemError",
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
__version__ = "0.2.0"

if _typing.TYPE_CHECKING:
    from sedimem.memory import Memory


def __getattr__(name: str) -> _typing.Any:
    # The facade pulls in numpy, the embedder and every service: load it on first use, so
    # ``import sedimem`` for a Scope or an error stays cheap.
    if name == "Memory":
        from sedimem.memory import Memory

        return Memory
    raise AttributeError(f"module 'sedimem' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "Memory"])
