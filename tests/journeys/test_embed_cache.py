"""Journey: ``sedimem serve`` with ``SEDIMEM_EMBEDDER=openai`` (the scripted server process)
asks the endpoint once per distinct text: repeated recalls and identical writes are served
from the embedder's cache, and ``/metrics`` counts the hits and misses. The same calls with
the cache off send every text each time."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from sedimem.testing import SedimemServer
from sedimem.testing.llm_server import ScriptedLLMServer

pytestmark = pytest.mark.slow  # two server processes start (~15-40 s on a busy machine)

QUESTION = "where does Ana live now"
NOTE = "Ana moved from Lisbon to Oslo in March"


def metric(text: str, name: str) -> float:
    found = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    assert found is not None, f"{name} not in /metrics"
    return float(found.group(1))


def workload(server: ScriptedLLMServer, home: Path, cache_size: int) -> tuple[list[str], str]:
    """Two identical writes and three identical recalls through a real server process; the
    texts the endpoint was sent for them, and the server's /metrics."""
    env = {
        "SEDIMEM_HOME": str(home),
        "SEDIMEM_EMBEDDER": "openai",
        "SEDIMEM_EMBEDDER_URL": server.base_url,
        "SEDIMEM_EMBEDDER_MODEL": "embed-model",
        "SEDIMEM_EMBEDDER_CACHE_SIZE": str(cache_size),
    }
    with SedimemServer(env=env) as serve:
        key = serve.printed_key
        assert key is not None
        started = len(server.requests("embeddings"))  # the dimension probe at start
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=serve.url, headers=headers, timeout=60) as client:
            for _ in range(2):  # the same note filed twice (a retried request, say)
                stored = client.post("/v1/episodes", json={"description": NOTE, "user": "ana"})
                assert stored.status_code == 201, stored.text
            for _ in range(3):
                found = client.post("/v1/recall", json={"query": QUESTION, "user": "ana"})
                assert found.status_code == 200, found.text
                assert found.json()["episodes"][0]["record"]["description"] == NOTE
            text = client.get("/metrics").text
    sent = [t for r in server.requests("embeddings")[started:] for t in r["body"]["input"]]
    return sent, text


def test_repeated_recalls_and_identical_writes_reach_the_endpoint_once(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    sent, text = workload(llm_server, tmp_path / "cached", 10_000)
    assert sorted(set(sent)) == sorted(sent)  # no text sent twice
    assert sent.count(NOTE) == 1
    assert sent.count(QUESTION) == 1
    hits = metric(text, "sedimem_embed_cache_hits_total")
    misses = metric(text, "sedimem_embed_cache_misses_total")
    assert misses == len(sent)
    assert hits >= 3  # the second write and the second and third recalls at least
    assert metric(text, "sedimem_embed_cache_entries") == len(sent)

    llm_server.reset()
    uncached, text = workload(llm_server, tmp_path / "uncached", 0)
    assert uncached.count(NOTE) == 2
    assert uncached.count(QUESTION) >= 3  # (each tier of a recall asks on its own: 9)
    assert len(uncached) >= len(sent) + 3
    assert "sedimem_embed_cache_hits_total" not in text
