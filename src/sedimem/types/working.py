"""Records of working memory: task state, scratchpad entries, checkpoints, stats."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from sedimem.types._base import Model
from sedimem.types.text import NO_NUL

__all__ = [
    "CheckpointInfo",
    "KeyEntry",
    "ScratchpadEntry",
    "TaskState",
    "TaskStatus",
    "WorkingStats",
]


class TaskStatus(StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


class TaskState(Model):
    """Progress of the task a session works on."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    task_id: str = Field(min_length=1, max_length=256, pattern=NO_NUL)
    status: TaskStatus = TaskStatus.PENDING
    current_step: int = Field(default=0, ge=0)
    total_steps: int | None = Field(default=None, ge=0)
    progress_percent: float = Field(default=0.0, ge=0.0, le=100.0)
    started_at: AwareDatetime | None = None
    updated_at: AwareDatetime | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class ScratchpadEntry(BaseModel):
    """One line of reasoning, in the order it was appended."""

    model_config = ConfigDict(frozen=True)

    id: str
    text: str
    created_at: datetime


class KeyEntry(BaseModel):
    """A user key of a session with its value and how long it has left."""

    model_config = ConfigDict(frozen=True)

    key: str
    value: Any
    expires_at: AwareDatetime | None = Field(
        default=None, description="When the key expires on its own; unset: with the session."
    )
    ttl_left_seconds: float | None = Field(
        default=None, description="Seconds until `expires_at` (unset: no TTL of its own)."
    )


class CheckpointInfo(BaseModel):
    """What a checkpoint holds, without its content."""

    model_config = ConfigDict(frozen=True)

    id: str
    description: str = ""
    created_at: datetime
    expires_at: datetime
    keys: int
    scratchpad_entries: int
    has_task_state: bool
    size_bytes: int


class WorkingStats(BaseModel):
    """A session's footprint and the state of its store."""

    model_config = ConfigDict(frozen=True)

    backend: str
    using_fallback: bool
    keys: int
    scratchpad_entries: int
    checkpoints: int
    has_task_state: bool
