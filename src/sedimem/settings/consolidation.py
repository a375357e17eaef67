"""Knobs of the consolidation jobs (see :mod:`sedimem.consolidation`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_SESSION_IDLE_SECONDS", "FRAMEWORK_KEY_PREFIXES", "ConsolidationSettings"]

#: A session unwritten this long is taken as ended, unless configured (or the TTL is shorter).
DEFAULT_SESSION_IDLE_SECONDS = 3600.0

#: The key prefixes of the framework integrations' state: a LangGraph thread
#: (``sedimem.integrations.langgraph``) and an OpenAI Agents SDK session
#: (``sedimem.integrations.openai_agents``). A test checks they match the integrations'.
FRAMEWORK_KEY_PREFIXES = ("langgraph/", "openai-agents/")


class ConsolidationSettings(BaseModel):
    """Knobs of the consolidation jobs (ranges are enforced: a bad value raises)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    batch_size: int = Field(
        default=100, ge=1, le=10_000, description="Records a job reads per batch."
    )
    lease_ttl_seconds: float = Field(
        default=60.0,
        gt=0,
        le=86_400,
        description="A job's lease on a tenant lasts this long unless renewed (a crashed "
        "worker's job is taken over after it).",
    )
    min_procedure_episodes: int = Field(
        default=3,
        ge=1,
        le=100_000,
        description="Successful episodes with the same actions before they become a procedure.",
    )
    min_success_rate: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="Success rate an action sequence needs to become a procedure.",
    )
    decay_half_life_days: float = Field(
        default=30.0,
        gt=0,
        le=36_500,
        description="Age at which an episode's decayed importance halves.",
    )
    prune_threshold: float = Field(
        default=0.05,
        ge=0.0,
        le=1.0,
        description="Episodes whose decayed importance falls below this are pruned.",
    )
    prune_min_age_days: float = Field(
        default=7.0, ge=0, le=36_500, description="Episodes younger than this are never pruned."
    )
    max_batches_per_run: int | None = Field(
        default=None,
        ge=1,
        description="Stop a cursor job after this many batches; the next run resumes "
        "(unset: until done).",
    )
    session_idle_seconds: float | None = Field(
        default=None,
        gt=0,
        le=365 * 86_400,
        description="A session unwritten this long is taken as ended by the sessions job; "
        "must be shorter than working memory's session TTL (unset: 1 hour, or half the TTL "
        "if shorter).",
    )
    framework_key_prefixes: tuple[str, ...] = Field(
        default=FRAMEWORK_KEY_PREFIXES,
        description="A session holding a key that starts with one of these is a framework's "
        "state (a LangGraph thread, an OpenAI Agents session): the sessions job never removes "
        "it, however long it idles.",
    )
    framework_sessions: Literal["keep", "file"] = Field(
        default="keep",
        description="What the sessions job does with an idle framework session: `keep` leaves "
        "it alone; `file` records it as an episode once, as for any idle session, and keeps it.",
    )
