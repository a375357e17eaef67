"""Probes, metrics, and the tenant-wide operations: reflect, consolidate, stats, profile."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.consolidation import JOBS
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from tests.api.conftest import assert_problem, bearer


async def test_healthz_needs_nothing(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.json() == {"status": "ok", "pid": os.getpid()}


async def test_readyz_reports_the_backends(client: httpx.AsyncClient) -> None:
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {
        "status": "ready",
        "working": {"backend": "sqlite", "reachable": True, "fallback": False},
        "longterm": {"backend": "sqlite", "reachable": True, "fallback": None},
    }


async def test_readyz_is_503_when_the_longterm_store_does_not_answer(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    await memory.longterm_store.aclose()  # a store that is gone answers nothing
    response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["longterm"]["reachable"] is False
    assert response.json()["working"]["reachable"] is True


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def degraded(tmp_path: Path, settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """An app whose working memory is Redis that cannot be reached: it runs on the fallback."""
    redis_url = f"redis://127.0.0.1:{_closed_port()}/0"
    store_url = f"sqlite:///{tmp_path / 'lt.db'}"
    async with await Memory.open(
        working=redis_url, store=store_url, embedder=HashEmbedder(64), settings=settings
    ) as memory:
        transport = httpx.ASGITransport(create_app(memory, settings))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            yield client


async def test_readyz_reports_the_fallback(degraded: httpx.AsyncClient) -> None:
    response = await degraded.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "degraded"
    # the truth: Redis does not answer; the fallback serves in its place
    assert body["working"] == {"backend": "redis", "reachable": False, "fallback": True}
    metrics = (await degraded.get("/metrics")).text
    assert 'sedimem_working_fallback{backend="redis"} 1.0' in metrics


async def test_reflect(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    for outcome in ("success", "failure", "success"):
        episode = {"description": "deploy", "outcome": outcome, "actions": ["build", "ship"]}
        await client.post("/v1/episodes", json=episode, headers=auth)
    report = await client.post("/v1/reflect", json={"baseline_days": 30}, headers=auth)
    assert report.status_code == 200, report.text
    assert report.json()["episodes_analyzed"] == 3
    window = await client.post(
        "/v1/reflect",
        json={"since": "2000-01-01T00:00:00Z", "task_types": ["general"]},
        headers=auth,
    )
    assert window.json()["patterns"]["overall"]["total"] == 3
    short = await client.post("/v1/reflect", json={"baseline_days": 1}, headers=auth)
    assert_problem(short, 422, "baseline_days")


async def test_consolidate(client: httpx.AsyncClient, auth: dict[str, str], memory: Memory) -> None:
    await client.post(
        "/v1/episodes",
        json={"description": "Ana moved to Oslo", "lessons_learned": ["trains are cheaper"]},
        headers=auth,
    )
    dry = await client.post("/v1/consolidate", json={"dry_run": True}, headers=auth)
    assert dry.json()["dry_run"] is True
    assert dry.json()["tenant"] == "acme"
    run = await client.post("/v1/consolidate", headers=auth)
    assert [job["job"] for job in run.json()["jobs"]] == list(JOBS)
    one = await client.post("/v1/consolidate", json={"jobs": ["decay"]}, headers=auth)
    assert [job["job"] for job in one.json()["jobs"]] == ["decay"]
    narrowed = await bearer(memory, user="ana")
    assert_problem(await client.post("/v1/consolidate", headers=narrowed), 403)
    metrics = (await client.get("/metrics")).text
    assert 'sedimem_consolidation_runs_total{dry_run="true",status="ok"} 1.0' in metrics
    assert 'sedimem_consolidation_runs_total{dry_run="false",status="ok"} 2.0' in metrics


async def test_stats_and_profile(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    episode = {"description": "d", "user": "ana", "session": "s1"}
    await client.post("/v1/episodes", json=episode, headers=auth)
    stats = (await client.get("/v1/stats", params={"user": "ana"}, headers=auth)).json()
    assert stats["tenant"] == "acme"
    assert stats["episodes"] == 1
    assert stats["working_backend"] == "sqlite"
    profile = await client.get("/v1/profile", params={"user": "ana", "sample": 0}, headers=auth)
    assert profile.json()["recent_sessions"] == ["s1"]
    bad = await client.get("/v1/profile", params={"sample": 101}, headers=auth)
    assert assert_problem(bad, 422, "sample")["allowed"] == "0..100"


async def test_readyz_when_working_memory_does_not_answer(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    await memory.working_store.aclose()
    response = await client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["working"]["reachable"] is False


async def test_stats_of_the_tenant_count_every_user_and_add_up(
    client: httpx.AsyncClient, memory: Memory, auth: dict[str, str]
) -> None:
    for user, session in (("ana", "s1"), ("ana", "s2"), ("bo", "s1")):
        episode = {"description": "a trip", "user": user, "session": session}
        assert (await client.post("/v1/episodes", json=episode, headers=auth)).status_code == 201
    await client.post("/v1/episodes", json={"description": "shared"}, headers=auth)
    tenant = (await client.get("/v1/stats", headers=auth)).json()
    assert (tenant["episodes"], tenant["user"], tenant["by_user"]) == (4, None, None)
    split = (await client.get("/v1/stats", params={"by_user": "true"}, headers=auth)).json()
    assert [(u["user"], u["episodes"]) for u in split["by_user"]] == [
        (None, 1),
        ("ana", 2),
        ("bo", 1),
    ]
    assert split["episodes"] == sum(u["episodes"] for u in split["by_user"])
    # a key narrowed to a user sees its own view, whatever it asks for
    ana_key = await bearer(memory, "acme", user="ana")
    ana = (await client.get("/v1/stats", params={"by_user": "true"}, headers=ana_key)).json()
    assert (ana["user"], ana["episodes"]) == ("ana", 3)
    assert [(u["user"], u["episodes"]) for u in ana["by_user"]] == [(None, 1), ("ana", 2)]
    assert (
        await client.get("/v1/stats", params={"user": "bo"}, headers=ana_key)
    ).status_code == 403
    profile = (await client.get("/v1/profile", headers=auth)).json()
    assert (profile["episodes"], sorted(profile["recent_sessions"])) == (4, ["s1", "s2"])
