"""The base of every record: pydantic validation, reported through our own error type."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any, Self, cast

from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError
from pydantic_core import CoreSchema, SchemaValidator

from sedimem.errors import ValidationError
from sedimem.types.shape import flatten_deep, loads_stored
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
        allowed = ", ".join(bounds) or ctx.get("expected") or ctx.get("allowed") or None
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
        fast = _stored_validator(cls)
        if fast is not None:
            try:
                record: Self = fast.validate_json(body)
            except Exception:  # the usual path below fails (or recovers) as it always has
                pass
            else:
                return record
        try:
            return cls.model_validate_json(body)
        except PydanticValidationError:
            data = loads_stored(body)
            if "\\u0000" in body:
                data = without_nul(data)
            return cls.from_stored_data(data)

    @classmethod
    def from_stored_data(cls, data: Any) -> Self:
        """The record of stored, parsed JSON ``data``, whatever its ``metadata`` holds.

        Versions before the shape limits (:mod:`sedimem.types.shape`) stored metadata of
        any depth and size: it is kept as stored (its levels past the depth limit as JSON
        text), never refused, so a read never fails on its own data."""
        metadata = data.get("metadata") if isinstance(data, dict) else None
        if not isinstance(metadata, dict):
            return cls.model_validate(data)
        record = cls.model_validate({**data, "metadata": {}})
        object.__setattr__(record, "metadata", flatten_deep(metadata))
        return record


@functools.cache
def _stored_validator(cls: type[BaseModel]) -> SchemaValidator | None:
    """A validator of ``cls`` that builds the record without calling ``Model.__init__``.

    A model with its own ``__init__`` (ours translates errors) makes pydantic validate the
    input, then call ``__init__``, which validates all of it again: twice the work for
    every record read back (ten per recall). Records a store wrote are valid by
    construction; this validator checks them once, and on any failure ``from_stored``
    takes the usual path. ``None`` when the schema is not the shape expected here. A schema
    that is the bare model node (no ``model_validator``) gains nothing: pydantic reuses the
    class's own validator for it."""
    schema = _without_custom_init(cast(dict[str, Any], cls.__pydantic_core_schema__), cls)
    if schema is None:
        return None
    try:
        return SchemaValidator(cast(CoreSchema, schema))
    except Exception:  # e.g. a reference to a definition elsewhere: the usual path, then
        return None


def _without_custom_init(schema: dict[str, Any], cls: type[BaseModel]) -> dict[str, Any] | None:
    """``schema`` with ``cls``'s model node marked as having no custom ``__init__``,
    through the validators that wrap it (``model_validator``); ``None`` if not found."""
    if schema.get("type") == "model" and schema.get("cls") is cls:
        return {**schema, "custom_init": False}
    if schema.get("type") in ("function-after", "function-before", "function-wrap"):
        inner = _without_custom_init(schema["schema"], cls)
        return None if inner is None else {**schema, "schema": inner}
    return None


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
