"""The base of every record: pydantic validation, reported through our own error type."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Self

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from sedimem.errors import ValidationError
from sedimem.types.text import NUL_ALLOWED, is_nul_error

__all__ = ["Model", "translate", "without_nul"]


def translate(
    exc: PydanticValidationError, prefix: str = "", *, fields: Iterable[str] = ()
) -> ValidationError:
    """Our error for pydantic's, naming the first offending field (``fields``: the model's
    own, named as what is allowed in place of an unknown one)."""
    first = exc.errors()[0]
    loc = ".".join(str(part) for part in first["loc"]) or "value"
    field = f"{prefix}{loc}"
    ctx = first.get("ctx") or {}
    allowed: str | None
    if is_nul_error(first["type"], ctx):
        message, allowed = "contains a NUL character", NUL_ALLOWED
    else:
        bounds = [f"{_BOUNDS[k]} {v}" for k, v in ctx.items() if k in _BOUNDS]
        allowed = ", ".join(bounds) or ctx.get("expected") or None
        if first["type"] == "extra_forbidden":
            allowed = ", ".join(fields) or None
        message = first["msg"]
    if len(exc.errors()) > 1:
        message += f" (and {len(exc.errors()) - 1} more problem(s))"
    return ValidationError(field, message, allowed=allowed)


_BOUNDS = {
    "ge": ">=",
    "gt": ">",
    "le": "<=",
    "lt": "<",
    "min_length": "length >=",
    "max_length": "length <=",
    "pattern": "matching",
}


class Model(BaseModel):
    """A validated record; invalid input raises :class:`sedimem.ValidationError`."""

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except PydanticValidationError as exc:
            raise translate(exc, fields=type(self).model_fields) from exc

    @classmethod
    def from_stored(cls, body: str) -> Self:
        """The record of a stored JSON body.

        Versions before the no-NUL rule (``sedimem.types.text``) let SQLite keep NUL in
        text; such a record still reads, with U+FFFD in place of each NUL of its text
        (its JSON values, ``metadata``, keep theirs), so it can be exported and erased.
        """
        try:
            return cls.model_validate_json(body)
        except PydanticValidationError:
            if "\\u0000" not in body:
                raise
            return cls.model_validate(without_nul(json.loads(body)))


def without_nul(value: Any, key: str | None = None) -> Any:
    """``value`` with NUL replaced by U+FFFD in every text outside ``metadata``."""
    if key == "metadata":
        return value
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, list):
        return [without_nul(item) for item in value]
    if isinstance(value, dict):
        return {k: without_nul(v, k) for k, v in value.items()}
    return value
