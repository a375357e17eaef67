"""MCP over streamable HTTP: a real uvicorn server on loopback and the SDK's HTTP client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
import uvicorn
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from sedimem.config import ServerSettings, Settings
from sedimem.embed import HashEmbedder
from sedimem.errors import StoreUnavailable
from sedimem.mcp import TOOL_NAMES, McpHttpApp, create_http_app
from sedimem.memory import Memory
from tests.mcp.conftest import ACCEPT, INITIALIZE, data_of, error_of

JSON = {"format": "json"}


def host_app(mcp: McpHttpApp) -> Starlette:
    """As ``sedimem serve`` mounts it: ``/mcp`` and ``/mcp/...`` to the MCP app unchanged,
    the rest to the REST app; the host's lifespan runs the MCP session manager."""

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with mcp.lifespan():
            yield

    async def health(_: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    rest = Starlette(routes=[Route("/healthz", health)])
    return Starlette(
        routes=[Route("/mcp", mcp.app), Route("/mcp/{rest:path}", mcp.app), Mount("/", rest)],
        lifespan=lifespan,
    )


@asynccontextmanager
async def serving(memory: Memory, *, stateless: bool = True) -> AsyncIterator[str]:
    """Serve on a free loopback port; yields the base URL."""
    config = uvicorn.Config(
        host_app(create_http_app(memory, stateless=stateless)),
        host="127.0.0.1",
        port=0,
        lifespan="on",
        log_level="warning",
        ws="none",
        http="h11",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                await task  # startup failed: raise its error
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@asynccontextmanager
async def mcp_client(url: str, secret: str, **options: Any) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {secret}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url + "/mcp", http_client=http), **options) as c,
    ):
        yield c


@pytest.mark.parametrize(
    ("stateless", "mode"),
    [(True, "auto"), (True, "legacy"), (False, "legacy")],
    ids=["stateless-2026", "stateless-handshake", "stateful-handshake"],
)
async def test_tools_over_http_with_a_bearer_key(
    memory: Memory, stateless: bool, mode: str
) -> None:
    issued = await memory.keys.create("acme", label="agent")
    async with (
        serving(memory, stateless=stateless) as url,
        mcp_client(url, issued.secret, mode=mode) as client,
    ):
        assert {t.name for t in (await client.list_tools()).tools} == set(TOOL_NAMES)
        stored = data_of(
            await client.call_tool(
                "remember",
                {
                    "kind": "episode",
                    "text": "Renewed the TLS certificate of the API gateway",
                    "lessons_learned": ["automate renewal"],
                    "importance": 0.7,
                    **JSON,
                },
            )
        )
        assert stored["record"]["scope"]["tenant"] == "acme"
        found = data_of(await client.call_tool("recall", {"query": "TLS certificate", **JSON}))
        assert [h["id"] for h in found["episodes"]] == [stored["id"]]
        packed = data_of(
            await client.call_tool(
                "assemble_context",
                {"query": "TLS certificate renewal", "budget_tokens": 200, **JSON},
            )
        )
        assert "automate renewal" in packed["text"]
        bad = error_of(
            await client.call_tool("remember", {"kind": "episode", "text": "x", "importance": 2})
        )
        assert "importance: Input should be less than or equal to 1" in bad


async def test_tenants_are_isolated_over_http(memory: Memory) -> None:
    a = await memory.keys.create("tenant-a")
    b = await memory.keys.create("tenant-b")
    async with serving(memory) as url:
        async with mcp_client(url, a.secret) as client_a:
            data_of(
                await client_a.call_tool(
                    "remember",
                    {
                        "kind": "fact",
                        "text": "The vault code is 4711",
                        "subject": "vault",
                        "predicate": "code",
                        "object": "4711",
                        **JSON,
                    },
                )
            )
            data_of(
                await client_a.call_tool(
                    "remember", {"kind": "episode", "text": "Opened the vault", **JSON}
                )
            )
            mine = data_of(await client_a.call_tool("recall", {"query": "vault code", **JSON}))
            assert len(mine["facts"]) == 1
        async with mcp_client(url, b.secret) as client_b:
            theirs = data_of(await client_b.call_tool("recall", {"query": "vault code", **JSON}))
            assert theirs["episodes"] == []
            assert theirs["facts"] == []
            assert theirs["procedures"] == []
            stats = data_of(await client_b.call_tool("inspect_memory", JSON))
            assert stats["longterm"]["episodes"] == 0
            # a tenant argument is not a tool argument: ignored, the key's tenant applies
            spoofed = data_of(
                await client_b.call_tool("recall", {"query": "vault", "tenant": "tenant-a", **JSON})
            )
            assert spoofed["facts"] == []
            assert spoofed["episodes"] == []


async def test_requests_without_a_valid_key_get_401_problem_json(memory: Memory) -> None:
    issued = await memory.keys.create("acme")
    revoked = await memory.keys.create("acme")
    await memory.keys.revoke(revoked.key.id)
    async with serving(memory) as url, httpx2.AsyncClient(timeout=30) as http:
        for headers, detail in (
            ({}, "an API key is required"),
            ({"Authorization": "Basic abc"}, "an API key is required"),
            ({"Authorization": "Bearer"}, "an API key is required"),
            ({"Authorization": "Bearer sdm_wrong"}, "invalid API key"),
            ({"Authorization": f"Bearer {revoked.secret}"}, "revoked"),
        ):
            response = await http.post(url + "/mcp", json=INITIALIZE, headers={**ACCEPT, **headers})
            assert response.status_code == 401, headers
            assert response.headers["content-type"] == "application/problem+json"
            assert response.headers["www-authenticate"].startswith('Bearer realm="sedimem"')
            body = response.json()
            assert body["status"] == 401
            assert body["title"] == "Unauthenticated"
            assert body["type"] == "urn:sedimem:problem:unauthenticated"
            assert detail in body["detail"]
        ok = await http.post(
            url + "/mcp/",
            json=INITIALIZE,
            headers={**ACCEPT, "Authorization": f"Bearer {issued.secret}"},
        )
        assert ok.status_code == 200
        elsewhere = await http.get(url + "/mcp/other", headers={"Authorization": "Bearer x"})
        assert elsewhere.status_code == 404
        assert elsewhere.json()["detail"] == "the MCP endpoint is /mcp"
        assert (await http.get(url + "/healthz")).text == "ok"
        with pytest.raises(ExceptionGroup) as refused:  # the SDK client fails to connect
            async with mcp_client(url, "sdm_wrong", mode="legacy"):
                pass
        assert refused.group_contains(MCPError)


async def test_a_stateful_session_belongs_to_the_key_that_opened_it(memory: Memory) -> None:
    a = await memory.keys.create("acme")
    b = await memory.keys.create("acme")
    async with serving(memory, stateless=False) as url, httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(
            url + "/mcp", json=INITIALIZE, headers={**ACCEPT, "Authorization": f"Bearer {a.secret}"}
        )
        session = opened.headers["mcp-session-id"]
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        for secret, status in ((b.secret, 404), (a.secret, 200)):
            response = await http.post(
                url + "/mcp",
                json=ping,
                headers={
                    **ACCEPT,
                    "Authorization": f"Bearer {secret}",
                    "Mcp-Session-Id": session,
                    "Mcp-Protocol-Version": "2025-06-18",
                },
            )
            assert response.status_code == status
        await memory.keys.revoke(a.key.id)
        response = await http.post(
            url + "/mcp",
            json=ping,
            headers={**ACCEPT, "Authorization": f"Bearer {a.secret}", "Mcp-Session-Id": session},
        )
        assert response.status_code == 401


async def test_a_failing_key_store_answers_503_and_other_scopes_are_ignored(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint = create_http_app(memory)

    async def unavailable(secret: str) -> Any:
        raise StoreUnavailable("postgres at db.internal:5432 refused")

    monkeypatch.setattr(memory.keys, "authenticate", unavailable)
    transport = httpx2.ASGITransport(app=endpoint.app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://test") as http:
        response = await http.post("/mcp", json=INITIALIZE, headers={"Authorization": "Bearer k"})
    assert response.status_code == 503
    assert response.json()["detail"] == "the key store is unavailable; retry later"
    assert "db.internal" not in response.text
    sent: list[object] = []

    async def send(message: object) -> None:
        sent.append(message)

    async def receive() -> dict[str, str]:
        return {"type": "lifespan.startup"}

    await endpoint.app({"type": "lifespan"}, receive, send)
    assert sent == []


async def test_bodies_over_the_servers_limit_get_413(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, server=ServerSettings(max_body_bytes=1024))
    url = f"sqlite:///{tmp_path / 'm.db'}"
    async with await Memory.open(url, settings=settings, embedder=HashEmbedder(16)) as memory:
        issued = await memory.keys.create("acme")
        async with serving(memory) as base, httpx2.AsyncClient(timeout=30) as http:
            auth = {**ACCEPT, "Authorization": f"Bearer {issued.secret}"}
            big = {**INITIALIZE, "padding": "x" * 2048}
            refused = await http.post(base + "/mcp", json=big, headers=auth)
            assert refused.status_code == 413
            # problem JSON, as every other refusal (the SDK's own answer is plain text)
            assert refused.headers["content-type"] == "application/problem+json"
            problem = refused.json()
            assert (problem["status"], problem["field"]) == (413, "body")
            assert problem["allowed"] == "at most 1024 bytes"
            assert (
                await http.post(base + "/mcp", json=INITIALIZE, headers=auth)
            ).status_code == 200
