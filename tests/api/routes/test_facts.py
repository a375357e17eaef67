"""Facts over HTTP: learn (insert, reinforce, supersede), what holds, history, by id."""

from __future__ import annotations

import httpx

from sedimem.memory import Memory
from sedimem.types.edits import MAX_PREDICATES_PER_CALL
from tests.api.conftest import assert_problem, bearer

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


SEAT = {"subject": "Ana", "predicate": "prefers_seat", "user": "ana"}


async def _seat(
    client: httpx.AsyncClient, auth: dict[str, str], where: str, **extra: object
) -> dict:
    return await _learn(
        client, auth, statement=f"Ana prefers the {where} seat", object=where, **SEAT, **extra
    )


async def test_cardinality_conflicts_and_tenant_declarations(
    client: httpx.AsyncClient, auth: dict[str, str], memory: Memory
) -> None:
    window = await _seat(client, auth, "window", valid_from="2024-01-01T00:00:00Z")
    aisle = await _seat(client, auth, "aisle", valid_from="2025-01-01T00:00:00Z")
    assert aisle["action"] == "inserted"
    assert [f["id"] for f in aisle["possible_conflicts"]] == [window["fact"]["id"]]
    middle = await _seat(
        client, auth, "middle", valid_from="2026-01-01T00:00:00Z", cardinality="one"
    )
    assert middle["action"] == "superseded"
    assert set(middle["superseded"]) == {window["fact"]["id"], aisle["fact"]["id"]}
    now = await client.get("/v1/facts", params=SEAT, headers=auth)
    assert [f["object"] for f in now.json()["items"]] == ["middle"]
    history = await client.get("/v1/facts/history", params=SEAT, headers=auth)
    assert [(f["object"], f["valid_to"] is None) for f in history.json()["items"]] == [
        ("window", False), ("aisle", False), ("middle", True),
    ]  # fmt: skip

    listed = (await client.get("/v1/facts/predicates", headers=auth)).json()
    assert "prefers_seat" not in listed["single_valued"]
    assert listed["declared"] == {}
    declared = await client.post(
        "/v1/facts/predicates", json={"predicates": ["likes_drink"]}, headers=auth
    )
    assert declared.status_code == 200, declared.text
    assert declared.json()["declared"] == {"likes_drink": "one"}
    drink = {"subject": "Ana", "predicate": "likes_drink"}
    await _learn(client, auth, statement="Ana likes tea", object="tea", **drink)
    coffee = await _learn(client, auth, statement="Ana likes coffee", object="coffee", **drink)
    assert coffee["action"] == "superseded"
    # the declaration is the tenant's, stored: a key of another tenant does not see it
    other = await bearer(memory, tenant="other")
    theirs = (await client.get("/v1/facts/predicates", headers=other)).json()
    assert theirs["declared"] == {}
    # bad input: unknown cardinality, a list over its bound, a narrowed key
    assert_problem(
        await client.post("/v1/facts", json={"statement": "s", **SEAT, "cardinality": "two"},
                          headers=auth),
        422, "cardinality",
    )  # fmt: skip
    too_many = {"predicates": [f"p{i}" for i in range(MAX_PREDICATES_PER_CALL + 1)]}
    assert_problem(
        await client.post("/v1/facts/predicates", json=too_many, headers=auth),
        422,
        "predicates",
    )
    ana = await bearer(memory, user="ana")
    refused = await client.post("/v1/facts/predicates", json={"predicates": ["x"]}, headers=ana)
    assert_problem(refused, 403)


async def test_correct_invalidate_delete_by_id(
    client: httpx.AsyncClient, auth: dict[str, str], memory: Memory
) -> None:
    window = (await _seat(client, auth, "window"))["fact"]
    fixed = await client.patch(
        f"/v1/facts/{window['id']}",
        json={"object": "aisle", "statement": "Ana prefers the aisle seat"},
        headers=auth,
    )
    assert fixed.status_code == 200, fixed.text
    new = fixed.json()
    assert new["action"] == "superseded"
    assert new["superseded"] == [window["id"]]
    current = new["fact"]["id"]
    now = await client.get("/v1/facts", params=SEAT, headers=auth)
    assert [f["object"] for f in now.json()["items"]] == ["aisle"]
    stale = assert_problem(
        await client.patch(f"/v1/facts/{window['id']}", json={"confidence": 0.4}, headers=auth),
        409,
    )
    assert stale["field"] == "fact_id"
    assert current in str(stale["detail"])
    assert_problem(
        await client.patch(f"/v1/facts/{current}", json={"subject": "Bob"}, headers=auth),
        422,
        "subject",
    )
    # an object alone re-phrases the statement; a statement alone must still name the object
    middle = await client.patch(f"/v1/facts/{current}", json={"object": "middle"}, headers=auth)
    assert middle.status_code == 200, middle.text
    assert middle.json()["fact"]["statement"] == "Ana prefers the middle seat"
    current = middle.json()["fact"]["id"]
    assert_problem(
        await client.patch(
            f"/v1/facts/{current}", json={"statement": "Ana likes trains"}, headers=auth
        ),
        422,
        "statement",
    )
    bob = await bearer(memory, user="bob")
    assert_problem(await client.post(f"/v1/facts/{current}/invalidate", headers=bob), 403)
    assert_problem(await client.delete(f"/v1/facts/{current}", headers=bob), 403)
    other = await bearer(memory, tenant="other")
    assert_problem(await client.delete(f"/v1/facts/{current}", headers=other), 404)
    assert_problem(await client.get(f"/v1/facts/{current}", headers=other), 404)

    gone = await client.post(f"/v1/facts/{current}/invalidate", headers=auth)
    assert gone.status_code == 200
    assert gone.json()["invalidated_at"] is not None
    assert (await client.get("/v1/facts", params=SEAT, headers=auth)).json()["items"] == []
    recalled = await client.post(
        "/v1/recall", json={"query": "Ana seat", "user": "ana", "tiers": ["facts"]}, headers=auth
    )
    assert recalled.json()["facts"] == []
    assert (await client.delete(f"/v1/facts/{current}", headers=auth)).status_code == 204
    assert_problem(await client.get(f"/v1/facts/{current}", headers=auth), 404)
    assert_problem(await client.delete(f"/v1/facts/{current}", headers=auth), 404)


async def test_a_fact_cites_only_episodes_the_key_may_read(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    ana = await bearer(memory, "acme", user="ana")
    bob = await bearer(memory, "acme", user="bob")
    other_tenant = await bearer(memory, "globex")
    private = await client.post("/v1/episodes", json={"description": "ana's diary"}, headers=ana)
    theirs = await client.post("/v1/episodes", json={"description": "x"}, headers=other_tenant)
    for cited in (private.json()["id"], theirs.json()["id"], "no-such-id"):
        body = {"statement": "bob likes Oslo", "source_episode_ids": [cited]}
        refused = await client.post("/v1/facts", json=body, headers=bob)
        assert_problem(refused, 422, "source_episode_ids")
    assert (await client.get("/v1/facts/current", headers=bob)).json()["items"] == []
    own = {"statement": "ana keeps a diary", "source_episode_ids": [private.json()["id"]]}
    assert (await client.post("/v1/facts", json=own, headers=ana)).status_code == 201
    # erasing ana then keeps what bob has, and ana's fact goes with her episode
    admin_like = await bearer(memory, "acme")
    await client.post("/v1/facts", json={"statement": "bob likes tea"}, headers=bob)
    erased = await client.post("/v1/forget", json={"user": "ana"}, headers=admin_like)
    assert erased.json()["facts"] == 1
    assert len((await client.get("/v1/facts/current", headers=bob)).json()["items"]) == 1
