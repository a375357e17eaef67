"""Recall across tiers with score breakdowns, and token-budgeted context."""

from __future__ import annotations

import httpx

from sedimem.ids import handle
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Procedure
from tests.api.conftest import assert_problem, bearer


async def _seed(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    episode = {"description": "Booked a train to Oslo", "outcome": "success", "user": "ana"}
    await client.post("/v1/episodes", json=episode, headers=auth)
    fact = {"statement": "Ana prefers trains to Oslo", "user": "ana"}
    await client.post("/v1/facts", json=fact, headers=auth)
    procedure = {"name": "book", "trigger": "book a train to Oslo", "steps": ["search", "pay"]}
    await client.post("/v1/procedures", json=procedure, headers=auth)
    await client.put("/v1/blocks/persona?user=ana", json={"content": "Be brief."}, headers=auth)


async def test_recall_every_tier(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    await _seed(client, auth)
    found = await client.post(
        "/v1/recall", json={"query": "train to Oslo", "user": "ana"}, headers=auth
    )
    body = found.json()
    assert [len(body[t]) for t in ("episodes", "facts", "procedures")] == [1, 1, 1]
    explain = body["episodes"][0]["explain"]
    assert {"vector", "keyword", "recency", "importance", "fused", "score"} <= explain.keys()


async def test_recall_some_tiers_with_filters(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await _seed(client, auth)
    only = await client.post(
        "/v1/recall",
        json={
            "query": "Oslo",
            "user": "ana",
            "tiers": ["episodes", "episodes"],
            "outcome": "failure",
            "since": "2000-01-01T00:00:00Z",
            "mode": "keyword",
        },
        headers=auth,
    )
    assert only.json() == {"episodes": [], "facts": [], "procedures": []}
    facts = await client.post(
        "/v1/recall",
        json={"query": "Oslo", "user": "ana", "tiers": ["facts"], "include_history": True},
        headers=auth,
    )
    assert len(facts.json()["facts"]) == 1
    assert facts.json()["episodes"] == []
    bad = await client.post("/v1/recall", json={"query": "x", "tiers": ["dreams"]}, headers=auth)
    assert_problem(bad, 422, "tiers.0")
    assert_problem(await client.post("/v1/recall", json={"query": ""}, headers=auth), 422, "query")


async def test_context_is_packed_within_the_budget(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await _seed(client, auth)
    packed = await client.post(
        "/v1/context",
        json={"query": "train to Oslo", "budget_tokens": 200, "user": "ana"},
        headers=auth,
    )
    body = packed.json()
    assert body["tokens_used"] <= 200
    assert "Be brief." in body["text"]
    assert {t["tier"] for t in body["report"]["tiers"]} >= {"blocks", "episodes"}
    messages = await client.post(
        "/v1/context",
        json={
            "query": "Oslo",
            "budget_tokens": 100,
            "format": "messages",
            "quotas": {"episodes": 1, "facts": 0},
            "user": "ana",
        },
        headers=auth,
    )
    assert messages.json()["messages"]
    zero = await client.post(
        "/v1/context",
        json={
            "query": "Oslo",
            "budget_tokens": 100,
            "quotas": dict.fromkeys(("blocks", "working", "procedures", "facts", "episodes"), 0),
        },
        headers=auth,
    )
    assert_problem(zero, 422, "quotas")
    over = await client.post("/v1/context", json={"query": "q", "budget_tokens": 0}, headers=auth)
    assert assert_problem(over, 422, "budget_tokens")["allowed"] == "1..1000000"


async def test_a_session_reads_every_session_unless_from_session_narrows(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    owner = {"user": "ana", "agent": "planner"}
    first = {**owner, "session": "run-1"}
    episode = {**first, "description": "Booked a train to Oslo", "outcome": "success"}
    assert (await client.post("/v1/episodes", json=episode, headers=auth)).status_code == 201
    fact = {**first, "statement": "Ana prefers trains to Oslo"}
    assert (await client.post("/v1/facts", json=fact, headers=auth)).status_code == 201
    procedure = {**first, "name": "book", "trigger": "book a train to Oslo", "steps": ["pay"]}
    assert (await client.post("/v1/procedures", json=procedure, headers=auth)).status_code == 201

    async def recall(**extra: str) -> list[int]:
        body = {"query": "train to Oslo", **owner, "session": "run-2", **extra}
        found = (await client.post("/v1/recall", json=body, headers=auth)).json()
        return [len(found[t]) for t in ("episodes", "facts", "procedures")]

    assert await recall() == [1, 1, 1]
    assert await recall(from_session="run-1") == [1, 1, 1]
    assert await recall(from_session="run-2") == [0, 0, 0]
    match = {**owner, "session": "run-2", "task_description": "train to Oslo"}
    hits = (await client.post("/v1/procedures/match", json=match, headers=auth)).json()["hits"]
    assert len(hits) == 1
    match["from_session"] = "run-2"
    hits = (await client.post("/v1/procedures/match", json=match, headers=auth)).json()["hits"]
    assert hits == []
    listed = await client.get("/v1/episodes", params={**owner, "session": "run-2"}, headers=auth)
    assert [e["scope"]["session"] for e in listed.json()["items"]] == ["run-1"]
    only = await client.get("/v1/episodes", params={**owner, "from_session": "run-2"}, headers=auth)
    assert only.json()["items"] == []
    # another user's session of the same agent sees none of it
    other = {"query": "train to Oslo", "user": "bo", "agent": "planner", "session": "run-1"}
    found = (await client.post("/v1/recall", json=other, headers=auth)).json()
    assert (found["episodes"], found["facts"]) == ([], [])
    bad = await client.post("/v1/recall", json={"query": "x", "from_session": ""}, headers=auth)
    assert_problem(bad, 422, "from_session")


async def test_one_memory_of_any_tier_by_id_or_handle(
    client: httpx.AsyncClient, memory: Memory, auth: dict[str, str]
) -> None:
    ana = Scope(tenant="acme", user="ana")
    episode = await memory.episodes.record(Episode(scope=ana, description="Booked a train"))
    procedure = await memory.procedures.record(
        Procedure(scope=ana, name="book", trigger="book a train", steps=["search", "pay"])
    )
    for record, kind in ((episode, "episode"), (procedure, "procedure")):
        for named in (record.id, handle(record.id)):
            read = await client.get(f"/v1/memories/{named}", headers=auth)
            assert read.status_code == 200, read.text
            assert read.json()["kind"] == kind
            assert read.json()["id"] == record.id
            assert read.json()["record"]["id"] == record.id
    # the tier's own route takes the handle too
    got = await client.get(f"/v1/episodes/{handle(episode.id)}", headers=auth)
    assert got.json()["description"] == "Booked a train"
    assert_problem(await client.get("/v1/memories/ffffffffff", headers=auth), 404)
    bob = await bearer(memory, user="bob")
    assert_problem(await client.get(f"/v1/memories/{handle(episode.id)}", headers=bob), 403)
    stranger = await bearer(memory, tenant="other")
    assert_problem(await client.get(f"/v1/memories/{episode.id}", headers=stranger), 404)
    # two records sharing a handle: refused, naming both
    twins = [f"01a22222-000{n}-7bbb-8ccc-dd0123456789" for n in (1, 2)]
    for twin in twins:
        await memory.episodes.record(Episode(id=twin, scope=ana, description="twin"))
    shared = assert_problem(await client.get("/v1/memories/0123456789", headers=auth), 422, "id")
    assert all(twin in str(shared) for twin in twins)
