"""Forget, export and import over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from tests.api.conftest import assert_problem, bearer


async def _seed_user(client: httpx.AsyncClient, auth: dict[str, str], user: str) -> dict[str, str]:
    episode = await client.post(
        "/v1/episodes",
        json={"description": f"{user} booked a train", "user": user, "session": "s1"},
        headers=auth,
    )
    likes = {"subject": user, "predicate": "likes", "user": user}
    fact = await client.post(
        "/v1/facts", json={"statement": f"{user} likes trains", **likes}, headers=auth
    )
    procedure = await client.post(
        "/v1/procedures",
        json={"name": "book", "trigger": "book a train", "steps": ["pay"], "user": user},
        headers=auth,
    )
    await client.put(f"/v1/sessions/s1/kv/k?user={user}", json={"value": 1}, headers=auth)
    return {
        "episode": episode.json()["id"],
        "fact": fact.json()["fact"]["id"],
        "procedure": procedure.json()["id"],
    }


async def test_forget_a_user_leaves_nothing_readable(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    ana = await _seed_user(client, auth, "ana")
    bob = await _seed_user(client, auth, "bob")
    receipt = await client.post("/v1/forget", json={"user": "ana"}, headers=auth)
    erased = receipt.json()
    assert erased.pop("scrubbed").startswith("sqlite: ")
    assert erased.pop("scrubbed_at") is not None
    assert erased == {
        "api_keys": 0,
        "episodes": 1,
        "facts": 1,
        "facts_updated": 0,
        "procedures": 1,
        "procedures_updated": 0,
        "blocks": 0,
        "documents": 0,
        "working_sessions": 1,
        "run_logs": 0,
    }
    for kind, record_id in (
        ("episodes", ana["episode"]),
        ("facts", ana["fact"]),
        ("procedures", ana["procedure"]),
    ):
        assert_problem(await client.get(f"/v1/{kind}/{record_id}", headers=auth), 404)
    ana_q = {"user": "ana"}
    assert (await client.get("/v1/episodes", params=ana_q, headers=auth)).json()["items"] == []
    recall = await client.post("/v1/recall", json={"query": "train", **ana_q}, headers=auth)
    assert recall.json() == {"episodes": [], "facts": [], "procedures": []}
    facts = await client.get(
        "/v1/facts/history",
        params={"subject": "ana", "predicate": "likes", "include_retired": True, **ana_q},
        headers=auth,
    )
    assert facts.json()["items"] == []
    assert_problem(await client.get("/v1/sessions/s1/kv/k", params=ana_q, headers=auth), 404)
    exported = await client.get("/v1/export", params=ana_q, headers=auth)
    assert exported.text == ""
    stats = (await client.get("/v1/stats", params=ana_q, headers=auth)).json()
    assert (stats["episodes"], stats["facts"], stats["procedures"]) == (0, 0, 0)
    # bob is untouched
    assert (await client.get(f"/v1/episodes/{bob['episode']}", headers=auth)).status_code == 200


async def test_forget_needs_a_condition(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    assert_problem(await client.post("/v1/forget", json={}, headers=auth), 422, "user")
    by_time = await client.post("/v1/forget", json={"before": "2000-01-01T00:00:00Z"}, headers=auth)
    assert by_time.json()["episodes"] == 0


async def test_export_import_round_trip(
    client: httpx.AsyncClient, auth: dict[str, str], tmp_path: Path, settings: Settings
) -> None:
    ana = await _seed_user(client, auth, "ana")
    await _seed_user(client, auth, "bob")
    exported = await client.get("/v1/export?user=ana", headers=auth)
    assert exported.status_code == 200
    assert exported.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in exported.text.splitlines()]
    assert [line["kind"] for line in lines] == ["episode", "fact", "procedure"]
    assert [line["record"]["id"] for line in lines] == [ana[k] for k in ana]

    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    async with await Memory.open(url, embedder=HashEmbedder(64), settings=settings) as fresh:
        app = create_app(fresh, settings)
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://fresh") as other:
            key = await bearer(fresh, "acme")
            imported = await other.post("/v1/import", content=exported.content, headers=key)
            assert imported.json() == {"episodes": 1, "facts": 1, "procedures": 1, "blocks": 0}
            again = await other.get("/v1/export?user=ana", headers=key)
            assert again.text == exported.text
            got = await other.get(f"/v1/episodes/{ana['episode']}", headers=key)
            assert got.json()["description"] == "ana booked a train"


async def test_export_of_records_without_a_user(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await client.post("/v1/episodes", json={"description": "shared"}, headers=auth)
    await _seed_user(client, auth, "ana")
    lines = (await client.get("/v1/export", headers=auth)).text.splitlines()
    assert [json.loads(line)["record"]["description"] for line in lines] == ["shared"]


async def test_import_problems(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    bad = await client.post("/v1/import", content=b'{"kind": "episode"}\n', headers=auth)
    assert_problem(bad, 422, "line 1")
    binary = await client.post("/v1/import", content=b"\xff\xfe", headers=auth)
    assert_problem(binary, 422, "body")
    empty = await client.post("/v1/import", content=b"", headers=auth)
    assert empty.json() == {"episodes": 0, "facts": 0, "procedures": 0, "blocks": 0}


@pytest.mark.parametrize("route", ["forget", "export", "import"])
async def test_narrowed_keys(client: httpx.AsyncClient, memory: Memory, route: str) -> None:
    ana = await bearer(memory, user="ana")
    project = await bearer(memory, project="p")
    calls = {
        "forget": lambda h, user: client.post("/v1/forget", json={"user": user}, headers=h),
        "export": lambda h, user: client.get("/v1/export", params={"user": user}, headers=h),
        "import": lambda h, user: client.post("/v1/import", content=b"", headers=h),
    }
    call = calls[route]
    assert_problem(await call(project, "ana"), 403)
    if route == "import":
        assert_problem(await call(ana, "ana"), 403)
        return
    assert_problem(await call(ana, "bob"), 403)
    assert (await call(ana, "ana")).status_code == 200


async def test_a_user_key_forgets_its_user_by_default(
    client: httpx.AsyncClient, auth: dict[str, str], memory: Memory
) -> None:
    await _seed_user(client, auth, "ana")
    await _seed_user(client, auth, "bob")
    ana = await bearer(memory, user="ana")
    assert (await client.get("/v1/export", headers=ana)).text.count("\n") == 3
    receipt = await client.post("/v1/forget", json={}, headers=ana)
    assert receipt.json()["episodes"] == 1
    assert receipt.json()["api_keys"] == 1  # the key itself held ana's id
    assert_problem(await client.get("/v1/export", headers=ana), 401)
    assert (await client.get("/v1/export?user=ana", headers=auth)).text == ""
    assert (await client.get("/v1/export?user=bob", headers=auth)).text.count("\n") == 3
