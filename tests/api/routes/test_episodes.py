"""Episodes over HTTP: record, read, page through with filters and a capped page size."""

from __future__ import annotations

import httpx

from sedimem.api import create_app
from sedimem.config import ServerSettings, Settings
from sedimem.memory import Memory
from tests.api.conftest import assert_problem, bearer


async def _record(client: httpx.AsyncClient, auth: dict[str, str], **fields: object) -> str:
    response = await client.post("/v1/episodes", json={"description": "d", **fields}, headers=auth)
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


async def test_record_and_get(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    episode_id = await _record(
        client,
        auth,
        description="Deployed the API",
        actions=["build", "test", "deploy"],
        outcome="partial",
        importance=0.9,
        occurred_at="2024-05-01T10:00:00+02:00",
        metadata={"ticket": 7},
        user="ana",
    )
    got = await client.get(f"/v1/episodes/{episode_id}", headers=auth)
    body = got.json()
    assert body["id"] == episode_id
    assert body["scope"]["tenant"] == "acme"
    assert body["scope"]["user"] == "ana"
    assert body["actions"] == ["build", "test", "deploy"]
    assert body["occurred_at"].startswith("2024-05-01T08:00:00")
    assert_problem(await client.get("/v1/episodes/nope", headers=auth), 404)


async def test_bodies_refuse_a_tenant_and_bad_values(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    tenant = await client.post(
        "/v1/episodes", json={"description": "d", "tenant": "other"}, headers=auth
    )
    problem = assert_problem(tenant, 422, "tenant")
    assert "API key" in str(problem["allowed"])
    importance = await client.post(
        "/v1/episodes", json={"description": "d", "importance": 2}, headers=auth
    )
    assert assert_problem(importance, 422, "importance")["allowed"] == "0..1"
    naive = await client.post(
        "/v1/episodes",
        json={"description": "d", "occurred_at": "2024-01-01T00:00:00"},
        headers=auth,
    )
    assert_problem(naive, 422, "occurred_at")
    overflow = await client.post(
        "/v1/episodes",
        json={"description": "d", "occurred_at": "0001-01-01T00:00:00+05:00"},
        headers=auth,
    )
    assert_problem(overflow, 422, "occurred_at")
    actions = await client.post(
        "/v1/episodes", json={"description": "d", "actions": ["ok", ""]}, headers=auth
    )
    assert_problem(actions, 422, "actions.1")
    nan = await client.post(
        "/v1/episodes",
        content=b'{"description": "d", "importance": NaN}',
        headers={**auth, "content-type": "application/json"},
    )
    assert_problem(nan, 422, "importance")


async def test_pages_and_filters(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    ids = [await _record(client, auth, description=f"e{i}", outcome="success") for i in range(5)]
    failed = await _record(client, auth, description="boom", outcome="failure", task_type="ops")
    first = (await client.get("/v1/episodes?limit=2", headers=auth)).json()
    assert [e["id"] for e in first["items"]] == ids[:2]
    second = await client.get(
        "/v1/episodes", params={"limit": 2, "cursor": first["next_cursor"]}, headers=auth
    )
    assert [e["id"] for e in second.json()["items"]] == ids[2:4]
    last = (await client.get("/v1/episodes?limit=10", headers=auth)).json()
    assert last["next_cursor"] is None
    assert len(last["items"]) == 6
    only = await client.get("/v1/episodes", params={"outcome": "failure"}, headers=auth)
    assert [e["id"] for e in only.json()["items"]] == [failed]
    typed = await client.get("/v1/episodes", params={"task_type": "ops"}, headers=auth)
    assert [e["id"] for e in typed.json()["items"]] == [failed]
    newest = await client.get("/v1/episodes?limit=1&newest_first=true", headers=auth)
    assert newest.json()["items"][0]["id"] == failed
    window = await client.get(
        "/v1/episodes",
        params={"since": "2000-01-01T00:00:00Z", "min_importance": 0.1},
        headers=auth,
    )
    assert len(window.json()["items"]) == 6
    future = await client.get(
        "/v1/episodes", params={"until": "2000-01-01T00:00:00Z"}, headers=auth
    )
    assert future.json()["items"] == []


async def test_page_size_is_capped(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    problem = assert_problem(await client.get("/v1/episodes?limit=1001", headers=auth), 422)
    assert problem["field"] == "limit"
    assert problem["allowed"] == "1..1000"
    assert_problem(await client.get("/v1/episodes?limit=0", headers=auth), 422, "limit")


async def test_the_cap_follows_the_settings(memory: Memory) -> None:
    cap = 7
    app = create_app(memory, Settings(server=ServerSettings(max_page_size=cap)))
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        auth = await bearer(memory)
        problem = assert_problem(await client.get("/v1/episodes?limit=8", headers=auth), 422)
        assert problem["allowed"] == f"1..{cap}"
        assert (await client.get(f"/v1/episodes?limit={cap}", headers=auth)).status_code == 200
        schema = (await client.get("/openapi.json")).json()
    params = schema["paths"]["/v1/episodes"]["get"]["parameters"]
    (limit,) = [p for p in params if p["name"] == "limit"]
    assert limit["schema"]["maximum"] == cap


async def test_patch_and_delete_show_in_the_next_read(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    episode_id = await _record(client, auth, description="booked a ferry to Bergen", user="ana")
    patched = await client.patch(
        f"/v1/episodes/{episode_id}",
        json={"description": "booked the night train to Oslo", "outcome": "partial"},
        headers=auth,
    )
    assert patched.status_code == 200, patched.text
    assert (patched.json()["description"], patched.json()["outcome"]) == (
        "booked the night train to Oslo", "partial",
    )  # fmt: skip
    recall = {"query": "night train Oslo", "user": "ana", "tiers": ["episodes"], "mode": "keyword"}
    found = (await client.post("/v1/recall", json=recall, headers=auth)).json()["episodes"]
    assert [h["record"]["id"] for h in found] == [episode_id]
    assert_problem(
        await client.patch(f"/v1/episodes/{episode_id}", json={"importance": 2}, headers=auth),
        422,
        "importance",
    )
    assert_problem(
        await client.patch(f"/v1/episodes/{episode_id}", json={"tenant": "x"}, headers=auth),
        422,
        "tenant",
    )
    assert (await client.delete(f"/v1/episodes/{episode_id}", headers=auth)).status_code == 204
    assert (await client.post("/v1/recall", json=recall, headers=auth)).json()["episodes"] == []
    assert_problem(await client.get(f"/v1/episodes/{episode_id}", headers=auth), 404)
    assert_problem(await client.delete(f"/v1/episodes/{episode_id}", headers=auth), 404)
    assert_problem(
        await client.patch(f"/v1/episodes/{episode_id}", json={"importance": 1}, headers=auth),
        404,
    )
