"""Checks of the arguments every long-term service takes, in one place."""

from __future__ import annotations

import re
from datetime import datetime

from sedimem.errors import ValidationError
from sedimem.limits import MAX_K, MAX_QUERY_CHARS, MAX_SCOPE_CHARS
from sedimem.types.text import check_no_nul

# MAX_K and MAX_QUERY_CHARS (of sedimem.limits) are re-exported: the services enforce them
__all__ = [
    "MAX_K",
    "MAX_QUERY_CHARS",
    "aware_timestamp",
    "check_k",
    "check_query",
    "check_session",
    "check_text",
]

_SESSION_ID = re.compile(rf"[^\x00-\x1f\x7f]{{1,{MAX_SCOPE_CHARS}}}")  # as a scope's Identifier
_QUERY_ALLOWED = f"1..{MAX_QUERY_CHARS} characters"


def check_k(k: int, field: str = "k") -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValidationError(field, f"{k!r} is out of range", allowed=f"1..{MAX_K}")
    return k


def check_query(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("query", "must be non-empty text", allowed=_QUERY_ALLOWED)
    if len(query) > MAX_QUERY_CHARS:
        raise ValidationError("query", "is too long", allowed=_QUERY_ALLOWED)
    return check_no_nul("query", query)


def check_text(field: str, value: str | None) -> str | None:
    """An id or filter text, refused with ``field`` named when it holds NUL: no stored text
    holds one, and PostgreSQL would refuse it without saying which argument was wrong."""
    return None if value is None else check_no_nul(field, value)


def check_session(session: str | None) -> str | None:
    """An explicit "only this session" filter: a session id as scopes take it, or None."""
    if session is None:
        return None
    if not isinstance(session, str) or not _SESSION_ID.fullmatch(session):
        raise ValidationError(
            "session",
            f"{session!r} is not a session id",
            allowed=f"1..{MAX_SCOPE_CHARS} printable characters",
        )
    return session


def aware_timestamp(value: datetime, field: str) -> float:
    """Epoch seconds of a timezone-aware datetime; a naive one is refused."""
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise ValidationError(field, "must be a timezone-aware datetime", allowed="aware datetime")
    return value.timestamp()
