"""The lifecycle over HTTP: spawn, pause, resume, terminate (once)."""

from __future__ import annotations

import httpx

from sedimem.memory import Memory
from tests.api.conftest import assert_problem

S = "/v1/sessions/trip"


async def test_spawn_pause_resume_terminate(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    spawned = await client.post(
        f"{S}/spawn",
        json={"initial_state": {"city": "Oslo"}, "metadata": {"by": "test"}, "total_steps": 3},
        headers=auth,
    )
    assert spawned.status_code == 200, spawned.text
    assert spawned.json()["operation"] == "spawn"
    assert spawned.json()["duration_ms"] >= 0
    assert spawned.json()["hook_failures"] == []
    task = (await client.get(f"{S}/task", headers=auth)).json()
    assert task["status"] == "in_progress"
    assert task["total_steps"] == 3

    paused = await client.post(f"{S}/pause", json={"description": "lunch"}, headers=auth)
    checkpoint = paused.json()["checkpoint_id"]
    assert checkpoint
    await client.put(f"{S}/kv/city", json={"value": "Bergen"}, headers=auth)

    resumed = await client.post(f"{S}/resume", json={"checkpoint_id": checkpoint}, headers=auth)
    assert resumed.json()["checkpoint_id"] == checkpoint
    assert (await client.get(f"{S}/kv/city", headers=auth)).json()["value"] == "Oslo"
    latest = await client.post(f"{S}/resume", headers=auth)
    assert latest.json()["checkpoint_id"] == checkpoint

    ended = await client.post(
        f"{S}/terminate",
        json={"outcome": "success", "task_description": "plan Oslo", "lessons_learned": ["early"]},
        headers=auth,
    )
    body = ended.json()
    assert body["episode"]["description"] == "plan Oslo"
    assert body["cleaned_up"] is True
    assert body["already_terminated"] is False
    again = await client.post(f"{S}/terminate", json={"outcome": "success"}, headers=auth)
    assert again.json()["already_terminated"] is True
    assert again.json()["episode"] is None
    assert_problem(await client.get(f"{S}/task", headers=auth), 404)


async def test_bodies_are_optional_and_checked(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    assert (await client.post(f"{S}/spawn", headers=auth)).status_code == 200
    assert (await client.post(f"{S}/pause", headers=auth)).status_code == 200
    bad = await client.post(f"{S}/terminate", json={"outcome": "maybe"}, headers=auth)
    problem = assert_problem(bad, 422, "outcome")
    assert problem["allowed"] == "one of: success, failure, partial, none"
    # 'none' is an episode's value for chat turns and notes: a session ends otherwise
    none = await client.post(f"{S}/terminate", json={"outcome": "none"}, headers=auth)
    assert assert_problem(none, 422, "outcome")["allowed"] == "success, failure, partial"
    keys = await client.post(f"{S}/spawn", json={"initial_state": {"__x": 1}}, headers=auth)
    assert_problem(keys, 422, "key")


async def test_resume_without_a_checkpoint_is_404(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    assert_problem(await client.post("/v1/sessions/empty/resume", headers=auth), 404)


async def test_hook_failures_are_reported(
    client: httpx.AsyncClient, auth: dict[str, str], memory: Memory
) -> None:
    def broken(scope: object, result: object) -> None:
        raise RuntimeError("hook down")

    memory.lifecycle.on_spawn(broken)
    spawned = await client.post(f"{S}/spawn", headers=auth)
    assert spawned.status_code == 200
    (failure,) = spawned.json()["hook_failures"]
    assert "hook down" in failure["error"]
