"""Every error leaves as problem+json with the status its class maps to."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from sedimem.api.problems import phrase
from sedimem.errors import (
    ConfigurationError,
    Conflict,
    ExtractionFailed,
    LimitExceeded,
    ModelError,
    ModelUnavailable,
    NotFound,
    PermissionDenied,
    SedimemError,
    StoreError,
    StoreUnavailable,
    ValidationError,
)
from tests.api.conftest import assert_problem

ERRORS: list[tuple[Exception, int, str]] = [
    (ValidationError("k", "is bad", allowed="1..3"), 422, "validation"),
    (LimitExceeded("value", "is too big", allowed="at most 1 byte"), 422, "validation"),
    (NotFound("no such thing"), 404, "not-found"),
    (Conflict("already there"), 409, "conflict"),
    (PermissionDenied("not yours"), 403, "permission-denied"),
    (StoreUnavailable("redis://secret-host down"), 503, "store-unavailable"),
    (StoreError("SELECT went wrong on secret-host"), 502, "store-error"),
    # a model endpoint is not a store: its own problem types, and a retry hint
    (
        ModelUnavailable("chat endpoint http://secret-host down", retry_after=2.5),
        503,
        "model-unavailable",
    ),
    (ModelUnavailable("embedding endpoint http://secret-host down"), 503, "model-unavailable"),
    (ModelError("chat endpoint http://secret-host answered HTML"), 502, "model-error"),
    (ExtractionFailed("secret-host: no valid facts JSON", attempts=3), 502, "model-error"),
    (ConfigurationError("bad wiring"), 500, "configuration"),
    (SedimemError("something"), 500, "internal"),
    (RuntimeError("a bug"), 500, "internal"),
]


@pytest.fixture
async def raising(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """The app with one more route that raises the error named by its index."""

    async def boom(index: int) -> None:
        raise ERRORS[index][0]

    app.add_api_route("/boom/{index}", boom, methods=["GET"])
    # an unexpected error is answered, then re-raised to the server (which logs it)
    transport = httpx.ASGITransport(app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        yield client


@pytest.mark.parametrize("index", range(len(ERRORS)))
async def test_errors_map_to_statuses(
    raising: httpx.AsyncClient, index: int, caplog: pytest.LogCaptureFixture
) -> None:
    error, status, slug = ERRORS[index]
    with caplog.at_level(logging.ERROR, logger="sedimem.api"):
        response = await raising.get(f"/boom/{index}")
    problem = assert_problem(response, status)
    assert problem["type"] == f"urn:sedimem:problem:{slug}"
    if status >= 500:
        # the inside (hosts, SQL) is logged, never sent
        assert "secret-host" not in response.text
        assert "a bug" not in response.text
        assert caplog.records
    else:
        assert problem["detail"] == str(error)
    if isinstance(error, ValidationError):
        assert problem["field"] == error.field
        assert problem["allowed"] == error.allowed
    if isinstance(error, StoreUnavailable | ModelError):
        asked = error.retry_after if isinstance(error, ModelError) else None
        assert response.headers["retry-after"] == ("3" if asked == 2.5 else "1")
    else:
        assert "retry-after" not in response.headers


async def test_http_errors_are_problems(client: httpx.AsyncClient) -> None:
    missing = assert_problem(await client.get("/no/such/route"), 404)
    assert missing["type"] == "about:blank"
    assert missing["title"] == "Not Found"
    wrong = await client.put("/healthz")
    assert_problem(wrong, 405)
    assert wrong.headers["allow"] == "GET, OPTIONS"


def test_unknown_statuses_have_a_plain_title() -> None:
    assert phrase(404) == "Not Found"
    assert phrase(599) == "Error"
