"""Every error leaves as ``application/problem+json`` (RFC 9457).

Our exception hierarchy maps to statuses here, once: bad input 422 (naming ``field`` and
what is ``allowed``), missing 404, conflict 409, outside the key's narrowing 403, a store
that cannot be reached 503, a store that failed 502. The handlers that apply this
live in :mod:`sedimem.api.handlers`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus

from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from sedimem.api.request_id import current_request_id
from sedimem.errors import (
    ConfigurationError,
    Conflict,
    ModelError,
    ModelUnavailable,
    NotFound,
    PermissionDenied,
    SedimemError,
    StoreError,
    StoreUnavailable,
    ValidationError,
)

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "Problem",
    "ProblemError",
    "ProblemResponse",
    "Unauthenticated",
    "phrase",
    "problem_for",
    "problem_type",
    "respond",
]

logger = logging.getLogger("sedimem.api")

PROBLEM_MEDIA_TYPE = "application/problem+json"


def problem_type(slug: str) -> str:
    """The ``type`` URI of one of our problems (documented in docs/rest.md)."""
    return f"urn:sedimem:problem:{slug}"


class Problem(BaseModel):
    """An error, as RFC 9457 describes it; validation problems add ``field`` and ``allowed``."""

    model_config = ConfigDict(frozen=True)

    type: str = Field(
        default="about:blank", description="A URI naming the kind of problem (RFC 9457)."
    )
    title: str = Field(description="The kind of problem, in a few words.")
    status: int = Field(description="The HTTP status.")
    detail: str | None = Field(default=None, description="What went wrong this time.")
    field: str | None = Field(
        default=None, description="The offending input field (e.g. `k`, `messages.0.role`)."
    )
    allowed: str | None = Field(default=None, description="What that field would accept.")
    request_id: str | None = Field(
        default=None,
        description="The request's id (as in `X-Request-ID` and the server's access log).",
    )


class ProblemResponse(JSONResponse):
    media_type = PROBLEM_MEDIA_TYPE


def respond(problem: Problem, headers: Mapping[str, str] | None = None) -> ProblemResponse:
    """The response carrying ``problem`` (with the id of the request being served, if any)."""
    if problem.request_id is None and (request_id := current_request_id.get()) is not None:
        problem = problem.model_copy(update={"request_id": request_id})
    return ProblemResponse(
        problem.model_dump(exclude_none=True), status_code=problem.status, headers=headers
    )


class ProblemError(Exception):
    """A problem raised by the API layer itself (not by the memory underneath)."""

    def __init__(self, problem: Problem, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(problem.detail or problem.title)
        self.problem = problem
        self.headers = dict(headers or {})


class Unauthenticated(ProblemError):
    """No usable credential: 401 with the challenge that says which scheme to use."""

    def __init__(self, detail: str) -> None:
        super().__init__(
            Problem(
                type=problem_type("unauthenticated"),
                title="Unauthenticated",
                status=401,
                detail=detail,
            ),
            headers={"WWW-Authenticate": "Bearer"},
        )


# Most specific first: the first class an error is an instance of decides.
_STATUSES: tuple[tuple[type[SedimemError], int, str, str], ...] = (
    (ValidationError, 422, "validation", "Invalid request"),
    (NotFound, 404, "not-found", "Not found"),
    (Conflict, 409, "conflict", "Conflict"),
    (PermissionDenied, 403, "permission-denied", "Forbidden"),
    (StoreUnavailable, 503, "store-unavailable", "Store unavailable"),
    (StoreError, 502, "store-error", "Store error"),
    (ModelUnavailable, 503, "model-unavailable", "Model endpoint unavailable"),
    (ModelError, 502, "model-error", "Model endpoint failed"),
    (ConfigurationError, 500, "configuration", "Server misconfigured"),
    (SedimemError, 500, "internal", "Internal error"),
)


def problem_for(exc: SedimemError) -> Problem:
    """The problem an error of ours is answered with."""
    status, slug, title = next((s, u, t) for c, s, u, t in _STATUSES if isinstance(exc, c))
    if status >= 500:
        # the message may name hosts, files or SQL; the log keeps it, the client gets a title
        logger.error("request failed: %s", exc, exc_info=exc)
        return Problem(type=problem_type(slug), title=title, status=status, detail=title)
    if isinstance(exc, ValidationError):
        return Problem(
            type=problem_type(slug),
            title=title,
            status=status,
            detail=str(exc),
            field=exc.field,
            allowed=exc.allowed,
        )
    field = exc.field if isinstance(exc, Conflict | PermissionDenied) else None
    return Problem(
        type=problem_type(slug), title=title, status=status, detail=str(exc), field=field
    )


def phrase(status: int) -> str:
    """The HTTP reason phrase of ``status`` (the title of a plain HTTP problem)."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
