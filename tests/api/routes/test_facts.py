"""Facts over HTTP: learn (insert, reinforce, supersede), what holds, history, by id."""

from __future__ import annotations

import httpx

from tests.api.conftest import assert_problem

LIVES = {"subject": "Ana", "predicate": "lives_in"}


async def _learn(client: httpx.AsyncClient, auth: dict[str, str], **fields: object) -> dict:
    response = await client.post("/v1/facts", json=fields, headers=auth)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def test_learn_reinforce_supersede(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    lisbon = await _learn(
        client,
        auth,
        statement="Ana lives in Lisbon",
        object="Lisbon",
        valid_from="2020-01-01T00:00:00Z",
        **LIVES,
    )
    assert lisbon["action"] == "inserted"
    again = await _learn(
        client,
        auth,
        statement="Ana lives in Lisbon",
        object="Lisbon",
        valid_from="2020-01-01T00:00:00Z",
        **LIVES,
    )
    assert again["action"] == "reinforced"
    assert again["fact"]["reinforcement_count"] == 2
    oslo = await _learn(
        client,
        auth,
        statement="Ana lives in Oslo",
        object="Oslo",
        valid_from="2024-06-01T00:00:00Z",
        **LIVES,
    )
    assert oslo["action"] == "superseded"
    (closed,) = oslo["closed"]
    assert closed["valid_to"].startswith("2024-06-01")

    now = (await client.get("/v1/facts", params=LIVES, headers=auth)).json()["items"]
    assert [f["object"] for f in now] == ["Oslo"]
    then = await client.get(
        "/v1/facts", params={**LIVES, "valid_at": "2021-01-01T00:00:00Z"}, headers=auth
    )
    assert [f["object"] for f in then.json()["items"]] == ["Lisbon"]
    before = await client.get(
        "/v1/facts", params={**LIVES, "known_at": "2000-01-01T00:00:00Z"}, headers=auth
    )
    assert before.json()["items"] == []

    history = (await client.get("/v1/facts/history", params=LIVES, headers=auth)).json()
    assert [f["object"] for f in history["items"]] == ["Lisbon", "Oslo"]
    everything = await client.get(
        "/v1/facts/history", params={**LIVES, "include_retired": "true"}, headers=auth
    )
    assert len(everything.json()["items"]) == 3

    got = await client.get(f"/v1/facts/{oslo['fact']['id']}", headers=auth)
    assert got.json()["statement"] == "Ana lives in Oslo"
    assert_problem(await client.get("/v1/facts/nope", headers=auth), 404)


async def test_fact_rules_come_back_as_problems(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    lonely = await client.post(
        "/v1/facts", json={"statement": "s", "predicate": "lives_in"}, headers=auth
    )
    assert_problem(lonely, 422, "predicate")
    backwards = await client.post(
        "/v1/facts",
        json={
            "statement": "s",
            "valid_from": "2024-01-01T00:00:00Z",
            "valid_to": "2023-01-01T00:00:00Z",
        },
        headers=auth,
    )
    assert_problem(backwards, 422, "valid_to")
    assert_problem(await client.get("/v1/facts", params={"subject": "Ana"}, headers=auth), 422)
