"""Prometheus metrics of the work behind the routes: service operations, store and embedder
calls, records per tier, consolidation runs and lag, each moving with the requests made."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from sedimem.api import create_app
from sedimem.config import ServerSettings, Settings
from sedimem.embed import HashEmbedder
from sedimem.extraction.rules import RuleExtractor
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.longterm import Episode, Fact
from tests.api.conftest import ADMIN_KEY, bearer

_OPS = "sedimem_operation_duration_seconds_count"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    # recount records and lag at every scrape, so each scrape shows the requests before it
    return Settings(
        home=tmp_path,
        admin_key=SecretStr(ADMIN_KEY),
        server=ServerSettings(metrics_refresh_seconds=0),
    )


def value(text: str, series: str) -> float | None:
    """The sample of ``series`` (name and labels exactly as exported), or None."""
    found = re.search(rf"^{re.escape(series)} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else None


def total(text: str, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    result = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        wanted = all(f'{key}="{val}"' in line for key, val in labels.items())
        if wanted:
            result += float(line.rsplit(" ", 1)[1])
    return result


async def scrape(client: httpx.AsyncClient) -> str:
    response = await client.get("/metrics")
    assert response.status_code == 200
    return response.text


async def test_operations_store_and_embedder_calls_are_timed(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    before = await scrape(client)
    ops = "sedimem_operation_duration_seconds_count"
    assert value(before, f'{ops}{{operation="recall.episodes",outcome="ok"}}') is None

    episode = {"description": "Deployed the billing service to staging", "user": "ana"}
    assert (await client.post("/v1/episodes", json=episode, headers=auth)).status_code == 201
    turns = {"messages": [{"role": "user", "content": "I live in Porto"}], "user": "ana"}
    assert (await client.post("/v1/messages", json=turns, headers=auth)).status_code == 200
    query = {"query": "billing deploy", "user": "ana"}
    assert (await client.post("/v1/recall", json=query, headers=auth)).status_code == 200
    context = {**query, "session": "s-1", "budget_tokens": 500}
    assert (await client.post("/v1/context", json=context, headers=auth)).status_code == 200

    text = await scrape(client)
    # /v1/recall searches episodes, facts and procedures; /v1/context does it again
    for operation in ("recall.episodes", "recall.facts", "recall.procedures"):
        assert value(text, f'{ops}{{operation="{operation}",outcome="ok"}}') == 2.0, operation
    assert value(text, f'{ops}{{operation="assemble",outcome="ok"}}') == 1.0
    assert value(text, f'{ops}{{operation="ingest",outcome="ok"}}') == 1.0
    assert value(text, f'{ops}{{operation="record.episodes",outcome="ok"}}') == 1.0
    assert (
        'sedimem_operation_duration_seconds_bucket{le="10.0",operation="assemble",outcome="ok"} 1.0'
    ) in text

    calls = "sedimem_store_call_duration_seconds_count"
    assert total(text, calls, store="longterm", backend="sqlite", call="put") >= 1
    assert total(text, calls, store="longterm", backend="sqlite") > total(
        before, calls, store="longterm", backend="sqlite"
    )
    assert total(text, calls, store="longterm", backend="sqlite", call="fused_search") == 6
    # assembling for a session reads its working state: working-store calls
    assert total(text, calls, store="working", backend="sqlite", outcome="ok") >= 1
    embeds = "sedimem_embed_duration_seconds_count"
    assert total(text, embeds, outcome="ok") >= 4  # the episode, the turn, two queries
    assert total(text, embeds) > total(before, embeds)


async def test_a_failed_store_call_counts_as_an_error(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    missing = await client.get("/v1/episodes/no-such-episode", headers=auth)
    assert missing.status_code == 404
    text = await scrape(client)
    # the lookup itself answered (no row); nothing raised below the route
    assert total(text, "sedimem_store_call_duration_seconds_count", outcome="error") == 0
    assert total(text, "sedimem_store_call_duration_seconds_count", call="get") >= 1


async def test_records_per_tier_follow_the_writes(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    acme = await bearer(memory, "acme")
    globex = await bearer(memory, "globex")
    before = await scrape(client)
    assert value(before, 'sedimem_records{tier="episodes"}') == 0.0
    for headers, n in ((acme, 2), (globex, 1)):
        for i in range(n):
            body = {"description": f"episode {i}"}
            assert (await client.post("/v1/episodes", json=body, headers=headers)).is_success
    fact = {
        "statement": "Ana lives in Porto",
        "subject": "ana",
        "predicate": "lives_in",
        "object": "Porto",
    }
    assert (await client.post("/v1/facts", json=fact, headers=acme)).is_success
    moved = {**fact, "statement": "Ana lives in Lisbon", "object": "Lisbon"}
    assert (await client.post("/v1/facts", json=moved, headers=acme)).is_success

    text = await scrape(client)
    assert value(text, 'sedimem_records{tier="episodes"}') == 3.0  # both tenants
    # the other tiers: what the two tenants' own stats count, summed
    stats = [await memory.stats(Scope(tenant=tenant)) for tenant in ("acme", "globex")]
    assert stats[0].facts >= 2  # every version of the fact
    for tier in ("facts", "current_facts", "procedures"):
        assert value(text, f'sedimem_records{{tier="{tier}"}}') == sum(
            getattr(s, tier) for s in stats
        )
    assert value(text, f'{_OPS}{{operation="learn.fact",outcome="ok"}}') == 2.0


async def test_record_counts_are_cached_between_scrapes(
    memory: Memory, tmp_path: Path, auth: dict[str, str]
) -> None:
    settings = Settings(home=tmp_path, server=ServerSettings(metrics_refresh_seconds=3600))
    app = create_app(memory, settings)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://c") as c:
        assert value(await scrape(c), 'sedimem_records{tier="episodes"}') == 0.0
        body = {"description": "one"}
        assert (await c.post("/v1/episodes", json=body, headers=auth)).is_success
        # recounted at most once an hour: the figure of the first scrape stays
        assert value(await scrape(c), 'sedimem_records{tier="episodes"}') == 0.0
        assert (await memory.stats(Scope(tenant="acme"))).episodes == 1


async def test_consolidation_runs_and_lag(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    before = await scrape(client)
    assert "sedimem_consolidation_lag_seconds{" not in before  # nothing ever consolidated
    assert total(before, "sedimem_consolidation_jobs_total") == 0
    episode = {"description": "Deployed the billing service", "outcome": "success"}
    assert (await client.post("/v1/episodes", json=episode, headers=auth)).is_success

    first = await client.post("/v1/consolidate", json={}, headers=auth)
    assert first.status_code == 200, first.text
    jobs = [job["job"] for job in first.json()["jobs"]]
    text = await scrape(client)
    for job in jobs:
        assert value(text, f'sedimem_consolidation_jobs_total{{job="{job}",status="ok"}}') == 1.0
        lag = value(text, f'sedimem_consolidation_lag_seconds{{job="{job}"}}')
        assert lag is not None, job
        assert lag >= 0.0
    assert value(text, f'{_OPS}{{operation="consolidate.facts",outcome="ok"}}') == 1.0

    # a dry run changes nothing and is not a run
    dry = await client.post("/v1/consolidate", json={"dry_run": True}, headers=auth)
    assert dry.status_code == 200
    second = await client.post("/v1/consolidate", json={}, headers=auth)
    assert second.status_code == 200
    text = await scrape(client)
    for job in jobs:
        assert value(text, f'sedimem_consolidation_jobs_total{{job="{job}",status="ok"}}') == 2.0


async def test_operations_outside_a_request_are_not_counted(
    client: httpx.AsyncClient, memory: Memory, auth: dict[str, str]
) -> None:
    await memory.episodes.recall("anything", scope=Scope(tenant="acme"))
    text = await scrape(client)
    assert value(text, f'{_OPS}{{operation="recall.episodes",outcome="ok"}}') is None


class Exploding(RuleExtractor):
    """An extractor whose every call fails with an unexpected error."""

    async def extract(self, episode: Episode) -> list[Fact]:
        raise RuntimeError("the extractor broke")


async def test_a_failing_job_is_counted_and_its_lag_grows(
    tmp_path: Path, settings: Settings
) -> None:
    url = f"sqlite:///{tmp_path / 'failing.db'}"
    async with await Memory.open(
        url, embedder=HashEmbedder(64), extractor=Exploding(), settings=settings
    ) as memory:
        app = create_app(memory, settings)
        auth = await bearer(memory, "acme")
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(transport=transport, base_url="http://f") as client:
            episode = {"description": "Ana moved to Porto", "outcome": "success"}
            assert (await client.post("/v1/episodes", json=episode, headers=auth)).is_success
            ran = await client.post("/v1/consolidate", json={"jobs": ["facts"]}, headers=auth)
            assert ran.status_code == 200, ran.text
            assert ran.json()["jobs"][0]["status"] == "failed"
            text = await scrape(client)
    assert value(text, 'sedimem_consolidation_jobs_total{job="facts",status="failed"}') == 1.0
    assert value(text, 'sedimem_consolidation_jobs_total{job="facts",status="ok"}') is None
    # the job never succeeded: no lag figure for it (see docs/observability.md)
    assert 'sedimem_consolidation_lag_seconds{job="facts"}' not in text
    assert 'sedimem_consolidation_runs_total{dry_run="false",status="failed"} 1.0' in text


async def test_a_recount_that_fails_keeps_the_last_figures(tmp_path: Path) -> None:
    from sedimem.api.metrics import Backends, Metrics

    url = f"sqlite:///{tmp_path / 'closing.db'}"
    memory = await Memory.open(url, embedder=HashEmbedder(16))
    try:
        metrics = Metrics(Backends("sqlite", "sqlite"), lambda: False)
        await metrics.refresh(memory, 0)
        text = metrics.render().decode()
        assert value(text, 'sedimem_records{tier="episodes"}') == 0.0
        assert value(text, "sedimem_metrics_refresh_failures_total") == 0.0
        await memory.longterm_store.aclose()  # the store stops answering
        await metrics.refresh(memory, 0)
        text = metrics.render().decode()
        assert value(text, "sedimem_metrics_refresh_failures_total") == 1.0
        assert value(text, 'sedimem_records{tier="episodes"}') == 0.0
    finally:
        await memory.aclose()
