"""memstrata: layered memory for AI agents.

The names below are the public API; everything in a module not listed here may change.
"""

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
from memstrata.memory import Memory
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
