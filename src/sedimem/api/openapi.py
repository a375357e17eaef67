"""The published OpenAPI document: FastAPI's, plus the problem responses every route can give.

FastAPI documents a route's success and a 422 of its own shape; our errors all share one
shape (:class:`~sedimem.api.problems.Problem`, ``application/problem+json``), so each
operation lists the statuses it can answer with and points them at that schema.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from sedimem.api.problems import PROBLEM_MEDIA_TYPE, Problem

__all__ = ["build_openapi"]

_REF = {"$ref": "#/components/schemas/Problem"}

_EVERY = {"413": "The request body is over the server's limit."}
_WITH_BODY = {"400": "The body could not be read."}
_SECURED = {
    "401": "No API key, or one that is unknown or revoked.",
    "403": "The key may not do this (outside its narrowing, or not the admin key).",
}
_V1 = {
    "404": "No such record for this key (another tenant's records do not exist for it).",
    "409": "The request contradicts the stored state.",
    "422": "Invalid input: `field` names it and `allowed` says what would be accepted.",
    "429": "The key is over the server's rate limit; `Retry-After` says when to retry.",
    "502": "A store failed.",
    "503": "A store cannot be reached; retry later.",
}


def build_openapi(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        description=app.description,
        routes=app.routes,
        tags=app.openapi_tags,
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components["Problem"] = Problem.model_json_schema(ref_template="#/components/schemas/{model}")
    for path, item in schema.get("paths", {}).items():
        for operation in item.values():
            _add_problems(path, operation)
    # FastAPI's own 422 shape is replaced everywhere; its schemas would only mislead
    components.pop("HTTPValidationError", None)
    components.pop("ValidationError", None)
    return schema


def _add_problems(path: str, operation: dict[str, Any]) -> None:
    statuses = dict(_EVERY)
    if "requestBody" in operation:
        statuses.update(_WITH_BODY)
    if operation.get("security"):
        statuses.update(_SECURED)
    if path.startswith("/v1/"):
        statuses.update(_V1)
    responses = operation.setdefault("responses", {})
    for status, description in statuses.items():
        problem = {"description": description, "content": {PROBLEM_MEDIA_TYPE: {"schema": _REF}}}
        if status == "422":
            responses[status] = problem  # FastAPI's own shape is replaced
        else:
            responses.setdefault(status, problem)  # a route's own answer stays
