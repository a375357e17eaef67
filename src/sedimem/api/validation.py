"""FastAPI's request validation errors as 422 problems that name the field and what it allows.

``allowed`` is read from the operation's own OpenAPI schema (the same limits a client
sees), so the message and the published contract cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute

from sedimem.api.problems import Problem, problem_type
from sedimem.api.state import app_state
from sedimem.errors import ValidationError
from sedimem.types.text import NO_NUL, NUL_ALLOWED, is_nul_error

__all__ = ["allowed_for", "describe", "problem_for_request", "reject_unknown_query"]

JsonSchema = dict[str, Any]
_LOCATIONS = ("path", "query", "header", "cookie")


def problem_for_request(request: Request, exc: RequestValidationError) -> Problem:
    errors = exc.errors()
    first = errors[0]
    loc: Sequence[str | int] = first.get("loc", ())
    location = str(loc[0]) if loc else "body"
    path = list(loc[1:])
    allowed: str | None
    message = first.get("msg", "is invalid")
    if first.get("type") == "json_invalid":
        field, allowed = "body", "a JSON document"
    elif is_nul_error(first.get("type", ""), first.get("ctx")):
        field = ".".join(map(str, path)) or location
        message, allowed = "contains a NUL character", NUL_ALLOWED
    elif isinstance(first.get("ctx"), dict) and "allowed" in first["ctx"]:
        field = ".".join(map(str, path)) or location
        allowed = str(first["ctx"]["allowed"])  # the rule stated it (types.shape)
    elif first.get("type") == "extra_forbidden":
        field = ".".join(map(str, path)) or location
        allowed = _extra_allowed(path)
    else:
        field = ".".join(map(str, path)) or location
        node = _schema_at(request, location, path)
        allowed = describe(node) if node is not None else None
    detail = f"{field}: {message}"
    if len(errors) > 1:
        detail += f" (and {len(errors) - 1} more problem(s))"
    return Problem(
        type=problem_type("validation"),
        title="Invalid request",
        status=422,
        detail=detail,
        field=field,
        allowed=allowed,
    )


async def reject_unknown_query(request: Request) -> None:
    """Refuse a query parameter the route does not take (a typo must not pass unnoticed;
    a ``tenant`` least of all: it comes from the API key)."""
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return
    cache = app_state(request).query_names
    if id(route) not in cache:
        cache[id(route)] = frozenset(_query_names(route.dependant))
    known = cache[id(route)]
    for name in request.query_params:
        if name in known:
            continue
        if name == "tenant":
            raise ValidationError(
                "tenant", "comes from the API key", allowed=_extra_allowed(["tenant"])
            )
        allowed = ", ".join(sorted(known)) or "no query parameters"
        raise ValidationError(name, "is not a query parameter of this route", allowed=allowed)


def _query_names(dependant: Dependant) -> set[str]:
    names = {param.alias for param in dependant.query_params}
    for sub in dependant.dependencies:
        names |= _query_names(sub)
    return names


def allowed_for(request: Request, field: str) -> str:
    """What the schema allows for ``field`` of the request (for errors that did not say)."""
    path = [int(p) if p.isdigit() else p for p in field.split(".")]
    for location in ("body", "query", "path"):
        node = _schema_at(request, location, path)
        if node is not None and (allowed := describe(node)):
            return allowed
    return "see detail"


def _extra_allowed(path: Sequence[str | int]) -> str:
    if path and path[-1] == "tenant":
        return "omit it: the tenant comes from the API key"
    return "only the fields the schema names"


def _schema_at(request: Request, location: str, path: Sequence[str | int]) -> JsonSchema | None:
    """The schema of the value at ``location``/``path`` in the matched operation, if any."""
    found = _operation(request)
    if found is None:
        return None
    document, operation = found
    if location in _LOCATIONS:
        if not path:
            return None
        name, rest = path[0], path[1:]
        params = [
            p
            for p in operation.get("parameters", [])
            if p.get("name") == name and p.get("in") == location
        ]
        if not params:
            return None
        return _walk(document, params[0].get("schema", {}), rest)
    content = operation.get("requestBody", {}).get("content", {})
    for media in content.values():
        return _walk(document, media.get("schema", {}), path)
    return None


def _operation(request: Request) -> tuple[JsonSchema, JsonSchema] | None:
    """The OpenAPI document describing the matched route, and the route's operation in it.

    The app's whole document when it was built already; else one of the route alone
    (a whole document takes about a second, one route some milliseconds), kept per app.
    """
    route = request.scope.get("route")
    if not isinstance(route, APIRoute):
        return None
    app = request.app
    if app.openapi_schema is not None:
        document: JsonSchema = app.openapi_schema
        item = document.get("paths", {}).get(route.path_format, {})
    else:
        cache = app_state(request).route_schemas
        if id(route) not in cache:
            cache[id(route)] = get_openapi(title=app.title, version=app.version, routes=[route])
        document = cache[id(route)]
        item = next(iter(document.get("paths", {}).values()), {})
    operation = item.get(request.method.lower())
    return None if operation is None else (document, operation)


def _walk(root: JsonSchema, node: JsonSchema, path: Sequence[str | int]) -> JsonSchema | None:
    for part in path:
        node = _resolve(root, node)
        if isinstance(part, int) or part.isdigit():
            items = node.get("items")
            if not isinstance(items, dict):
                return None
            node = items
        else:
            properties = node.get("properties", {})
            if part in properties:
                node = properties[part]
            elif isinstance(node.get("additionalProperties"), dict):
                node = node["additionalProperties"]
            else:
                return None
    return _resolve(root, node)


def _resolve(root: JsonSchema, node: JsonSchema) -> JsonSchema:
    """Follow ``$ref`` and pick the non-null branch of an optional value."""
    for _ in range(32):  # references nest a few levels at most; never loop forever
        if "$ref" in node:
            target: Any = root
            for part in str(node["$ref"]).removeprefix("#/").split("/"):
                target = target.get(part, {})
            node = cast(JsonSchema, target)
            continue
        branches = [b for b in node.get("anyOf", []) if b.get("type") != "null"]
        if len(branches) == 1:
            node = branches[0]
            continue
        return node
    return node


def describe(node: JsonSchema) -> str | None:
    """What a value must look like, in a few words: ``1..1000``, ``1..128 characters``..."""
    if "enum" in node:
        return "one of: " + ", ".join(map(str, node["enum"]))
    if "const" in node:
        return f"exactly {node['const']}"
    kind = node.get("type")
    parts: list[str] = []
    if kind in ("integer", "number"):
        parts.append(_range(node) or ("an integer" if kind == "integer" else "a number"))
    elif kind == "string":
        parts.append(_string(node))
    elif kind == "array":
        low, high = node.get("minItems"), node.get("maxItems")
        count = _bounds(low, high)
        parts.append(f"a list of {count} items" if count else "a list")
    elif kind == "boolean":
        parts.append("true or false")
    elif kind == "object":
        required = node.get("required") or []
        parts.append("a JSON object" + (f" with {', '.join(required)}" if required else ""))
    elif kind is None and not node.get("anyOf"):
        parts.append("any JSON value")
    return ", ".join(parts) or None


def _string(node: JsonSchema) -> str:
    if node.get("format") == "date-time":
        return "an RFC 3339 date-time with a UTC offset"
    text = "text"
    count = _bounds(node.get("minLength"), node.get("maxLength"))
    if count:
        text = f"{count} characters"
    if node.get("pattern") == NO_NUL:
        text += " without NUL"
    elif "pattern" in node:
        text += f" matching {node['pattern']}"
    return text


def _range(node: JsonSchema) -> str | None:
    low, high = node.get("minimum"), node.get("maximum")
    low_x, high_x = node.get("exclusiveMinimum"), node.get("exclusiveMaximum")
    if low is not None and high is not None:
        return f"{_num(low)}..{_num(high)}"
    parts = []
    if low is not None:
        parts.append(f">= {_num(low)}")
    if low_x is not None:
        parts.append(f"> {_num(low_x)}")
    if high is not None:
        parts.append(f"<= {_num(high)}")
    if high_x is not None:
        parts.append(f"< {_num(high_x)}")
    return " and ".join(parts) or None


def _bounds(low: int | None, high: int | None) -> str | None:
    if low is not None and high is not None:
        return f"{low}..{high}"
    if low is not None:
        return f"at least {low}"
    if high is not None:
        return f"at most {high}"
    return None


def _num(value: float) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # 1000000, not 1e+06
    return str(value)
