"""Values an older version stored past today's shape limits read back everywhere: a read
never fails on its own data, consolidation runs, and ``sedimem doctor`` lists them."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from sedimem.access import Access
from sedimem.cli import app as cli
from sedimem.limits import MAX_JSON_DEPTH
from sedimem.longterm import records
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Fact

from .conftest import bearer

ANA = Scope(tenant="acme", user="ana")


def nested_text(depth: int) -> str:
    """JSON text of an object nested ``depth`` levels, as an older version stored it."""
    return '{"a":' * depth + "1" + "}" * depth


async def store_deep_records(memory: Memory, depth: int) -> tuple[Episode, Fact]:
    """An episode and a fact whose metadata nests ``depth`` levels, written as an older
    version wrote them: straight to the store, past the checks of today's records."""
    episode = Episode(scope=ANA, description="ana deployed the billing service", actions=["a"])
    fact = Fact(scope=ANA, statement="ana likes deploying", source_episode_ids=[episode.id])
    rows = []
    for row in (records.episode_row(episode, None), records.fact_row(fact, None)):
        assert '"metadata":{}' in row.body
        row.body = row.body.replace('"metadata":{}', f'"metadata":{nested_text(depth)}')
        row.vector = memory.embedder.embed([row.text])[0]
        rows.append(row)
    await memory.longterm_store.put("acme", rows)
    return episode, fact


@pytest.mark.parametrize("depth", [250, 900])
async def test_every_read_of_a_deep_value_answers(
    client: httpx.AsyncClient, memory: Memory, depth: int
) -> None:
    episode, fact = await store_deep_records(memory, depth)
    auth = await bearer(memory, "acme", user="ana")
    got = await client.get(f"/v1/episodes/{episode.id}", headers=auth)
    assert got.status_code == 200, got.text
    # the levels within the limit as they were, the rest as its JSON text: nothing lost
    value = got.json()["metadata"]
    for _ in range(MAX_JSON_DEPTH - 1):
        value = value["a"]
    assert json.loads(value["a"]) == json.loads(nested_text(depth - MAX_JSON_DEPTH))
    reads = [
        await client.get("/v1/episodes", headers=auth),
        await client.get(f"/v1/facts/{fact.id}", headers=auth),
        await client.get("/v1/facts/current", headers=auth),
        await client.post("/v1/recall", json={"query": "billing deploy"}, headers=auth),
        await client.post(
            "/v1/context", json={"query": "billing", "budget_tokens": 500}, headers=auth
        ),
        await client.post("/v1/reflect", json={}, headers=auth),
        await client.get("/v1/export", headers=auth),
    ]
    for answer in reads:
        assert answer.status_code == 200, (answer.request.url, answer.text[:300])
    report = await memory.consolidate(Access.local("acme"))
    assert [(j.job, j.status) for j in report.jobs if j.status == "failed"] == []


async def test_a_deep_working_value_reads_back(client: httpx.AsyncClient, memory: Memory) -> None:
    auth = await bearer(memory, "acme", user="ana")
    scope = ANA.with_session("s")
    working = memory.working(scope)
    await working.set("fine", 1)
    # an older version's value, nested past the limit, straight into the store
    await memory.working_store.set(working._ref, "deep", nested_text(600), None, time.time(), 1000)
    for path in ("/v1/sessions/s/kv/deep", "/v1/sessions/s/kv", "/v1/sessions/s/keys"):
        answer = await client.get(path, params={"user": "ana"}, headers=auth)
        assert answer.status_code == 200, (path, answer.text[:300])


async def test_doctor_lists_the_values_over_the_limits(
    memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    episode, fact = await store_deep_records(memory, 120)
    found = await memory.oversized_values()
    assert {(v.kind, v.id, v.field, v.depth) for v in found} == {
        ("episode", episode.id, "metadata", 120),
        ("fact", fact.id, "metadata", 120),
    }
    assert all("nests 120 levels (limit 64)" in v.problem for v in found)
    url = f"sqlite:///{tmp_path / 'm.db'}"
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    monkeypatch.setenv("SEDIMEM_EMBEDDER", "hash")  # the store's own, as the fixture's
    monkeypatch.setenv("SEDIMEM_EMBEDDER_DIMENSION", "64")
    result = await asyncio.to_thread(CliRunner().invoke, cli, ["doctor", "--store", url])
    assert result.exit_code == 1, result.output
    assert f"acme episode {episode.id} metadata: nests 120 levels" in result.output
    assert "2 value(s) over the limits" in result.output


async def test_doctor_finds_nothing_in_a_store_written_today(
    client: httpx.AsyncClient, memory: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    monkeypatch.setenv("SEDIMEM_EMBEDDER", "hash")
    monkeypatch.setenv("SEDIMEM_EMBEDDER_DIMENSION", "64")
    auth = await bearer(memory, "acme")
    body = {"description": "x", "metadata": {"deep": json.loads(nested_text(MAX_JSON_DEPTH - 1))}}
    assert (await client.post("/v1/episodes", json=body, headers=auth)).status_code == 201
    assert await memory.oversized_values() == []
    url = f"sqlite:///{tmp_path / 'm.db'}"
    result = await asyncio.to_thread(CliRunner().invoke, cli, ["doctor", "--store", url])
    assert result.exit_code == 0, result.output
    assert "no stored value is over the shape limits" in result.output
