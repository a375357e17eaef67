"""The records memstrata stores and returns (pydantic models, validated)."""

from memstrata.types.working import (
    CheckpointInfo,
    ScratchpadEntry,
    TaskState,
    TaskStatus,
    WorkingStats,
)

__all__ = ["CheckpointInfo", "ScratchpadEntry", "TaskState", "TaskStatus", "WorkingStats"]
