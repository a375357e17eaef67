"""Prometheus metrics: per-app registry, request counts and latencies per route template."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi import FastAPI

from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.memory import Memory
from sedimem.testing.llm_server import ScriptedLLMServer
from tests.api.conftest import bearer


async def test_counters_after_requests(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    episode = await client.post("/v1/episodes", json={"description": "d"}, headers=auth)
    await client.get(f"/v1/episodes/{episode.json()['id']}", headers=auth)
    await client.get("/v1/episodes/missing", headers=auth)
    await client.put("/v1/sessions/s/kv/k", json={"value": 1}, headers=auth)
    await client.get("/no/such/thing")
    await client.get("/openapi.json")
    response = await client.get("/metrics")
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    for line in (
        'sedimem_http_requests_total{backend="sqlite",method="POST",operation="/v1/episodes",'
        'status="201"} 1.0',
        'sedimem_http_requests_total{backend="sqlite",method="GET",'
        'operation="/v1/episodes/{episode_id}",status="404"} 1.0',
        'sedimem_http_requests_total{backend="sqlite",method="PUT",'
        'operation="/v1/sessions/{session}/kv/{key}",status="204"} 1.0',
        'sedimem_http_requests_total{backend="none",method="GET",operation="unmatched",'
        'status="404"} 1.0',
        'sedimem_http_requests_total{backend="none",method="GET",operation="/openapi.json",'
        'status="200"} 1.0',
        'sedimem_working_fallback{backend="sqlite"} 0.0',
    ):
        assert line in text, line
    assert "sedimem_llm_" not in text  # no model endpoint configured: no such series
    assert "sedimem_embed_cache" not in text  # nor an embedder with a cache
    assert (
        'sedimem_http_request_duration_seconds_bucket{backend="sqlite",le="0.005",'
        'method="POST",operation="/v1/episodes"}' in text
    )
    assert "sedimem_consolidation_runs_total" in text.replace("# TYPE ", "")


async def test_each_app_counts_alone(memory: Memory, settings: Settings, app: FastAPI) -> None:
    other = create_app(memory, settings)
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://a") as a,
        httpx.AsyncClient(transport=httpx.ASGITransport(other), base_url="http://b") as b,
    ):
        await a.get("/healthz")
        await a.get("/healthz")
        await b.get("/healthz")
        assert 'operation="/healthz",status="200"} 2.0' in (await a.get("/metrics")).text
        assert 'operation="/healthz",status="200"} 1.0' in (await b.get("/metrics")).text


def test_model_calls_are_exported_per_endpoint() -> None:
    from sedimem.api.metrics import Backends, Metrics
    from sedimem.consolidation import OpenAIChatExtractor
    from sedimem.embed.openai import OpenAIEmbedder

    chat = OpenAIChatExtractor("http://127.0.0.1:1/v1", "m")
    embedding = OpenAIEmbedder("http://127.0.0.1:1/v1", "e", dimension=4)
    chat.usage.add(requests=5, retries=2, failures=1, invalid_replies=1, prompt_tokens=70)
    chat.usage.add(completion_tokens=9)
    embedding.usage.add(requests=3, prompt_tokens=12)
    metrics = Metrics(
        Backends("sqlite", "sqlite"), lambda: False, lambda: {"chat": chat, "embedding": embedding}
    )
    text = metrics.render().decode()
    for line in (
        'sedimem_llm_requests_total{endpoint="chat"} 5.0',
        'sedimem_llm_requests_total{endpoint="embedding"} 3.0',
        'sedimem_llm_retries_total{endpoint="chat"} 2.0',
        'sedimem_llm_failures_total{endpoint="chat"} 1.0',
        'sedimem_llm_invalid_replies_total{endpoint="chat"} 1.0',
        'sedimem_llm_tokens_total{endpoint="chat",kind="prompt"} 70.0',
        'sedimem_llm_tokens_total{endpoint="chat",kind="completion"} 9.0',
        'sedimem_llm_tokens_total{endpoint="embedding",kind="prompt"} 12.0',
    ):
        assert line in text, line
    chat.usage.add(requests=1)  # read at scrape time
    assert 'sedimem_llm_requests_total{endpoint="chat"} 6.0' in metrics.render().decode()


async def test_the_embedders_cache_is_counted(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    """Repeated recalls and an identical write through the REST app of a Memory whose
    embedder is the OpenAI-compatible one (the scripted server process), cache on."""
    from sedimem.embed.openai import OpenAIEmbedder

    embedder = OpenAIEmbedder(llm_server.base_url, "embed-model", dimension=16, cache_size=100)
    settings = Settings(home=tmp_path)
    memory = await Memory.open(
        f"sqlite:///{tmp_path / 'm.db'}", settings=settings, embedder=embedder
    )
    try:
        app = create_app(memory, settings)
        headers = await bearer(memory)
        transport = httpx.ASGITransport(app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://t", headers=headers
        ) as c:
            for _ in range(2):
                await c.post("/v1/episodes", json={"description": "Ana lives in Oslo"})
            for _ in range(3):
                found = await c.post("/v1/recall", json={"query": "where does Ana live"})
                assert found.status_code == 200, found.text
            text = (await c.get("/metrics")).text
    finally:
        await memory.aclose()
        await embedder.aclose()
    sent = [t for r in llm_server.requests("embeddings") for t in r["body"]["input"]]
    assert sent.count("Ana lives in Oslo") == 1
    assert sent.count("where does Ana live") == 1
    counts = embedder.cache.counts()
    assert f"sedimem_embed_cache_hits_total {float(counts.hits)}" in text
    assert f"sedimem_embed_cache_misses_total {float(counts.misses)}" in text
    assert f"sedimem_embed_cache_entries {float(counts.entries)}" in text
    assert counts.hits >= 3 + 2  # the second write, the later recalls, the tiers that waited
