"""The records memstrata stores and returns (pydantic models, validated)."""

from memstrata.types.longterm import Episode, Fact, Outcome, Procedure
from memstrata.types.search import Hit, Page, ScoreBreakdown
from memstrata.types.working import (
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
    "Outcome",
    "Page",
    "Procedure",
    "ScoreBreakdown",
    "ScratchpadEntry",
    "TaskState",
    "TaskStatus",
    "WorkingStats",
]
