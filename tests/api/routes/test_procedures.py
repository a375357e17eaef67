"""Procedures over HTTP: record (versions), match, outcomes."""

from __future__ import annotations

import httpx

from tests.api.conftest import assert_problem

DEPLOY = {"name": "deploy", "trigger": "deploy the service", "steps": ["build", "ship"]}


async def test_record_version_match_and_outcome(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    first = await client.post("/v1/procedures", json=DEPLOY, headers=auth)
    assert first.status_code == 201
    procedure = first.json()
    assert procedure["version"] == 1
    second = await client.post(
        "/v1/procedures", json={**DEPLOY, "steps": ["build", "test", "ship"]}, headers=auth
    )
    assert second.json()["id"] == procedure["id"]
    assert second.json()["version"] == 2

    matched = await client.post(
        "/v1/procedures/match",
        json={"task_description": "deploy the service", "k": 3},
        headers=auth,
    )
    (hit,) = matched.json()["hits"]
    assert hit["record"]["id"] == procedure["id"]
    assert {"fused", "score", "recency"} <= hit["explain"].keys()

    used = await client.post(
        f"/v1/procedures/{procedure['id']}/outcome", json={"success": True}, headers=auth
    )
    assert used.json()["success_count"] == 1
    assert used.json()["last_used_at"]
    got = await client.get(f"/v1/procedures/{procedure['id']}", headers=auth)
    assert got.json()["success_count"] == 1


async def test_procedure_problems(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    empty = await client.post("/v1/procedures", json={**DEPLOY, "steps": []}, headers=auth)
    assert assert_problem(empty, 422, "steps")["allowed"] == "a list of 1..1000 items"
    strict = await client.post("/v1/procedures/nope/outcome", json={"success": "yes"}, headers=auth)
    assert_problem(strict, 422, "success")
    missing = await client.post("/v1/procedures/nope/outcome", json={"success": True}, headers=auth)
    assert_problem(missing, 404)
    assert_problem(await client.get("/v1/procedures/nope", headers=auth), 404)


async def test_patch_and_delete(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    created = await client.post("/v1/procedures", json=DEPLOY, headers=auth)
    pid = created.json()["id"]
    patched = await client.patch(
        f"/v1/procedures/{pid}", json={"steps": ["build", "test", "ship"]}, headers=auth
    )
    assert patched.status_code == 200, patched.text
    assert (patched.json()["version"], patched.json()["steps"]) == (2, ["build", "test", "ship"])
    assert (await client.get(f"/v1/procedures/{pid}", headers=auth)).json()["version"] == 2
    assert_problem(
        await client.patch(f"/v1/procedures/{pid}", json={"steps": []}, headers=auth),
        422,
        "steps",
    )
    assert (await client.delete(f"/v1/procedures/{pid}", headers=auth)).status_code == 204
    match = await client.post(
        "/v1/procedures/match", json={"task_description": "deploy the service"}, headers=auth
    )
    assert match.json()["hits"] == []
    assert_problem(await client.delete(f"/v1/procedures/{pid}", headers=auth), 404)
