"""The access log and request ids, in-process: the REST app behind the access log."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from sedimem.api.access_log import LOGGER_NAME, AccessLog, log_to, route_of
from sedimem.api.edge import edge_lifespan
from sedimem.api.request_id import MAX_REQUEST_ID_CHARS, accept_request_id, current_request_id
from sedimem.config import ServerSettings, Settings
from sedimem.memory import Memory
from sedimem.observe import tenant_digest
from sedimem.server import build_app

from .conftest import ADMIN, assert_problem


@pytest.mark.parametrize(
    "sent",
    ["abc", "0f8fad5b-d9cb-469f-a165-70867728950e", "trace:01.02_x", "a" * MAX_REQUEST_ID_CHARS],
)
def test_a_safe_request_id_is_kept(sent: str) -> None:
    assert accept_request_id(sent) == sent


@pytest.mark.parametrize(
    "sent", [None, "", "a" * (MAX_REQUEST_ID_CHARS + 1), "a b", "x\ny", "<script>", "é", "a/b"]
)
def test_anything_else_gets_a_new_request_id(sent: str | None) -> None:
    made = accept_request_id(sent)
    assert made != sent
    assert accept_request_id(made) == made  # what we make, we would accept
    assert made != accept_request_id(sent)  # a new one each time


def test_a_request_matching_no_route_is_never_named_by_its_raw_path() -> None:
    assert route_of({"path": "/openapi.json"}, 200) == "/openapi.json"
    assert route_of({"path": "/v1/no/such/secret-text"}, 404) == "unmatched"


async def _ok(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


def test_a_request_refused_before_routing_is_named_by_the_route_it_matches() -> None:
    inner = Starlette(routes=[Route("/v1/items/{item_id}", _ok, methods=["GET"])])
    host = Starlette(routes=[Route("/mcp", _ok, methods=["POST"]), Mount("/", inner)])

    def scope(method: str, path: str) -> dict[str, Any]:
        return {"type": "http", "method": method, "path": path, "root_path": "", "app": host}

    assert route_of(scope("GET", "/v1/items/secret-name"), 429) == "/v1/items/{item_id}"
    assert route_of(scope("POST", "/mcp"), 429) == "/mcp"
    assert route_of(scope("DELETE", "/v1/items/x"), 405) == "unmatched"
    assert route_of(scope("GET", "/v1/other"), 404) == "unmatched"


@pytest.fixture
async def logged(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(AccessLog(app))
    async with httpx.AsyncClient(transport=transport, base_url="http://sedimem.test") as c:
        yield c


def _lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [json.loads(r.getMessage()) for r in caplog.records if r.name == LOGGER_NAME]


async def test_one_json_line_per_request_naming_the_caller_but_no_secret(
    logged: httpx.AsyncClient, memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    issued = await memory.keys.create("acme")
    auth = {"Authorization": f"Bearer {issued.secret}"}
    body = {"description": "Booked the night train to Oslo", "user": "ana"}
    created = await logged.post(
        "/v1/episodes?user=ana", json=body, headers={**auth, "X-Request-ID": "req-1"}
    )
    assert created.status_code == 422  # ?user= is not a query parameter of this route
    assert created.headers["X-Request-ID"] == "req-1"
    assert created.json()["request_id"] == "req-1"
    created = await logged.post("/v1/episodes", json=body, headers=auth)
    assert created.status_code == 201, created.text
    episode = created.json()["id"]
    fetched = await logged.get(f"/v1/episodes/{episode}", headers=auth)
    assert fetched.status_code == 200

    first, second, third = _lines(caplog)
    assert first["request_id"] == "req-1"
    assert first["status"] == 422
    assert first["key_id"] is None  # refused before the key was looked at
    assert second["request_id"] == created.headers["X-Request-ID"] != "req-1"
    assert third["request_id"] == fetched.headers["X-Request-ID"]
    assert (second["method"], second["route"], second["status"]) == ("POST", "/v1/episodes", 201)
    assert third["route"] == "/v1/episodes/{episode_id}"
    for line in (second, third):
        assert line["tenant"] == tenant_digest("acme")
        assert line["key_id"] == issued.key.id
    for line in (first, second, third):
        assert line["client"] == "127.0.0.1"
        assert line["duration_ms"] >= 0
        assert line["ts"].endswith("+00:00")
    text = caplog.text
    for secret in (issued.secret, "acme", "Oslo", "ana", episode):
        assert secret not in text


async def test_anonymous_and_admin_requests_are_logged_without_a_caller(
    logged: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    refused = await logged.get("/v1/stats", headers={"X-Request-ID": "bad id"})
    assert_problem(refused, 401)
    assert refused.json()["request_id"] == refused.headers["X-Request-ID"] != "bad id"
    made = await logged.post("/v1/keys", json={"tenant": "acme"}, headers=ADMIN)
    assert made.status_code == 201
    missing = await logged.get("/no/such/page")
    assert missing.status_code == 404
    lines = _lines(caplog)
    assert [(x["route"], x["status"], x["key_id"], x["tenant"]) for x in lines] == [
        ("/v1/stats", 401, None, None),
        ("/v1/keys", 201, None, None),
        ("unmatched", 404, None, None),
    ]
    assert made.json()["secret"] not in caplog.text
    assert current_request_id.get() is None  # nothing leaks out of a request


async def test_a_disabled_log_still_gives_request_ids(
    app: FastAPI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    transport = httpx.ASGITransport(AccessLog(app, enabled=False))
    async with httpx.AsyncClient(transport=transport, base_url="http://sedimem.test") as c:
        response = await c.get("/healthz", headers={"X-Request-ID": "probe-7"})
    assert response.headers["X-Request-ID"] == "probe-7"
    assert _lines(caplog) == []


def test_log_to_writes_bare_lines_once_and_restores_the_logger(
    capsys: pytest.CaptureFixture[str],
) -> None:
    logger = logging.getLogger(LOGGER_NAME)
    before = (logger.level, logger.propagate, list(logger.handlers))
    with log_to("stdout"):
        with log_to("stdout"):  # a second app in the process: still one handler
            logger.info('{"a":1}')
        logger.info('{"b":2}')
    with log_to("stderr"):
        logger.info('{"c":3}')
    with log_to("off"):
        assert (logger.level, logger.propagate, list(logger.handlers)) == before
    assert (logger.level, logger.propagate, list(logger.handlers)) == before
    captured = capsys.readouterr()
    assert captured.out == '{"a":1}\n{"b":2}\n'
    assert captured.err == '{"c":3}\n'


async def test_lines_are_written_while_the_app_lives(capsys: pytest.CaptureFixture[str]) -> None:
    logger = logging.getLogger(LOGGER_NAME)
    async with edge_lifespan(ServerSettings()):  # stderr by default
        logger.info('{"during":"lifespan"}')
    async with edge_lifespan(ServerSettings(access_log="off")):
        logger.info('{"off":"nowhere"}')
    assert capsys.readouterr().err == '{"during":"lifespan"}\n'
    assert logger.handlers == []


async def test_a_refused_request_is_attributed_to_its_key_on_the_route_it_asked_for(
    memory: Memory, settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    limited = settings.model_copy(
        update={"server": ServerSettings(rate_limit_per_second=0.001, rate_limit_burst=1)}
    )
    issued = await memory.keys.create("acme")
    auth = {"Authorization": f"Bearer {issued.secret}"}
    transport = httpx.ASGITransport(build_app(memory, limited))
    async with httpx.AsyncClient(transport=transport, base_url="http://sedimem.test") as c:
        assert (await c.get("/v1/stats", headers=auth)).status_code == 200
        refused = await c.get("/v1/episodes/some-id", headers=auth)
        assert refused.status_code == 429
        assert (
            await c.get("/v1/stats", headers={"Authorization": "Bearer other"})
        ).status_code == 401
    lines = _lines(caplog)
    assert [(x["route"], x["status"], x["key_id"]) for x in lines] == [
        ("/v1/stats", 200, issued.key.id),
        ("/v1/episodes/{episode_id}", 429, issued.key.id),
        ("/v1/stats", 401, None),
    ]
    assert lines[1]["tenant"] == tenant_digest("acme")


async def test_credentials_are_remembered_within_a_bound(
    app: FastAPI, memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    one, two = await memory.keys.create("acme"), await memory.keys.create("acme")
    transport = httpx.ASGITransport(AccessLog(app, max_keys=1))
    async with httpx.AsyncClient(transport=transport, base_url="http://sedimem.test") as c:
        for issued in (one, two, one, two):
            auth = {"Authorization": f"Bearer {issued.secret}"}
            if issued is one and caplog.records:  # refused before the key is looked up
                assert (await c.get("/v1/stats?bogus=1", headers=auth)).status_code == 422
            else:
                assert (await c.get("/v1/stats", headers=auth)).status_code == 200
        auth = {"Authorization": f"Bearer {two.secret}"}
        assert (await c.get("/v1/stats?bogus=1", headers=auth)).status_code == 422
    # the second key pushed the first out; the second is still known
    assert [(x["status"], x["key_id"]) for x in _lines(caplog)] == [
        (200, one.key.id),
        (200, two.key.id),
        (422, None),
        (200, two.key.id),
        (422, two.key.id),
    ]


async def test_other_asgi_traffic_passes_through() -> None:
    seen: list[str] = []

    async def inner(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append(scope["type"])

    async def nothing() -> dict[str, Any]:
        return {}

    async def discard(message: dict[str, Any]) -> None:
        return None

    await AccessLog(inner)({"type": "websocket"}, nothing, discard)
    assert seen == ["websocket"]


def test_a_path_the_rest_app_does_not_document_is_not_named(app: FastAPI) -> None:
    host = Starlette(routes=[Mount("/", app)])
    scope = {"type": "http", "method": "GET", "path": "/v1/nothing/here", "app": host}
    assert route_of({**scope, "root_path": ""}, 429) == "unmatched"
    assert route_of({**scope, "path": "/api/v1/stats", "root_path": "/api"}, 429) == "/v1/stats"
