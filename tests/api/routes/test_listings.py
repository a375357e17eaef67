"""The read routes the web inspector lists from: the calling key, live sessions, a session's
keys with their TTL, current facts, procedures, and the consolidation log."""

from __future__ import annotations

import httpx

from sedimem.memory import Memory
from tests.api.conftest import assert_problem, bearer


async def test_a_key_reads_its_own_description(client: httpx.AsyncClient, memory: Memory) -> None:
    wide = await client.get("/v1/keys/self", headers=await bearer(memory, "acme"))
    assert wide.status_code == 200
    assert wide.json()["tenant"] == "acme"
    assert wide.json()["user"] is None
    narrow = await client.get("/v1/keys/self", headers=await bearer(memory, "acme", user="ana"))
    assert narrow.json()["user"] == "ana"
    assert "secret" not in narrow.json()
    assert_problem(await client.get("/v1/keys/self"), 401)


async def test_live_sessions_of_the_scope(client: httpx.AsyncClient, memory: Memory) -> None:
    auth = await bearer(memory, "acme")
    for session, user in (("s1", "ana"), ("s2", "bob"), ("s3", None)):
        params = {"user": user} if user else {}
        put = await client.put(
            f"/v1/sessions/{session}/kv/k", params=params, json={"value": 1}, headers=auth
        )
        assert put.status_code == 204
    everyone = await client.get("/v1/sessions", headers=auth)
    assert sorted(s["session"] for s in everyone.json()["items"]) == ["s1", "s2", "s3"]
    ana = await client.get("/v1/sessions", params={"user": "ana"}, headers=auth)
    assert [(s["session"], s["user"]) for s in ana.json()["items"]] == [("s1", "ana")]
    # a key narrowed to bob lists only bob's, and may not ask for ana's
    bob = await bearer(memory, "acme", user="bob")
    assert [
        s["session"] for s in (await client.get("/v1/sessions", headers=bob)).json()["items"]
    ] == ["s2"]
    assert_problem(await client.get("/v1/sessions", params={"user": "ana"}, headers=bob), 403)
    # another tenant sees none of them
    other = await client.get("/v1/sessions", headers=await bearer(memory, "globex"))
    assert other.json()["items"] == []


async def test_session_keys_carry_the_time_they_have_left(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    s = "/v1/sessions/run-1"
    await client.put(f"{s}/kv/short", json={"value": "x", "ttl_seconds": 60}, headers=auth)
    await client.put(f"{s}/kv/long", json={"value": [1, 2]}, headers=auth)
    items = (await client.get(f"{s}/keys", headers=auth)).json()["items"]
    assert [i["key"] for i in items] == ["long", "short"]
    assert items[0]["value"] == [1, 2]
    assert items[0]["ttl_left_seconds"] is None
    assert items[0]["expires_at"] is None
    assert 50 < items[1]["ttl_left_seconds"] <= 60
    assert items[1]["expires_at"] is not None
    empty = await client.get("/v1/sessions/nothing-here/keys", headers=auth)
    assert empty.json() == {"items": []}


async def test_current_facts_page_by_page(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    lisbon = {"subject": "ana", "predicate": "lives_in", "object": "Lisbon",
              "statement": "Ana lives in Lisbon", "valid_from": "2020-01-01T00:00:00Z"}  # fmt: skip
    porto = {**lisbon, "object": "Porto", "statement": "Ana lives in Porto",
             "valid_from": "2024-01-01T00:00:00Z"}  # fmt: skip
    for body in (lisbon, porto, {"statement": "The sky is blue", "subject": "sky",
                                 "predicate": "colour", "object": "blue"}):  # fmt: skip
        assert (await client.post("/v1/facts", json=body, headers=auth)).status_code == 201
    current = (await client.get("/v1/facts/current", headers=auth)).json()
    # Lisbon ended in the world when Porto began: history, not a current fact
    assert sorted(f["object"] for f in current["items"]) == ["Porto", "blue"]
    assert current["next_cursor"] is None
    ana = (await client.get("/v1/facts/current", params={"subject": "Ana"}, headers=auth)).json()
    assert [f["object"] for f in ana["items"]] == ["Porto"]
    first = (await client.get("/v1/facts/current", params={"limit": 1}, headers=auth)).json()
    assert len(first["items"]) == 1
    assert first["next_cursor"]
    rest = await client.get(
        "/v1/facts/current", params={"limit": 1, "cursor": first["next_cursor"]}, headers=auth
    )
    assert [f["id"] for f in rest.json()["items"]] != [f["id"] for f in first["items"]]
    assert rest.json()["next_cursor"] is None
    assert_problem(
        await client.get("/v1/facts/current", params={"limit": 0}, headers=auth), 422, "limit"
    )


async def test_procedures_are_listed_at_their_latest_version(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    auth = await bearer(memory, "acme")
    for steps in (["a"], ["a", "b"]):
        body = {"name": "deploy", "trigger": "shipping", "steps": steps}
        assert (await client.post("/v1/procedures", json=body, headers=auth)).status_code == 201
    body = {"name": "review", "trigger": "a pull request", "steps": ["read"], "user": "ana"}
    assert (await client.post("/v1/procedures", json=body, headers=auth)).status_code == 201
    listed = (await client.get("/v1/procedures", headers=auth)).json()
    assert [(p["name"], p["version"]) for p in listed["items"]] == [("deploy", 2)]
    ana = (await client.get("/v1/procedures", params={"user": "ana"}, headers=auth)).json()
    assert sorted(p["name"] for p in ana["items"]) == ["deploy", "review"]
    other = await client.get("/v1/procedures", headers=await bearer(memory, "globex"))
    assert other.json()["items"] == []


async def test_the_consolidation_log_of_the_tenant(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    auth = await bearer(memory, "acme")
    assert (await client.get("/v1/consolidation/runs", headers=auth)).json() == {"items": []}
    ran = await client.post("/v1/consolidate", json={"jobs": ["facts", "decay"]}, headers=auth)
    assert ran.status_code == 200
    runs = (await client.get("/v1/consolidation/runs", headers=auth)).json()["items"]
    assert sorted(r["job"] for r in runs) == ["decay", "facts"]
    assert all(r["tenant"] == "acme" and r["status"] == "ok" for r in runs)
    facts = await client.get("/v1/consolidation/runs", params={"job": "facts"}, headers=auth)
    assert [r["job"] for r in facts.json()["items"]] == ["facts"]
    assert_problem(
        await client.get("/v1/consolidation/runs", params={"job": "nope"}, headers=auth), 422, "job"
    )
    other = await client.get("/v1/consolidation/runs", headers=await bearer(memory, "globex"))
    assert other.json()["items"] == []
    narrowed = await bearer(memory, "acme", user="ana")
    assert_problem(await client.get("/v1/consolidation/runs", headers=narrowed), 403)
