"""Records of working memory: task state, scratchpad entries, checkpoints, stats."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from sedimem.limits import MAX_JSON_DEPTH, MAX_METADATA_BYTES
from sedimem.types._base import Model
from sedimem.types.fields import StepCount
from sedimem.types.shape import Metadata
from sedimem.types.text import Label

__all__ = [
    "CheckpointInfo",
    "KeyEntry",
    "ScratchpadEntry",
    "TaskState",
    "TaskStatus",
    "WorkingStats",
]


class TaskStatus(StrEnum):
    """Where a task stands."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


class TaskState(Model):
    """Progress of the task a session works on."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    task_id: Label = Field(description="The task's id, as the agent names it.", examples=["t-1"])
    status: TaskStatus = Field(default=TaskStatus.PENDING, description="Where the task stands.")
    current_step: StepCount = Field(default=0, description="Steps done so far.")
    total_steps: StepCount | None = Field(default=None, description="Steps in all, when known.")
    progress_percent: float = Field(
        default=0.0, ge=0.0, le=100.0, description="How far along it is, 0..100."
    )
    started_at: AwareDatetime | None = Field(
        default=None, description="When the task state was first set."
    )
    updated_at: AwareDatetime | None = Field(default=None, description="When it last changed.")
    metadata: Metadata = Field(
        default_factory=dict,
        description="Free-form JSON object kept with the task (nested at most "
        f"{MAX_JSON_DEPTH} levels, at most {MAX_METADATA_BYTES} bytes).",
    )


class ScratchpadEntry(BaseModel):
    """One line of reasoning, in the order it was appended."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The entry's id.")
    text: str = Field(description="The note, as appended.")
    created_at: datetime = Field(description="When it was appended.")


class KeyEntry(BaseModel):
    """A user key of a session with its value and how long it has left."""

    model_config = ConfigDict(frozen=True)

    key: str = Field(description="The key.")
    value: Any = Field(description="Its JSON value.")
    expires_at: AwareDatetime | None = Field(
        default=None, description="When the key expires on its own; unset: with the session."
    )
    ttl_left_seconds: float | None = Field(
        default=None, description="Seconds until `expires_at` (unset: no TTL of its own)."
    )


class CheckpointInfo(BaseModel):
    """What a checkpoint holds, without its content."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(description="The checkpoint's id (to restore, fork or delete it).")
    description: str = Field(default="", description="What it marks, as given.")
    created_at: datetime = Field(description="When it was taken.")
    expires_at: datetime = Field(description="When it expires with the session's TTL.")
    keys: int = Field(description="User keys it holds.")
    scratchpad_entries: int = Field(description="Scratchpad entries it holds.")
    has_task_state: bool = Field(description="Whether it holds a task state.")
    size_bytes: int = Field(description="Its encoded size.")


class WorkingStats(BaseModel):
    """A session's footprint and the state of its store."""

    model_config = ConfigDict(frozen=True)

    backend: str = Field(description="The working store's name (sqlite, memory, redis...).")
    using_fallback: bool = Field(
        description="Whether the in-process fallback serves while the store is unreachable."
    )
    keys: int = Field(description="User keys of the session.")
    scratchpad_entries: int = Field(description="Entries in its scratchpad.")
    checkpoints: int = Field(description="Its checkpoints.")
    has_task_state: bool = Field(description="Whether a task state is set.")
