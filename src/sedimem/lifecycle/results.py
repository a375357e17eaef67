"""What lifecycle operations return: what happened, how long it took, which hooks failed."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sedimem.types.longterm import Episode

__all__ = ["HookFailure", "LifecycleResult", "TerminateResult"]


class HookFailure(BaseModel):
    """A hook that raised: the operation itself stands."""

    model_config = ConfigDict(frozen=True)

    hook: str
    error: str


class LifecycleResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    operation: str
    session: str
    checkpoint_id: str | None = None
    duration_ms: float
    hook_failures: list[HookFailure] = []


class TerminateResult(LifecycleResult):
    """``episode`` is None when nothing was recorded (see ``already_terminated``)."""

    episode: Episode | None = None
    already_terminated: bool = False
    cleaned_up: bool = False
