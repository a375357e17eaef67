"""Settings of the consolidation jobs, validated on construction."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sedimem.errors import ValidationError

__all__ = [
    "DEFAULT_SESSION_IDLE_SECONDS",
    "FRAMEWORK_KEY_PREFIXES",
    "JOBS",
    "ConsolidationSettings",
    "session_idle_seconds",
]

#: The jobs ``Consolidator.run`` knows, in the order they run: sessions first, so the
#: episodes of ended sessions feed the other jobs in the same run.
JOBS = ("sessions", "facts", "procedures", "decay")

DEFAULT_SESSION_IDLE_SECONDS = 3600.0

#: The key prefixes of the framework integrations' state: a LangGraph thread
#: (``sedimem.integrations.langgraph``) and an OpenAI Agents SDK session
#: (``sedimem.integrations.openai_agents``). A test checks they match the integrations'.
FRAMEWORK_KEY_PREFIXES = ("langgraph/", "openai-agents/")


class ConsolidationSettings(BaseModel):
    """Knobs of the consolidation jobs (ranges are enforced: a bad value raises)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    batch_size: int = Field(default=100, ge=1, le=10_000)
    lease_ttl_seconds: float = Field(default=60.0, gt=0, le=86_400)
    min_procedure_episodes: int = Field(default=3, ge=1, le=100_000)
    min_success_rate: float = Field(default=0.7, ge=0.0, le=1.0)
    decay_half_life_days: float = Field(default=30.0, gt=0, le=36_500)
    prune_threshold: float = Field(default=0.05, ge=0.0, le=1.0)
    prune_min_age_days: float = Field(default=7.0, ge=0, le=36_500)
    #: stop a cursor job after this many batches (None: until done); the next run resumes
    max_batches_per_run: int | None = Field(default=None, ge=1)
    #: a session unwritten this long is taken as ended by the ``sessions`` job; must be
    #: shorter than working memory's session TTL (None: 1 hour, or half the TTL if shorter)
    session_idle_seconds: float | None = Field(default=None, gt=0, le=365 * 86_400)
    framework_key_prefixes: tuple[str, ...] = Field(
        default=FRAMEWORK_KEY_PREFIXES,
        description=(
            "A session holding a key that starts with one of these is a framework's state "
            "(a LangGraph thread, an OpenAI Agents session): the sessions job never removes "
            "it, however long it idles."
        ),
    )
    framework_sessions: Literal["keep", "file"] = Field(
        default="keep",
        description=(
            "What the sessions job does with an idle framework session: `keep` leaves it "
            "alone; `file` records it as an episode once, as for any idle session, and keeps "
            "it."
        ),
    )


def session_idle_seconds(settings: ConsolidationSettings, session_ttl_seconds: float) -> float:
    """The idle threshold in force; an explicit one must leave the session time to be read
    before its TTL removes it."""
    idle = settings.session_idle_seconds
    if idle is None:
        return min(DEFAULT_SESSION_IDLE_SECONDS, session_ttl_seconds / 2)
    if idle >= session_ttl_seconds:
        raise ValidationError(
            "session_idle_seconds",
            f"{idle:g} s is not shorter than the session TTL ({session_ttl_seconds:g} s): "
            "idle sessions would be gone before consolidation saw them",
            allowed=f"> 0 and < {session_ttl_seconds:g} (working.session_ttl_seconds)",
        )
    return idle
