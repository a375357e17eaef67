"""What lifecycle operations return: what happened, how long it took, which hooks failed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sedimem.types.longterm import Episode

__all__ = ["HookFailure", "LifecycleResult", "TerminateResult"]


class HookFailure(BaseModel):
    """A hook that raised: the operation itself stands."""

    model_config = ConfigDict(frozen=True)

    hook: str = Field(description="The hook's name.")
    error: str = Field(description="What it raised.")


class LifecycleResult(BaseModel):
    """What a lifecycle operation did."""

    model_config = ConfigDict(frozen=True)

    operation: str = Field(description="`spawn`, `pause`, `resume` or `terminate`.")
    session: str = Field(description="The session it acted on.")
    checkpoint_id: str | None = Field(
        default=None, description="The checkpoint a pause took or a resume restored."
    )
    duration_ms: float = Field(description="How long it took, in milliseconds.")
    hook_failures: list[HookFailure] = Field(
        default=[], description="Hooks that raised (the operation itself stands)."
    )


class TerminateResult(LifecycleResult):
    """``episode`` is None when nothing was recorded (see ``already_terminated``)."""

    episode: Episode | None = Field(
        default=None, description="The episode recorded for the session (unset: none)."
    )
    already_terminated: bool = Field(
        default=False, description="Whether an earlier terminate recorded it already."
    )
    cleaned_up: bool = Field(default=False, description="Whether the working state was removed.")
