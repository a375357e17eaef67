"""How values are written on the wire: exactly as the published schema states, nothing looser.

Bodies are validated in pydantic's strict mode (``true`` is not an integer, ``"5"`` is not a
number, ``0`` is not a boolean); the few types strict mode cannot take from JSON are
loosened here one by one, each to its JSON form only: an enum member from its string value,
a time from an RFC 3339 string.

A query string is text by nature, so a query parameter's value is read as the JSON literal
of its schema's type, and only that: an ``integer`` as ``-?(0|[1-9][0-9]*)``, a ``number``
as a JSON number, a ``boolean`` as ``true`` or ``false``. Python's and pydantic's looser
readings (``"5.0"``, ``" 5"``, ``"1_000"``, ``"yes"``, ``"1"``) are refused with 422.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, AwareDatetime, BeforeValidator, Strict

from sedimem.types.longterm import Outcome
from sedimem.types.working import TaskStatus

__all__ = [
    "AS_BOOLEAN",
    "AS_INTEGER",
    "AS_NUMBER",
    "RFC3339",
    "Instant",
    "OutcomeName",
    "StatusName",
]

#: RFC 3339 ``date-time`` (section 5.6), offset required; pydantic then checks the ranges.
RFC3339 = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")
_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_BOOLEANS = {"true": True, "false": False}


def _rfc3339(value: Any) -> Any:
    """A time is an RFC 3339 string (never a number, ``"-1"`` or a bare date)."""
    if isinstance(value, datetime):  # built in Python, not read from the wire
        return value
    if not isinstance(value, str) or RFC3339.fullmatch(value) is None:
        raise ValueError("must be an RFC 3339 date-time with a UTC offset")
    return value


def _in_utc(value: datetime) -> datetime:
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:  # 0001-01-01T00:00+05:00 has no UTC equivalent
        raise ValueError("lies outside the years 1..9999 in UTC") from exc


#: A point in time, written in RFC 3339 with its UTC offset; normalised to UTC.
Instant = Annotated[
    AwareDatetime, Strict(False), BeforeValidator(_rfc3339), AfterValidator(_in_utc)
]

#: Enum members, taken from their string values only (strict mode wants the Python member).
OutcomeName = Annotated[Outcome, Strict(False)]
StatusName = Annotated[TaskStatus, Strict(False)]


def _literal(kind: str, pattern: re.Pattern[str], read: Callable[[str], Any]) -> BeforeValidator:
    def parse(value: Any) -> Any:
        if not isinstance(value, str):
            return value  # a default, or a value given in Python: the type checks it
        if pattern.fullmatch(value) is None:
            raise ValueError(f"must be written as {kind}")
        return read(value)

    return BeforeValidator(parse)


# Query parameters: the JSON literal of the schema's type, read by the schema's rule. They
# go last in a parameter's ``Annotated[int, Query(ge=...), AS_INTEGER]``: after the bounds,
# so that these stay the type's own (published as ``minimum``/``maximum``).
AS_INTEGER = _literal("a JSON integer (e.g. 10)", _INTEGER, int)
AS_NUMBER = _literal("a JSON number (e.g. 0.5)", _NUMBER, float)
AS_BOOLEAN = _literal("true or false", re.compile("true|false"), _BOOLEANS.__getitem__)
