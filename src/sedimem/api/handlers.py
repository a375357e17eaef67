"""The exception handlers that turn every error into a problem+json response."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.routing import BaseRoute, Match
from starlette.types import Scope

from sedimem.api.problems import (
    Problem,
    ProblemError,
    phrase,
    problem_for,
    problem_type,
    respond,
)
from sedimem.api.validation import allowed_for, problem_for_request
from sedimem.errors import ModelError, SedimemError, StoreUnavailable

__all__ = ["allowed_methods", "http_error", "install", "retry_after"]

logger = logging.getLogger("sedimem.api")

_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")


def _retried(exc: SedimemError) -> bool:
    return isinstance(exc, StoreUnavailable | ModelError)


def retry_after(exc: SedimemError) -> str:
    """``Retry-After`` for a failure worth retrying: what a model endpoint asked for (whole
    seconds, at least 1), else 1 s."""
    asked = exc.retry_after if isinstance(exc, ModelError) else None
    return str(max(1, math.ceil(asked))) if asked is not None else "1"


async def _sedimem_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, SedimemError)
    headers = {"Retry-After": retry_after(exc)} if _retried(exc) else None
    problem = problem_for(exc)
    if problem.field is not None and problem.allowed is None:
        # the rule that failed said nothing of what is allowed: the schema may
        problem = problem.model_copy(update={"allowed": allowed_for(request, problem.field)})
    return respond(problem, headers)


async def _problem_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ProblemError)
    return respond(exc.problem, exc.headers)


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors: no such route, method not allowed, body too large.

    Starlette's ``Allow`` names the methods of the first route matching the path only
    (``POST`` for ``/v1/episodes``, which ``GET`` serves too): it is recomputed from every
    route. ``OPTIONS`` on a path that exists answers 204 with that ``Allow``.
    """
    assert isinstance(exc, HTTPException)
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        methods = allowed_methods(request.app.router.routes, request.scope)
        headers["Allow"] = ", ".join(methods)
        if request.method == "OPTIONS":
            return Response(status_code=204, headers=headers)
    problem = getattr(exc, "problem", None)
    if not isinstance(problem, Problem):
        problem = Problem(title=phrase(exc.status_code), status=exc.status_code, detail=exc.detail)
    return respond(problem, headers)


def allowed_methods(routes: Sequence[BaseRoute], scope: Scope) -> list[str]:
    """Every method some route serves at the scope's path (``OPTIONS`` included), sorted.

    Each method is tried against every route (FastAPI keeps included routers as routes of
    their own, so the routes' ``methods`` cannot simply be read).
    """
    methods = {"OPTIONS"}
    for method in _METHODS:
        probe = {**scope, "method": method}
        if any(route.matches(probe)[0] is Match.FULL for route in routes):
            methods.add(method)
    return sorted(methods)


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
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, _request_validation_error)
    app.add_exception_handler(Exception, _unexpected)
