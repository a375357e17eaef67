"""The records sedimem stores and returns (pydantic models, validated)."""

from sedimem.types.conversation import IngestResult, Message
from sedimem.types.longterm import Episode, Fact, Outcome, Procedure
from sedimem.types.search import Hit, Page, ScoreBreakdown
from sedimem.types.working import (
    CheckpointInfo,
    ScratchpadEntry,
    TaskState,
    TaskStatus,
    WorkingStats,
)

__all__ = [
    "CheckpointInfo",
    "Episode",
    "Fact",
    "Hit",
    "IngestResult",
    "Message",
    "Outcome",
    "Page",
    "Procedure",
    "ScoreBreakdown",
    "ScratchpadEntry",
    "TaskState",
    "TaskStatus",
    "WorkingStats",
]
