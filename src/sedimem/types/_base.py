"""The base of every record: pydantic validation, reported through our own error type."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from sedimem.errors import ValidationError

__all__ = ["Model", "translate"]


def translate(exc: PydanticValidationError, prefix: str = "") -> ValidationError:
    """Our error for pydantic's, naming the first offending field."""
    first = exc.errors()[0]
    loc = ".".join(str(part) for part in first["loc"]) or "value"
    field = f"{prefix}{loc}"
    ctx = first.get("ctx") or {}
    bounds = [f"{_BOUNDS[k]} {v}" for k, v in ctx.items() if k in _BOUNDS]
    allowed = ", ".join(bounds) or ctx.get("expected") or None
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
            raise translate(exc) from exc
