"""Checks of the arguments every long-term service takes, in one place."""

from __future__ import annotations

from datetime import datetime

from sedimem.errors import ValidationError
from sedimem.types.text import check_no_nul

__all__ = ["MAX_K", "aware_timestamp", "check_k", "check_query", "check_text"]

MAX_K = 1000


def check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise ValidationError("k", f"{k!r} is out of range", allowed=f"1..{MAX_K}")
    return k


def check_query(query: str) -> str:
    if not isinstance(query, str) or not query.strip():
        raise ValidationError("query", "must be non-empty text", allowed="1..10000 characters")
    if len(query) > 10_000:
        raise ValidationError("query", "is too long", allowed="1..10000 characters")
    return check_no_nul("query", query)


def check_text(field: str, value: str | None) -> str | None:
    """An id or filter text, refused with ``field`` named when it holds NUL: no stored text
    holds one, and PostgreSQL would refuse it without saying which argument was wrong."""
    return None if value is None else check_no_nul(field, value)


def aware_timestamp(value: datetime, field: str) -> float:
    """Epoch seconds of a timezone-aware datetime; a naive one is refused."""
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise ValidationError(field, "must be a timezone-aware datetime", allowed="aware datetime")
    return value.timestamp()
