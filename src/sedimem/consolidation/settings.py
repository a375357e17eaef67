"""Settings of the consolidation jobs, validated on construction."""

from __future__ import annotations

from sedimem.errors import ValidationError

# configured in Settings.consolidation
from sedimem.settings.consolidation import (
    DEFAULT_SESSION_IDLE_SECONDS,
    FRAMEWORK_KEY_PREFIXES,
    ConsolidationSettings,
)

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
