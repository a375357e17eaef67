"""NUL is refused in every text field, naming the field, on the embedded default and on
Redis + PostgreSQL alike (PostgreSQL cannot hold it: no backend is given one); JSON values,
kept as JSON text, hold it on every backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from tests.api.conftest import assert_problem

NUL = "one\x00two"
KV = "/v1/sessions/s1/kv/city"


@pytest.fixture
async def memory(memory_urls: tuple[str, str], settings: Settings) -> AsyncIterator[Memory]:
    working, store = memory_urls
    async with await Memory.open(
        working=working, store=store, embedder=HashEmbedder(64), settings=settings
    ) as opened:
        yield opened


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("POST", "/v1/episodes", {"description": NUL}, "description"),
        ("POST", "/v1/episodes", {"description": "d", "actions": ["a", NUL]}, "actions.1"),
        ("POST", "/v1/episodes", {"description": "d", "task_type": NUL}, "task_type"),
        ("POST", "/v1/facts", {"statement": "s", "subject": NUL, "predicate": "p"}, "subject"),
        ("POST", "/v1/facts", {"statement": "s", "object": NUL}, "object"),
        ("POST", "/v1/procedures", {"name": "n", "trigger": "t", "steps": [NUL]}, "steps.0"),
        ("PUT", "/v1/blocks/persona", {"content": NUL}, "content"),
        ("PUT", "/v1/sessions/s1/kv/a%00b", {"value": 1}, "key"),
        ("POST", "/v1/sessions/s1/scratchpad", {"text": NUL}, "text"),
        ("PUT", "/v1/sessions/s1/task", {"task_id": NUL}, "task_id"),
        ("POST", "/v1/recall", {"query": NUL}, "query"),
        ("GET", "/v1/episodes/a%00b", None, "episode_id"),
        ("GET", "/v1/facts?subject=a%00b&predicate=p", None, "subject"),
    ],
)
async def test_nul_is_refused_naming_the_field_on_every_backend(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    method: str,
    path: str,
    body: dict[str, Any] | None,
    field: str,
) -> None:
    response = await client.request(method, path, json=body, headers=auth)
    problem = assert_problem(response, 422, field)
    assert problem["detail"] == f"{field}: contains a NUL character"
    # nothing was written
    assert (await client.get("/v1/episodes", headers=auth)).json()["items"] == []
    assert (await client.get("/v1/blocks", headers=auth)).json()["items"] == []
    assert (await client.get("/v1/sessions/s1/kv", headers=auth)).json()["items"] == {}
    assert (await client.get("/v1/sessions/s1/scratchpad", headers=auth)).json()["entries"] == []


async def test_json_values_keep_nul_on_every_backend(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    made = await client.post(
        "/v1/episodes", json={"description": "d", "metadata": {"note": NUL}}, headers=auth
    )
    assert made.status_code == 201, made.text
    episode = await client.get(f"/v1/episodes/{made.json()['id']}", headers=auth)
    assert episode.json()["metadata"] == {"note": NUL}
    assert (await client.put(KV, json={"value": [NUL]}, headers=auth)).status_code == 204
    assert (await client.get(KV, headers=auth)).json()["value"] == [NUL]
