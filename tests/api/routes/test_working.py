"""Working memory over HTTP: key-value, task state, scratchpad, checkpoints, fork."""

from __future__ import annotations

import httpx

from tests.api.conftest import assert_problem

S = "/v1/sessions/run-1"


async def test_key_values_round_trip(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    put = await client.put(f"{S}/kv/plan/day-1", json={"value": {"city": "Oslo"}}, headers=auth)
    assert put.status_code == 204
    assert (await client.put(f"{S}/kv/n", json={"value": None}, headers=auth)).status_code == 204
    got = await client.get(f"{S}/kv/plan/day-1", headers=auth)
    assert got.json() == {"key": "plan/day-1", "value": {"city": "Oslo"}}
    assert (await client.get(f"{S}/kv/n", headers=auth)).json() == {"key": "n", "value": None}
    everything = await client.get(f"{S}/kv", headers=auth)
    assert everything.json() == {"items": {"n": None, "plan/day-1": {"city": "Oslo"}}}
    assert (await client.delete(f"{S}/kv/n", headers=auth)).status_code == 204
    assert_problem(await client.get(f"{S}/kv/n", headers=auth), 404)
    assert_problem(await client.delete(f"{S}/kv/n", headers=auth), 404)


async def test_key_rules_come_back_as_problems(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    reserved = await client.put(f"{S}/kv/__task", json={"value": 1}, headers=auth)
    assert_problem(reserved, 422, "key")
    ttl = await client.put(f"{S}/kv/k", json={"value": 1, "ttl_seconds": 0}, headers=auth)
    assert_problem(ttl, 422, "ttl_seconds")
    assert_problem(await client.put(f"{S}/kv/k", json={}, headers=auth), 422, "value")


async def test_ttl_is_kept(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    await client.put(f"{S}/kv/k", json={"value": 1, "ttl_seconds": 60}, headers=auth)
    assert (await client.get(f"{S}/kv/k", headers=auth)).json()["value"] == 1


async def test_task_state(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    assert_problem(await client.get(f"{S}/task", headers=auth), 404)
    patch = await client.patch(f"{S}/task", json={"current_step": 1}, headers=auth)
    assert_problem(patch, 404)
    put = await client.put(f"{S}/task", json={"task_id": "t1", "total_steps": 4}, headers=auth)
    assert put.status_code == 200
    assert put.json()["task_id"] == "t1"
    assert put.json()["started_at"]
    patch = await client.patch(
        f"{S}/task",
        json={"current_step": 2, "progress_percent": 50, "status": "in_progress"},
        headers=auth,
    )
    assert patch.json()["current_step"] == 2
    assert patch.json()["status"] == "in_progress"
    got = await client.get(f"{S}/task", headers=auth)
    assert got.json()["progress_percent"] == 50.0
    bad = await client.patch(f"{S}/task", json={"progress_percent": 101}, headers=auth)
    assert_problem(bad, 422, "progress_percent")


async def test_scratchpad(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    for text in ("first", "second"):
        response = await client.post(f"{S}/scratchpad", json={"text": text}, headers=auth)
        assert response.status_code == 204
    entries = (await client.get(f"{S}/scratchpad", headers=auth)).json()["entries"]
    assert [e["text"] for e in entries] == ["first", "second"]
    assert all(e["id"] and e["created_at"] for e in entries)


async def test_checkpoints_restore_and_fork(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await client.put(f"{S}/kv/k", json={"value": "before"}, headers=auth)
    created = await client.post(f"{S}/checkpoints", json={"description": "d"}, headers=auth)
    assert created.status_code == 201
    checkpoint = created.json()["id"]
    assert (await client.post(f"{S}/checkpoints", headers=auth)).status_code == 201
    await client.put(f"{S}/kv/k", json={"value": "after"}, headers=auth)

    listed = (await client.get(f"{S}/checkpoints", headers=auth)).json()["items"]
    assert [c["description"] for c in listed] == ["d", ""]
    assert listed[0]["keys"] == 1

    restored = await client.post(f"{S}/checkpoints/{checkpoint}/restore", headers=auth)
    assert restored.status_code == 204
    assert (await client.get(f"{S}/kv/k", headers=auth)).json()["value"] == "before"

    forked = await client.post(
        f"{S}/checkpoints/{checkpoint}/fork", json={"new_session": "run-2"}, headers=auth
    )
    assert forked.status_code == 201
    assert forked.json() == {"session": "run-2"}
    copy = await client.get("/v1/sessions/run-2/kv/k", headers=auth)
    assert copy.json()["value"] == "before"

    same = await client.post(
        f"{S}/checkpoints/{checkpoint}/fork", json={"new_session": "run-1"}, headers=auth
    )
    assert_problem(same, 422, "new_session")
    missing = await client.post(f"{S}/checkpoints/nope/restore", headers=auth)
    assert_problem(missing, 404)

    deleted = await client.delete(f"{S}/checkpoints/{checkpoint}", headers=auth)
    assert deleted.status_code == 204
    assert_problem(await client.delete(f"{S}/checkpoints/{checkpoint}", headers=auth), 404)


async def test_session_stats(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    await client.put(f"{S}/kv/k", json={"value": 1}, headers=auth)
    stats = (await client.get(f"{S}/stats", headers=auth)).json()
    assert stats["keys"] == 1
    assert stats["backend"] == "sqlite"
    assert stats["using_fallback"] is False


async def test_narrowing_fields_address_another_scope(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await client.put(f"{S}/kv/k?user=ana", json={"value": "ana's"}, headers=auth)
    await client.put(f"{S}/kv/k", json={"value": "bob's", "user": "bob"}, headers=auth)
    assert (await client.get(f"{S}/kv/k?user=ana", headers=auth)).json()["value"] == "ana's"
    assert (await client.get(f"{S}/kv/k?user=bob", headers=auth)).json()["value"] == "bob's"
    assert_problem(await client.get(f"{S}/kv/k", headers=auth), 404)
    clash = await client.put(f"{S}/kv/k?user=ana", json={"value": 1, "user": "bob"}, headers=auth)
    assert_problem(clash, 422, "user")
    same = await client.put(f"{S}/kv/k?user=ana", json={"value": 2, "user": "ana"}, headers=auth)
    assert same.status_code == 204


async def test_a_value_with_a_lone_surrogate_is_a_422(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    # valid JSON ("\ud800" escaped) that is not valid Unicode text once decoded
    response = await client.put(
        "/v1/sessions/s1/kv/k",
        content='{"value": "\\ud800"}',
        headers={**auth, "Content-Type": "application/json"},
    )
    assert_problem(response, 422, "value")
