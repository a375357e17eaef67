"""Bodies over ``max_body_bytes`` get 413, whether they declare their length or stream."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from sedimem.api import create_app
from sedimem.api.limits import BodyLimit, BodyTooLarge
from sedimem.config import ServerSettings, Settings
from sedimem.memory import Memory
from tests.api.conftest import assert_problem

LIMIT = 4096


@pytest.fixture
def app(memory: Memory) -> FastAPI:
    return create_app(memory, Settings(server=ServerSettings(max_body_bytes=LIMIT)))


async def _chunks(total: int, size: int = 1000) -> AsyncIterator[bytes]:
    sent = 0
    while sent < total:
        chunk = min(size, total - sent)
        sent += chunk
        yield b" " * chunk


async def test_a_declared_length_over_the_limit(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    big = {"description": "x" * LIMIT}
    problem = assert_problem(await client.post("/v1/episodes", json=big, headers=auth), 413)
    assert problem["allowed"] == f"at most {LIMIT} bytes"
    assert problem["type"] == "urn:sedimem:problem:too-large"


async def test_a_streamed_body_over_the_limit(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    headers = {**auth, "content-type": "application/json"}
    response = await client.post("/v1/episodes", content=_chunks(LIMIT + 1), headers=headers)
    assert "content-length" not in response.request.headers
    assert_problem(response, 413)
    # the import route reads the stream itself; the limit holds there too
    imported = await client.post("/v1/import", content=_chunks(3 * LIMIT), headers=auth)
    assert_problem(imported, 413)


async def test_bodies_within_the_limit_pass(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    ok = await client.post("/v1/episodes", json={"description": "x" * 100}, headers=auth)
    assert ok.status_code == 201
    headers = {**auth, "content-type": "application/json"}
    streamed = await client.post("/v1/recall", content=_chunks(LIMIT), headers=headers)
    assert_problem(streamed, 422)  # read in full (all spaces: not JSON), not refused


async def test_the_default_limit_is_the_settings(memory: Memory, auth: dict[str, str]) -> None:
    app = create_app(memory, Settings())
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        body = b" " * (2 * 1024 * 1024 + 1)
        response = await client.post("/v1/import", content=body, headers=auth)
    assert_problem(response, 413)


async def test_too_late_for_a_status() -> None:
    """A body passing the limit after the answer started cannot be refused: it raises."""

    async def answers_then_reads(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        while (await receive()).get("more_body"):
            pass

    transport = httpx.ASGITransport(BodyLimit(answers_then_reads, max_bytes=10))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        with pytest.raises(BodyTooLarge):
            await client.post("/", content=_chunks(100, size=5))


async def test_a_malformed_length_is_left_to_the_server(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    """h11 and friends refuse it before the app is called; in-process, the body is counted."""
    request = client.build_request("POST", "/v1/recall", json={"query": "q"}, headers=auth)
    request.headers["content-length"] = "many"
    response = await client.send(request)
    assert response.status_code == 200


async def test_an_app_without_handlers_still_gets_the_413() -> None:
    """The limit does not rely on the app turning ``BodyTooLarge`` into a response."""

    async def reads_everything(scope: Scope, receive: Receive, send: Send) -> None:
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    transport = httpx.ASGITransport(BodyLimit(reads_everything, max_bytes=10))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.post("/", content=_chunks(100, size=5))
        assert_problem(response, 413)
        assert (await client.post("/", content=b"tiny")).status_code == 200
