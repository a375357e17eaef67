"""The exception handlers that turn every error into a problem+json response."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response

from sedimem.api.problems import (
    Problem,
    ProblemError,
    phrase,
    problem_for,
    problem_type,
    respond,
)
from sedimem.api.validation import allowed_for, problem_for_request
from sedimem.errors import SedimemError, StoreUnavailable

__all__ = ["install"]

logger = logging.getLogger("sedimem.api")


async def _sedimem_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SedimemError)
    headers = {"Retry-After": "1"} if isinstance(exc, StoreUnavailable) else None
    problem = problem_for(exc)
    if problem.field is not None and problem.allowed is None:
        # the rule that failed said nothing of what is allowed: the schema may
        problem = problem.model_copy(update={"allowed": allowed_for(request, problem.field)})
    return respond(problem, headers)


async def _problem_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ProblemError)
    return respond(exc.problem, exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors: no such route, method not allowed, body too large."""
    assert isinstance(exc, HTTPException)
    problem = getattr(exc, "problem", None)
    if not isinstance(problem, Problem):
        problem = Problem(title=phrase(exc.status_code), status=exc.status_code, detail=exc.detail)
    return respond(problem, exc.headers)


async def _request_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return respond(problem_for_request(request, exc))


async def _unexpected(request: Request, exc: Exception) -> Response:
    # a bug, not bad input: log it whole, tell the client nothing about the inside
    logger.error("unexpected error in %s %s", request.method, request.url.path, exc_info=exc)
    return respond(Problem(type=problem_type("internal"), title="Internal error", status=500))


def install(app: FastAPI) -> None:
    """Route every error of ``app`` through the handlers above."""
    app.add_exception_handler(SedimemError, _sedimem_error)
    app.add_exception_handler(ProblemError, _problem_error)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _request_validation_error)
    app.add_exception_handler(Exception, _unexpected)
