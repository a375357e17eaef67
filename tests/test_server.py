"""End to end: ``sedimem serve`` as a real process on a loopback port, driven over HTTP.

Two tenants with their own keys; everything tenant A writes is invisible to tenant B; A's
recall finds its episode; export -> import into a fresh server -> export is identical;
``forget`` leaves nothing of A's user in any read.
"""

import asyncio
import contextlib
import http.client
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from sedimem.config import ServerSettings, Settings
from sedimem.consolidation.runlog import RUN_KIND
from sedimem.errors import ConfigurationError, ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.server import Announcement, is_loopback, local_key, serve
from sedimem.storage.longterm.base import RecordFilter
from sedimem.testing import SedimemServer

ADMIN = "admin-secret-for-the-end-to-end-test"


@pytest.fixture(scope="module")
def server() -> Iterator[SedimemServer]:
    with SedimemServer(env={"SEDIMEM_ADMIN_KEY": ADMIN}) as running:
        yield running


def _client(server: SedimemServer, key: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=server.url, headers=headers, timeout=30)


def _new_key(server: SedimemServer, tenant: str) -> str:
    with _client(server, ADMIN) as admin:
        response = admin.post("/v1/keys", json={"tenant": tenant})
    assert response.status_code == 201, response.text
    secret: str = response.json()["secret"]
    return secret


def test_first_start_prints_a_key_and_the_urls(server: SedimemServer) -> None:
    key = server.printed_key
    assert key is not None
    assert f"{server.url}/docs" in server.output
    assert f"{server.url}/mcp" in server.output
    assert f"curl -s -X POST {server.url}/v1/recall" in server.output
    with _client(server) as anonymous:
        assert anonymous.get("/healthz").status_code == 200
        assert anonymous.get("/openapi.json").json()["openapi"].startswith("3.")
        refused = anonymous.get("/v1/stats")
        assert refused.status_code == 401
        assert refused.headers["content-type"].startswith("application/problem+json")
    with _client(server, key) as client:
        stats = client.get("/v1/stats")
        assert stats.status_code == 200, stats.text
        assert stats.json()["tenant"] == "default"
        ready = client.get("/readyz")
        assert ready.status_code == 200


def _write_as(client: httpx.Client) -> dict[str, Any]:
    put = client.put("/v1/sessions/s1/kv/plan", json={"value": {"to": "Oslo"}, "user": "ana"})
    assert put.status_code == 204, put.text
    episode = client.post(
        "/v1/episodes",
        json={"description": "Booked the night train to Oslo for Ana", "user": "ana"},
    )
    assert episode.status_code == 201, episode.text
    fact = client.post(
        "/v1/facts",
        json={
            "statement": "Ana prefers trains",
            "subject": "Ana",
            "predicate": "prefers",
            "object": "trains",
            "user": "ana",
        },
    )
    assert fact.status_code == 201, fact.text
    return {"episode": episode.json()["id"], "fact": fact.json()["fact"]["id"]}


def _reads(client: httpx.Client, ids: dict[str, Any]) -> dict[str, Any]:
    """What every read route says about the ids and the user's data."""
    recall = client.post("/v1/recall", json={"query": "night train to Oslo", "user": "ana"})
    assert recall.status_code == 200, recall.text
    hits = recall.json()
    return {
        "kv": client.get("/v1/sessions/s1/kv/plan", params={"user": "ana"}).status_code,
        "all_kv": client.get("/v1/sessions/s1/kv", params={"user": "ana"}).json()["items"],
        "episode": client.get(f"/v1/episodes/{ids['episode']}").status_code,
        "fact": client.get(f"/v1/facts/{ids['fact']}").status_code,
        "episodes": client.get("/v1/episodes", params={"user": "ana"}).json()["items"],
        "facts": client.get(
            "/v1/facts", params={"subject": "Ana", "predicate": "prefers", "user": "ana"}
        ).json()["items"],
        "recalled": [h["record"]["id"] for tier in ("episodes", "facts") for h in hits[tier]],
        "export": client.get("/v1/export", params={"user": "ana"}).text,
    }


def test_two_tenants_export_import_and_forget(server: SedimemServer) -> None:
    key_a, key_b = _new_key(server, "acme"), _new_key(server, "globex")
    with _client(server, key_a) as a, _client(server, key_b) as b:
        ids = _write_as(a)

        seen_by_a = _reads(a, ids)
        assert seen_by_a["kv"] == 200
        assert seen_by_a["episode"] == seen_by_a["fact"] == 200
        assert ids["episode"] in seen_by_a["recalled"]
        assert ids["fact"] in seen_by_a["recalled"]

        seen_by_b = _reads(b, ids)
        assert seen_by_b["kv"] == seen_by_b["episode"] == seen_by_b["fact"] == 404
        assert seen_by_b["all_kv"] == {}
        assert seen_by_b["episodes"] == seen_by_b["facts"] == seen_by_b["recalled"] == []
        assert seen_by_b["export"] == ""

        exported = seen_by_a["export"]
        assert len(exported.splitlines()) == 2  # the episode and the fact

        again = _export_of_a_fresh_import(exported)
        assert again == exported

        receipt = a.post("/v1/forget", json={"user": "ana"})
        assert receipt.status_code == 200, receipt.text
        assert receipt.json()["episodes"] == 1
        assert receipt.json()["facts"] == 1
        assert receipt.json()["working_sessions"] == 1
        after = _reads(a, ids)
        assert after["kv"] == after["episode"] == after["fact"] == 404
        assert after["all_kv"] == {}
        assert after["episodes"] == after["facts"] == after["recalled"] == []
        assert after["export"] == ""


def _export_of_a_fresh_import(exported: str) -> str:
    """Import ``exported`` into a new server with an empty store, and export it again."""
    with SedimemServer(env={"SEDIMEM_ADMIN_KEY": ADMIN}) as fresh:
        key = _new_key(fresh, "acme")
        with _client(fresh, key) as copy:
            imported = copy.post(
                "/v1/import", content=exported, headers={"Content-Type": "application/x-ndjson"}
            )
            assert imported.status_code == 200, imported.text
            assert imported.json()["episodes"] == imported.json()["facts"] == 1
            return copy.get("/v1/export", params={"user": "ana"}).text


def test_strict_input_and_problems_over_real_http(server: SedimemServer) -> None:
    """What probes of a running server found loose, answered as the schema says."""
    with _client(server, _new_key(server, "strict")) as client:
        for path in ("/nope%0A", "/v1/%0A", "/x%0D%0Ay", "/mcp%0A"):
            missing = client.get(path)
            assert missing.status_code == 404, path
            assert missing.headers["content-type"] == "application/problem+json", path
        options = client.options("/v1/episodes")
        assert (options.status_code, options.headers["allow"]) == (204, "GET, OPTIONS, POST")
        refused = client.delete("/v1/episodes")
        assert (refused.status_code, refused.headers["allow"]) == (405, "GET, OPTIONS, POST")
        kv = "/v1/sessions/s/kv/k"
        for ttl in (True, "5"):
            bad = client.put(kv, json={"value": 1, "ttl_seconds": ttl})
            assert (bad.status_code, bad.json()["field"]) == (422, "ttl_seconds")
        nul = client.post("/v1/episodes", json={"description": "a\x00b"})
        assert (nul.status_code, nul.json()["field"]) == (422, "description")


def test_admin_routes_need_the_admin_key(server: SedimemServer) -> None:
    tenant_key = _new_key(server, "acme")
    with _client(server, tenant_key) as tenant:
        assert tenant.post("/v1/keys", json={"tenant": "acme"}).status_code in (401, 403)
    with _client(server, "wrong-admin-key") as wrong:
        assert wrong.post("/v1/keys", json={"tenant": "acme"}).status_code in (401, 403)


async def test_mcp_over_streamable_http_on_the_same_port(server: SedimemServer) -> None:
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    key = _new_key(server, "mcp-tenant")
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as http,
        Client(streamable_http_client(server.url + "/mcp", http_client=http)) as client,
    ):
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"remember", "recall", "assemble_context"} <= tools
        stored = await client.call_tool(
            "remember",
            {
                "kind": "episode",
                "text": "Rotated the gateway TLS certificate",
                "format": "json",
            },
        )
        assert not stored.is_error
        found = await client.call_tool(
            "recall", {"query": "TLS certificate rotation", "format": "json"}
        )
        assert not found.is_error
        assert stored.structured_content is not None
        assert found.structured_content is not None
        assert [h["id"] for h in found.structured_content["episodes"]] == [
            stored.structured_content["id"]
        ]
        packed = await client.call_tool(
            "assemble_context", {"query": "certificate", "budget_tokens": 100, "format": "json"}
        )
        assert packed.structured_content is not None
        assert "Rotated the gateway TLS certificate" in packed.structured_content["text"]
    with _client(server) as anonymous:  # no key, no MCP
        assert anonymous.post("/mcp", json={}).status_code == 401


async def test_corrections_and_deletes_by_id_against_the_server(server: SedimemServer) -> None:
    key = _new_key(server, "trips")
    seat = {"subject": "Ana", "predicate": "prefers_seat", "user": "ana"}
    # declared by another process on the server's store: the server follows it (durable)
    async with await Memory.open(f"sqlite:///{server.home / 'sedimem.db'}") as elsewhere:
        declared = await elsewhere.facts.declare(["prefers_seat"], scope=Scope(tenant="trips"))
        assert "prefers_seat" in declared.single_valued
    with _client(server, key) as client:
        listed = client.get("/v1/facts/predicates").json()
        assert listed["declared"] == {"prefers_seat": "one"}
        window = client.post(
            "/v1/facts",
            json={"statement": "Ana prefers the window seat", "object": "window",
                  "valid_from": "2025-01-01T00:00:00Z", **seat},
        )  # fmt: skip
        aisle = client.post(
            "/v1/facts",
            json={"statement": "Ana prefers the aisle seat", "object": "aisle",
                  "valid_from": "2026-01-01T00:00:00Z", **seat},
        )  # fmt: skip
        assert aisle.status_code == 201, aisle.text
        assert aisle.json()["action"] == "superseded"
        assert aisle.json()["superseded"] == [window.json()["fact"]["id"]]
        context = client.post(
            "/v1/context", json={"query": "Ana seat preference", "budget_tokens": 500,
                                 "user": "ana"},
        ).json()["text"]  # fmt: skip
        assert "aisle" in context
        assert "window" not in context
        history = client.get("/v1/facts/history", params=seat).json()["items"]
        assert [(f["object"], f["valid_to"]) for f in history] == [
            ("window", "2026-01-01T00:00:00Z"),
            ("aisle", None),
        ]
        stale = client.patch(f"/v1/facts/{window.json()['fact']['id']}", json={"confidence": 0.5})
        assert stale.status_code == 409
        assert aisle.json()["fact"]["id"] in stale.json()["detail"]
        episode = client.post(
            "/v1/episodes", json={"description": "Booked the ferry to Bergen", "user": "ana"}
        ).json()["id"]
        with _client(server, _new_key(server, "intruder")) as intruder:
            assert intruder.delete(f"/v1/episodes/{episode}").status_code == 404
        edited = client.patch(
            f"/v1/episodes/{episode}", json={"description": "Booked the night train to Oslo"}
        )
        assert edited.status_code == 200, edited.text
        recall = {"query": "night train Oslo", "user": "ana", "tiers": ["episodes"]}
        found = client.post("/v1/recall", json=recall).json()["episodes"]
        assert [h["record"]["id"] for h in found] == [episode]
        assert client.delete(f"/v1/episodes/{episode}").status_code == 204
        assert client.post("/v1/recall", json=recall).json()["episodes"] == []
        assert client.get(f"/v1/episodes/{episode}").status_code == 404


# -- the host in-process (what the process above runs) ------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False), ("x.y", False)],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


async def _serving(settings: Settings, host: str = "127.0.0.1") -> tuple[Announcement, Any]:
    announced: asyncio.Future[Announcement] = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(settings, announce=announced.set_result, host=host, port=0))
    done, _ = await asyncio.wait({announced, task}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        await task  # it failed before announcing: raise its error
    announcement = announced.result()
    # generous timeouts: the server shares this test's event loop, and a loaded machine
    # running under coverage has been seen to take seconds over its first requests
    async with (
        asyncio.timeout(60),
        httpx.AsyncClient(base_url=announcement.base_url, timeout=60) as client,
    ):
        while True:
            with contextlib.suppress(httpx.TransportError):
                if (await client.get("/healthz")).status_code == 200:
                    break
            await asyncio.sleep(0.01)
    return announcement, task


async def test_serve_creates_one_first_key_and_runs_consolidation(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, server=ServerSettings(consolidation_interval_seconds=0.05))
    first, task = await _serving(settings)
    assert first.first_key is not None
    assert first.keys == 0
    assert first.mcp_url == first.base_url + "/mcp"
    secret = first.first_key.secret
    async with httpx.AsyncClient(
        base_url=first.base_url, headers={"Authorization": f"Bearer {secret}"}, timeout=60
    ) as client:
        assert (await client.get("/v1/stats")).json()["tenant"] == "default"
        await _until_consolidated(client)
    first.stop()
    await task

    second, task = await _serving(settings)  # a key exists now: none is created
    assert second.first_key is None
    assert second.keys == 1
    second.stop()
    await task
    async with await Memory.open(settings=settings) as memory:
        runs = await memory.longterm_store.count("default", RecordFilter(kind=RUN_KIND))
    assert runs > 0


async def _until_consolidated(client: httpx.AsyncClient) -> None:
    """Until the server's consolidation worker has finished a run (polled: a loaded
    machine may take longer than a few intervals)."""
    async with asyncio.timeout(60):
        while True:
            runs = await client.get("/v1/consolidation/runs", params={"limit": 1})
            if runs.json()["items"]:
                return
            await asyncio.sleep(0.05)


async def test_serve_on_a_busy_port_fails_with_our_error(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigurationError, match=f"cannot listen on 127.0.0.1:{port}"):
            await serve(Settings(home=tmp_path), announce=print, host="127.0.0.1", port=port)


async def test_no_key_is_created_on_a_public_address(tmp_path: Path) -> None:
    announced, task = await _serving(Settings(home=tmp_path), host="0.0.0.0")
    assert announced.first_key is None
    assert announced.keys == 0
    announced.stop()
    await task


def test_local_key_acts_for_the_tenant() -> None:
    key = local_key("acme")
    assert key.scope == Scope(tenant="acme")
    with pytest.raises(ValidationError):
        local_key("")


async def test_accepted_connections_send_without_nagle_delay() -> None:
    """A response's headers and body are separate writes: with Nagle on, the body waits for
    the client's (delayed) ACK of the headers, ~40 ms per response. The listening socket
    must say it is TCP so that asyncio sets TCP_NODELAY on every connection it accepts."""
    from sedimem.server import _bind

    sock = _bind("127.0.0.1", 0)
    accepted: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            conn = transport.get_extra_info("socket")
            accepted.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            transport.close()

    server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
    async with server:
        _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
        assert await asyncio.wait_for(accepted, 5) != 0
        writer.close()


def test_an_idle_connection_outlives_the_clients_own_idle_limit(server: SedimemServer) -> None:
    """httpx drops a connection idle for 5 s; a server that closed its end at the same 5 s
    would race a client sending on it, and that request fails with a reset. The server's
    default keeps an idle connection open well past it."""
    assert ServerSettings().keep_alive_seconds > 5 == httpx.Limits().keepalive_expiry
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request("GET", "/healthz")
        assert conn.getresponse().read()
        first = conn.sock
        time.sleep(6)  # past httpx's 5 s and uvicorn's own default
        # http.client reconnects only when it knows the socket is gone; a socket the server
        # closed meanwhile fails this request (RemoteDisconnected)
        conn.request("GET", "/healthz")
        response = conn.getresponse()
        assert response.status == 200
        assert response.read()
        assert conn.sock is first
    finally:
        conn.close()
