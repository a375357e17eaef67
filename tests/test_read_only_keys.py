"""A read-only key reads, searches and assembles through every interface, and writes nothing:
REST refuses its writes with 403, MCP refuses its writing tools."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from tests.mcp.conftest import client_as, data_of, error_of, local_key

ADMIN = "admin-key-for-read-only-tests"


async def test_rest_reads_but_refuses_every_write(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, admin_key=SecretStr(ADMIN))
    url = f"sqlite:///{tmp_path / 'm.db'}"
    async with await Memory.open(url, embedder=HashEmbedder(64), settings=settings) as memory:
        app = create_app(memory, settings)
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            admin = {"Authorization": f"Bearer {ADMIN}"}
            issued = await client.post(
                "/v1/keys", json={"tenant": "acme", "read_only": True}, headers=admin
            )
            assert issued.status_code == 201
            assert issued.json()["key"]["read_only"] is True
            writer = {"Authorization": f"Bearer {(await memory.keys.create('acme')).secret}"}
            reader = {"Authorization": f"Bearer {issued.json()['secret']}"}
            episode = {"description": "Deployed the billing service", "task_type": "deploy"}
            assert (
                await client.post("/v1/episodes", json=episode, headers=writer)
            ).status_code == 201

            me = await client.get("/v1/keys/self", headers=reader)
            assert me.json()["read_only"] is True
            assert (await client.get("/v1/episodes", headers=reader)).json()["items"]
            recall = await client.post("/v1/recall", json={"query": "billing"}, headers=reader)
            assert recall.status_code == 200
            assert recall.json()["episodes"]
            context = {"query": "billing", "budget_tokens": 100}
            assert (
                await client.post("/v1/context", json=context, headers=reader)
            ).status_code == 200
            match = {"task_description": "deploy"}
            assert (
                await client.post("/v1/procedures/match", json=match, headers=reader)
            ).status_code == 200

            writes = [
                ("POST", "/v1/episodes", episode),
                ("POST", "/v1/facts", {"statement": "x"}),
                ("PUT", "/v1/sessions/s/kv/k", {"value": 1}),
                ("PUT", "/v1/blocks/persona", {"content": "x"}),
                ("POST", "/v1/forget", {"user": "ana"}),
                ("POST", "/v1/consolidate", {}),
            ]
            for method, path, body in writes:
                refused = await client.request(method, path, json=body, headers=reader)
                assert refused.status_code == 403, (path, refused.text)
                assert "read-only" in refused.json()["detail"]
            # nothing was written: one episode still, no block, no working state
            assert len((await client.get("/v1/episodes", headers=writer)).json()["items"]) == 1
            assert (await client.get("/v1/blocks", headers=writer)).json()["items"] == []
            sessions = await client.get("/v1/sessions", headers=writer)
            assert sessions.json()["items"] == []


async def test_mcp_offers_a_read_only_key_the_reading_tools_only(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    async with await Memory.open(working=url, store=url, embedder=HashEmbedder(64)) as memory:
        async with client_as(memory, local_key()) as client:
            body = {"kind": "episode", "text": "Booked the night train to Oslo", "format": "json"}
            data_of(await client.call_tool("remember", body))
        reader = local_key().model_copy(update={"read_only": True})
        async with client_as(memory, reader) as client:
            found = data_of(
                await client.call_tool("recall", {"query": "night train", "format": "json"})
            )
            assert found["episodes"]
            # the reading actions of mixed tools are open to it, the writing ones are not
            assert data_of(await client.call_tool("core_memory", {"format": "json"})) == {
                "blocks": []
            }
            assert (
                data_of(
                    await client.call_tool("working_memory", {"session": "s", "format": "json"})
                )["values"]
                == {}
            )
            refused = error_of(await client.call_tool("remember", body))
            assert "read-only" in refused
            for tool, arguments in (
                ("working_memory", {"session": "s", "action": "set", "key": "k", "value": 1}),
                ("core_memory", {"action": "set", "name": "persona", "text": "x"}),
                ("erase_memories", {"user": "ana"}),
                ("forget_memory", {"id": found["episodes"][0]["id"]}),
                ("inspect_memory", {"report": "predicates", "declare": ["x"]}),
            ):
                assert "read-only" in error_of(await client.call_tool(tool, arguments)), tool
        assert (await memory.stats(local_key().scope)).episodes == 1


#: The routes that take a body (so a POST) but only read.
_READING = {"/v1/recall", "/v1/context", "/v1/procedures/match", "/v1/reflect"}
#: Valid bodies of the routes whose rule the service checks after the body is read.
_BODIES: dict[str, Any] = {
    "/v1/forget": {"user": "ana"},
    "/v1/import": "",
    "/v1/keys": {"tenant": "acme"},
}


async def test_every_route_that_writes_refuses_a_read_only_key(tmp_path: Path) -> None:
    """Whichever way a route writes (a Writer, or a service call taking the key's access),
    a read-only key is refused with the field that says why; the reading POSTs serve it."""
    settings = Settings(home=tmp_path, admin_key=SecretStr(ADMIN))
    url = f"sqlite:///{tmp_path / 'm.db'}"
    async with await Memory.open(url, embedder=HashEmbedder(64), settings=settings) as memory:
        app = create_app(memory, settings)
        reader = (await memory.keys.create("acme", read_only=True)).secret
        headers = {"Authorization": f"Bearer {reader}"}
        transport = httpx.ASGITransport(app)
        seen = 0
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            for template, operations in app.openapi()["paths"].items():
                for method in operations.keys() - {"get", "head"}:
                    path = re.sub(r"\{\w+\}", "x", template)
                    body = _BODIES.get(template, {})
                    if isinstance(body, str):
                        sent = await client.request(method, path, content=body, headers=headers)
                    else:
                        sent = await client.request(method, path, json=body, headers=headers)
                    seen += 1
                    if template in _READING:
                        assert sent.status_code != 403, (method, template, sent.text)
                        continue
                    assert sent.status_code == 403, (method, template, sent.text)
                    assert sent.json()["field"] in ("read_only", "admin"), (method, template)
        assert seen > 30
