"""Written as tenant A, read as tenant B: nothing, on SQLite and on Redis + PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from tests.api.conftest import assert_problem, bearer

S = "/v1/sessions/shared-name"


@pytest.fixture
async def memory(memory_urls: tuple[str, str], settings: Settings) -> AsyncIterator[Memory]:
    working, store = memory_urls
    async with await Memory.open(
        working=working, store=store, embedder=HashEmbedder(64), settings=settings
    ) as opened:
        yield opened


async def _write_as_a(client: httpx.AsyncClient, a: dict[str, str]) -> dict[str, str]:
    await client.put(f"{S}/kv/secret", json={"value": "A's"}, headers=a)
    await client.put(f"{S}/task", json={"task_id": "A-task"}, headers=a)
    await client.post(f"{S}/scratchpad", json={"text": "A thinks"}, headers=a)
    checkpoint = (await client.post(f"{S}/checkpoints", headers=a)).json()["id"]
    episode = await client.post(
        "/v1/episodes",
        json={"description": "A deployed the payment service", "session": "shared-name"},
        headers=a,
    )
    located = {"subject": "payments", "predicate": "located_in", "object": "Oslo"}
    fact = await client.post(
        "/v1/facts", json={"statement": "A's payment service runs in Oslo", **located}, headers=a
    )
    steps = {"trigger": "deploy the payment service", "steps": ["build", "ship"]}
    procedure = await client.post(
        "/v1/procedures", json={"name": "deploy payments", **steps}, headers=a
    )
    await client.put("/v1/blocks/persona", json={"content": "A's persona"}, headers=a)
    return {
        "checkpoint": checkpoint,
        "episode": episode.json()["id"],
        "fact": fact.json()["fact"]["id"],
        "procedure": procedure.json()["id"],
    }


async def test_tenant_b_sees_nothing_of_tenant_a(client: httpx.AsyncClient, memory: Memory) -> None:
    a = await bearer(memory, "tenant-a")
    b = await bearer(memory, "tenant-b")
    ids = await _write_as_a(client, a)

    # by id: exactly as if it did not exist
    for path in (
        f"/v1/episodes/{ids['episode']}",
        f"/v1/facts/{ids['fact']}",
        f"/v1/procedures/{ids['procedure']}",
        f"{S}/kv/secret",
        f"{S}/task",
    ):
        assert_problem(await client.get(path, headers=b), 404)
    for call in (
        client.post(
            f"/v1/procedures/{ids['procedure']}/outcome", json={"success": False}, headers=b
        ),
        client.post(f"{S}/checkpoints/{ids['checkpoint']}/restore", headers=b),
        client.post(
            f"{S}/checkpoints/{ids['checkpoint']}/fork", json={"new_session": "x"}, headers=b
        ),
        client.delete(f"{S}/checkpoints/{ids['checkpoint']}", headers=b),
        client.delete(f"{S}/kv/secret", headers=b),
        client.delete("/v1/blocks/persona", headers=b),
        client.post(f"{S}/resume", headers=b),
    ):
        assert_problem(await call, 404)

    # by listing and search: empty
    empty_lists = {
        f"{S}/kv": {"items": {}},
        f"{S}/scratchpad": {"entries": []},
        f"{S}/checkpoints": {"items": []},
        "/v1/episodes": {"items": [], "next_cursor": None},
        "/v1/blocks": {"items": []},
    }
    for path, empty in empty_lists.items():
        assert (await client.get(path, headers=b)).json() == empty, path
    for path in ("/v1/facts", "/v1/facts/history"):
        found = await client.get(
            path, params={"subject": "payments", "predicate": "located_in"}, headers=b
        )
        assert found.json() == {"items": []}
    recall = await client.post(
        "/v1/recall", json={"query": "deploy payment service Oslo"}, headers=b
    )
    assert recall.json() == {"episodes": [], "facts": [], "procedures": []}
    matched = await client.post(
        "/v1/procedures/match", json={"task_description": "deploy the payment service"}, headers=b
    )
    assert matched.json() == {"hits": []}
    context = await client.post(
        "/v1/context",
        json={"query": "deploy payments", "budget_tokens": 500, "session": "shared-name"},
        headers=b,
    )
    assert context.json()["report"]["included"] == []
    assert "payment" not in (context.json()["text"] or "")
    stats = (await client.get("/v1/stats", headers=b)).json()
    assert (stats["episodes"], stats["facts"], stats["procedures"]) == (0, 0, 0)
    assert (await client.get("/v1/export", headers=b)).text == ""
    assert (await client.get(f"{S}/stats", headers=b)).json()["keys"] == 0
    reflect = await client.post("/v1/reflect", json={}, headers=b)
    assert reflect.json()["episodes_analyzed"] == 0

    # B's erasure cannot reach A; A still has everything
    erased = await client.post("/v1/forget", json={"session": "shared-name"}, headers=b)
    assert erased.json()["episodes"] == 0
    assert (await client.get(f"/v1/episodes/{ids['episode']}", headers=a)).status_code == 200
    assert (await client.get(f"{S}/kv/secret", headers=a)).json()["value"] == "A's"
    mine = await client.post("/v1/recall", json={"query": "deploy payment service"}, headers=a)
    assert mine.json()["episodes"]
