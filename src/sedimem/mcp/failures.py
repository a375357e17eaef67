"""How failures reach the agent: one line naming the field and what is allowed.

The SDK turns a tool's exception into an ``isError`` result. Arguments that fail the input
schema arrive as pydantic's multi-line report; :func:`describe_invalid_arguments` rewrites
it as ``field: problem, got X (allowed: range)``, the range read from the tool's own JSON
schema so the message and the schema never disagree. Our errors keep their message, except
store and model-endpoint failures, whose text may describe the deployment (paths, hosts):
those get a generic one, with a retry hint.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from sedimem.errors import (
    ModelError,
    ModelUnavailable,
    SedimemError,
    StoreError,
    StoreUnavailable,
    ValidationError,
)
from sedimem.types.text import NUL_ALLOWED, is_nul_error

__all__ = ["describe_error", "describe_invalid_arguments"]

_MAX_SHOWN = 80


def describe_error(exc: SedimemError, schema: Mapping[str, Any]) -> str:
    """What the agent is told about one of our errors (``schema``: the tool's input schema,
    to say what is allowed when the error does not)."""
    if isinstance(exc, StoreUnavailable):
        return "the memory store is unavailable right now; retry later"
    if isinstance(exc, StoreError):
        return "the memory store failed to serve this call; retry later"
    if isinstance(exc, ModelError):
        when = "later" if exc.retry_after is None else f"in {exc.retry_after:g} s"
        if isinstance(exc, ModelUnavailable):
            return f"the model endpoint (LLM) is unavailable right now; retry {when}"
        return f"the model endpoint (LLM) gave no usable answer; retry {when}"
    if isinstance(exc, ValidationError) and exc.allowed is None:
        allowed = _allowed(_field_schema(schema, (exc.field,)))
        if allowed:
            return f"{exc} (allowed: {allowed})"
    return str(exc)


def describe_invalid_arguments(exc: PydanticValidationError, schema: Mapping[str, Any]) -> str:
    """``field: problem, got value (allowed: ...)`` for the first problem of ``exc``."""
    errors = exc.errors()
    first = errors[0]
    loc = tuple(first["loc"])
    field = ".".join(str(part) for part in loc) or "arguments"
    if is_nul_error(first["type"], first.get("ctx")):
        return f"{field}: contains a NUL character (allowed: {NUL_ALLOWED})"
    text = f"{field}: {first['msg']}"
    if first["type"] != "missing":
        shown = repr(first.get("input"))
        text += f", got {shown if len(shown) <= _MAX_SHOWN else shown[: _MAX_SHOWN - 3] + '...'}"
    allowed = _allowed(_field_schema(schema, loc))
    if allowed:
        text += f" (allowed: {allowed})"
    if len(errors) > 1:
        text += f"; and {len(errors) - 1} more problem(s)"
    return text


def _field_schema(schema: Mapping[str, Any], loc: Sequence[int | str]) -> Mapping[str, Any]:
    node: Mapping[str, Any] = schema
    for part in loc:
        node = _non_null(node)
        if isinstance(part, int):
            node = node.get("items", {})
        else:
            node = node.get("properties", {}).get(part, {})
    return _non_null(node)


def _non_null(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """The non-null branch of an optional field's ``anyOf``."""
    branches = [b for b in node.get("anyOf", ()) if b.get("type") != "null"]
    if len(branches) == 1:
        return {**{k: v for k, v in node.items() if k != "anyOf"}, **branches[0]}
    return node


def _allowed(node: Mapping[str, Any]) -> str | None:
    if "enum" in node:
        return "one of " + ", ".join(str(v) for v in node["enum"])
    if node.get("format") == "date-time":
        return "an ISO 8601 date-time with a time zone, e.g. 2025-01-31T09:00:00Z"
    parts = []
    low, high = node.get("minimum"), node.get("maximum")
    if "exclusiveMinimum" in node:
        parts.append(f"> {_num(node['exclusiveMinimum'])}")
    if low is not None and high is not None:
        parts.append(f"{_num(low)}..{_num(high)}")
    elif low is not None:
        parts.append(f">= {_num(low)}")
    elif high is not None:
        parts.append(f"<= {_num(high)}")
    if "maxLength" in node:
        parts.append(f"{node.get('minLength', 0)}..{node['maxLength']} characters")
    if "maxItems" in node:
        parts.append(f"{node.get('minItems', 0)}..{node['maxItems']} items")
    if "maxProperties" in node:
        parts.append(f"at most {node['maxProperties']} keys")
    if parts:
        return " and ".join(parts)
    kind = node.get("type")
    return f"a JSON {kind}" if isinstance(kind, str) else None


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
