"""sedimem: layered memory for AI agents.

The names below are the public API; everything in a module not listed here may change.
"""

import importlib as _importlib
import typing as _typing

if _typing.TYPE_CHECKING:
    from sedimem.config import Settings, WorkingSettings
    from sedimem.errors import (
        ConfigurationError,
        Conflict,
        LimitExceeded,
        NotFound,
        OutageJournalFull,
        PermissionDenied,
        SedimemError,
        StoreError,
        StoreUnavailable,
        ValidationError,
    )
    from sedimem.memory import Memory
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
    "Access",
    "CheckpointInfo",
    "ConfigurationError",
    "Conflict",
    "LimitExceeded",
    "Memory",
    "NotFound",
    "OutageJournalFull",
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

# Where each public name lives. Nothing is imported until a name is first used, so
# ``import sedimem`` (and ``sedimem --help``) stays cheap: the facade pulls in numpy, the
# embedder, pydantic models and every service.
_HOMES = {
    "Access": "sedimem.access",
    "Settings": "sedimem.config",
    "WorkingSettings": "sedimem.config",
    "Memory": "sedimem.memory",
    "Scope": "sedimem.scope",
    "WorkingStore": "sedimem.storage.working",
    "open_working_store": "sedimem.storage.working",
    "CheckpointInfo": "sedimem.types.working",
    "ScratchpadEntry": "sedimem.types.working",
    "TaskState": "sedimem.types.working",
    "TaskStatus": "sedimem.types.working",
    "WorkingStats": "sedimem.types.working",
    "WorkingMemory": "sedimem.working.memory",
    **dict.fromkeys(
        [
            "ConfigurationError",
            "Conflict",
            "LimitExceeded",
            "NotFound",
            "OutageJournalFull",
            "PermissionDenied",
            "SedimemError",
            "StoreError",
            "StoreUnavailable",
            "ValidationError",
        ],
        "sedimem.errors",
    ),
}


def __getattr__(name: str) -> _typing.Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'sedimem' has no attribute {name!r}")
    value = getattr(_importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
