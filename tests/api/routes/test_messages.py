"""Messages over HTTP: turns in, facts out, once per message; background jobs; bad input."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from sedimem.memory import Memory
from sedimem.types.conversation import MAX_MESSAGES
from tests.api.conftest import assert_problem, bearer

TURNS = [
    {"id": "m1", "role": "user", "name": "Ana", "content": "I live in Oslo.",
     "timestamp": "2024-05-01T09:00:00+00:00"},
    {"id": "m2", "role": "assistant", "content": "Oslo is lovely in May.",
     "timestamp": "2024-05-01T09:00:05+00:00"},
]  # fmt: skip


async def test_ingest_then_again(
    client: httpx.AsyncClient, auth: dict[str, str], memory: Memory
) -> None:
    body = {"user": "ana", "session": "s1", "messages": TURNS}
    first = await client.post("/v1/messages", json=body, headers=auth)
    assert first.status_code == 200, first.text
    result = first.json()
    assert result["status"] == "done"
    assert len(result["stored"]) == 2
    assert len(result["inserted"]) >= 1
    facts = await client.get(
        "/v1/facts",
        params={"subject": "Ana", "predicate": "lives_in", "user": "ana"},
        headers=auth,
    )
    assert facts.status_code == 200, facts.text
    assert [f["object"] for f in facts.json()["items"]] == ["Oslo"]
    episode = await client.get(f"/v1/episodes/{result['stored'][1]}", headers=auth)
    assert episode.json()["output_text"] == "Oslo is lovely in May."
    assert episode.json()["scope"]["session"] == "s1"

    again = (await client.post("/v1/messages", json=body, headers=auth)).json()
    assert again["stored"] == []
    assert sorted(again["duplicates"]) == sorted(result["stored"])


async def test_background_job(
    client: httpx.AsyncClient, auth: dict[str, str], memory: Memory
) -> None:
    body = {"user": "ana", "messages": TURNS[:1], "background": True}
    pending = (await client.post("/v1/messages", json=body, headers=auth)).json()
    assert pending["status"] == "pending"
    assert pending["job_id"]
    await memory.conversations.wait()
    status = await client.get(f"/v1/messages/jobs/{pending['job_id']}", headers=auth)
    assert status.status_code == 200, status.text
    assert status.json()["status"] == "done"
    assert len(status.json()["inserted"]) == 1
    # another tenant's key does not see the job
    other = await bearer(memory, "globex")
    assert_problem(await client.get(f"/v1/messages/jobs/{pending['job_id']}", headers=other), 404)
    # nor does a key of the same tenant narrowed to another user (the job names ana's
    # episodes and facts); ana's own narrowed key does
    bob = await bearer(memory, "acme", user="bob")
    assert_problem(await client.get(f"/v1/messages/jobs/{pending['job_id']}", headers=bob), 404)
    ana = await bearer(memory, "acme", user="ana")
    mine = await client.get(f"/v1/messages/jobs/{pending['job_id']}", headers=ana)
    assert mine.json()["status"] == "done"


async def test_bad_input(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    async def post(messages: object) -> httpx.Response:
        return await client.post("/v1/messages", json={"messages": messages}, headers=auth)

    assert_problem(await post([]), 422, "messages")
    assert_problem(await post([{"role": "u", "content": "x"}] * (MAX_MESSAGES + 1)), 422)
    assert_problem(await post([{"role": "robot", "content": "hi"}]), 422, "messages.0.role")
    later = (datetime.now(UTC) + timedelta(hours=2)).isoformat()
    future = await post([{"role": "user", "content": "hi", "timestamp": later}])
    assert_problem(future, 422, "messages.0.timestamp")
