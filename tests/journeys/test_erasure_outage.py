"""Erasing by session during a Redis outage, as an operator would over REST and as an agent
host would over MCP: a real ``sedimem serve`` on a redis-server that is killed and started
again.

The sessions of one name are found through Redis's session list, which the outage hides:
the erasure is refused whole (REST: 503; MCP: a tool error saying the store is unavailable;
nothing erased either way) and succeeds once Redis is back.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from sedimem.testing import SedimemServer
from sedimem.testing.redis_server import RedisServer

pytestmark = [pytest.mark.slow, pytest.mark.redis]

ADMIN = "admin-secret-for-the-outage-erasure-test"


@contextmanager
def _served(redis: RedisServer) -> Iterator[tuple[SedimemServer, str, httpx.Client]]:
    """A server on ``redis`` with a key of tenant acme, whose user ana has a working
    session s1 (one key) and an episode filed from it; the key's REST client."""
    env = {
        "SEDIMEM_ADMIN_KEY": ADMIN,
        "SEDIMEM_EMBEDDER": "hash",
        "SEDIMEM_WORKING_URL": redis.url,
        "SEDIMEM_WORKING__PROBE_INTERVAL_SECONDS": "0.2",
    }
    with SedimemServer(env=env) as server:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60
        ) as a:
            secret = a.post("/v1/keys", json={"tenant": "acme"}).json()["secret"]
        headers = {"Authorization": f"Bearer {secret}"}
        with httpx.Client(base_url=server.url, headers=headers, timeout=60) as client:
            put = client.put(
                "/v1/sessions/s1/kv/note", json={"value": "ana's secret", "user": "ana"}
            )
            assert put.status_code == 204, put.text
            episode = {"description": "Booked the Oslo train", "user": "ana", "session": "s1"}
            assert client.post("/v1/episodes", json=episode).status_code == 201
            yield server, secret, client


def _forget_once_redis_is_back(client: httpx.Client) -> httpx.Response:
    deadline = time.monotonic() + 60
    while True:  # the server's probe finds Redis again within its interval
        answer = client.post("/v1/forget", json={"session": "s1"})
        if answer.status_code != 503 or time.monotonic() > deadline:
            return answer
        time.sleep(0.2)


def test_erasing_a_session_waits_for_redis_and_then_leaves_nothing(
    dedicated_redis: RedisServer,
) -> None:
    with _served(dedicated_redis) as (_, _, client):
        dedicated_redis.kill()
        other = client.put("/v1/sessions/s2/kv/x", json={"value": 1, "user": "ana"})
        assert other.status_code == 204  # served by the fallback
        refused = client.post("/v1/forget", json={"session": "s1"})
        assert refused.status_code == 503, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["type"].endswith("store-unavailable")
        kept = client.get("/v1/episodes", params={"user": "ana"}).json()["items"]
        assert [e["description"] for e in kept] == ["Booked the Oslo train"]

        dedicated_redis.start()
        receipt = _forget_once_redis_is_back(client)
        assert receipt.status_code == 200, receipt.text
        assert (receipt.json()["episodes"], receipt.json()["working_sessions"]) == (1, 1)
        gone = client.get("/v1/sessions/s1/kv/note", params={"user": "ana"})
        assert gone.status_code == 404
        assert client.get("/v1/episodes", params={"user": "ana"}).json()["items"] == []


async def _erase_over_mcp(url: str, secret: str, **arguments: Any) -> tuple[bool, str]:
    """One ``erase_memories`` call in a fresh MCP session: (is_error, its text)."""
    headers = {"Authorization": f"Bearer {secret}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url + "/mcp", http_client=http)) as client,
    ):
        result = await client.call_tool("erase_memories", {**arguments, "format": "json"})
    block = result.content[0] if result.content else None
    return result.is_error, block.text if isinstance(block, TextContent) else ""


def test_erasing_over_mcp_during_an_outage_is_refused_whole_then_done(
    dedicated_redis: RedisServer,
) -> None:
    with _served(dedicated_redis) as (server, secret, client):
        # Nothing has used Redis since it died: the erasure itself meets the outage
        # (listing the sessions, before anything is erased).
        dedicated_redis.kill()
        failed, text = asyncio.run(_erase_over_mcp(server.url, secret, session="s1"))
        assert failed, text
        assert "unavailable" in text.lower(), text  # says why, in words a host can show
        kept = client.get("/v1/episodes", params={"user": "ana"}).json()["items"]
        assert [e["description"] for e in kept] == ["Booked the Oslo train"]

        dedicated_redis.start()
        deadline = time.monotonic() + 60
        while True:  # the server's probe finds Redis again within its interval
            failed, text = asyncio.run(_erase_over_mcp(server.url, secret, session="s1"))
            if not failed or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert not failed, text
        erased = json.loads(text)["erased"]
        assert (erased["episodes"], erased["working_sessions"]) == (1, 1)
        gone = client.get("/v1/sessions/s1/kv/note", params={"user": "ana"})
        assert gone.status_code == 404
        assert client.get("/v1/episodes", params={"user": "ana"}).json()["items"] == []
