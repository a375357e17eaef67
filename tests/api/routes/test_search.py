"""Recall across tiers with score breakdowns, and token-budgeted context."""

from __future__ import annotations

import httpx

from tests.api.conftest import assert_problem


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
