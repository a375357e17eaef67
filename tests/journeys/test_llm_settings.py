"""Journey: one set of SEDIMEM_* settings puts the LLM extractor and the OpenAI-compatible
embedder (the scripted server process) behind every interface: ``sedimem serve`` (REST
consolidation and ``/metrics``), ``sedimem mcp`` with ``sedimem consolidate``, and
``sedimem worker``, each a real process."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from sedimem.config import load_settings
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing import SedimemServer
from sedimem.testing.llm_server import ScriptedLLMServer
from sedimem.types.longterm import Episode
from tests.mcp.conftest import data_of

pytestmark = pytest.mark.slow


def fact_reply(subject: str, predicate: str, obj: str) -> dict[str, Any]:
    statement = f"{subject} {predicate.replace('_', ' ')} {obj}."
    item = {
        "statement": statement,
        "subject": subject,
        "predicate": predicate,
        "object": obj,
        "confidence": 0.9,
    }
    return {"content": json.dumps({"facts": [item]})}


def llm_env(server: ScriptedLLMServer) -> dict[str, str]:
    return {
        "SEDIMEM_LLM_URL": server.base_url,
        "SEDIMEM_LLM_MODEL": "chat-model",
        "SEDIMEM_LLM_API_KEY": "llm-secret",
        "SEDIMEM_LLM_MAX_RETRIES": "1",
        "SEDIMEM_EMBEDDER": "openai",
        "SEDIMEM_EMBEDDER_URL": server.base_url,
        "SEDIMEM_EMBEDDER_MODEL": "embed-model",
    }


@pytest.fixture
def serve(llm_server: ScriptedLLMServer) -> Iterator[SedimemServer]:
    with SedimemServer(env=llm_env(llm_server)) as running:
        yield running


def metric(text: str, name: str, **labels: str) -> float:
    wanted = ",".join(f'{k}="{v}"' for k, v in labels.items())
    found = re.search(rf"^{name}\{{{re.escape(wanted)}\}} (\S+)$", text, re.MULTILINE)
    assert found is not None, f"{name}{{{wanted}}} not in /metrics"
    return float(found.group(1))


def test_serve_extracts_through_the_configured_llm_and_reports_it(
    llm_server: ScriptedLLMServer, serve: SedimemServer
) -> None:
    key = serve.printed_key
    assert key is not None
    headers = {"Authorization": f"Bearer {key}"}
    with httpx.Client(base_url=serve.url, headers=headers, timeout=60) as client:
        stored = client.post(
            "/v1/episodes", json={"description": "Ana told us she moved to Oslo", "user": "ana"}
        )
        assert stored.status_code == 201, stored.text
        llm_server.script_chat(fact_reply("Ana", "lives_in", "Oslo"))
        done = client.post("/v1/consolidate", json={"jobs": ["facts"]})
        assert done.status_code == 200, done.text
        (job,) = done.json()["jobs"]
        assert job["status"] == "ok"
        assert job["counts_out"] == {"inserted": 1}
        assert job["counts_in"]["llm_requests"] == 1
        (request,) = llm_server.requests("chat")
        assert request["authorization"] == "Bearer llm-secret"
        assert request["body"]["model"] == "chat-model"
        assert request["body"]["response_format"]["type"] == "json_schema"
        assert "moved to Oslo" in request["body"]["messages"][1]["content"]

        # a reply that stays invalid: the episode is stored, the failure reported, no 5xx
        garbled = client.post(
            "/v1/episodes", json={"description": "Ana mumbled something", "user": "ana"}
        )
        assert garbled.status_code == 201
        llm_server.script_chat({"content": "{not json"}, {"content": '{"facts": [{"sta'})
        done = client.post("/v1/consolidate", json={"jobs": ["facts"]})
        assert done.status_code == 200, done.text
        (job,) = done.json()["jobs"]
        assert job["status"] == "ok"
        assert job["counts_out"] == {"extraction_failed": 1}
        assert job["counts_in"]["llm_invalid_replies"] == 2
        assert garbled.json()["id"] in job["warnings"][0]
        assert client.get(f"/v1/episodes/{garbled.json()['id']}").status_code == 200

        recall = client.post("/v1/recall", json={"query": "where does Ana live", "user": "ana"})
        assert recall.status_code == 200
        assert [h["record"]["statement"] for h in recall.json()["facts"]] == ["Ana lives in Oslo."]

        text = client.get("/metrics").text
    assert metric(text, "sedimem_llm_requests_total", endpoint="chat") == 3
    assert metric(text, "sedimem_llm_invalid_replies_total", endpoint="chat") == 2
    assert metric(text, "sedimem_llm_failures_total", endpoint="chat") == 0
    assert metric(text, "sedimem_llm_tokens_total", endpoint="chat", kind="prompt") > 0
    assert metric(text, "sedimem_llm_tokens_total", endpoint="chat", kind="completion") > 0
    assert metric(text, "sedimem_llm_requests_total", endpoint="embedding") >= 3
    assert metric(text, "sedimem_llm_tokens_total", endpoint="embedding", kind="prompt") > 0
    embedded = llm_server.requests("embeddings")
    assert {r["body"]["model"] for r in embedded} == {"embed-model"}


async def test_mcp_and_the_cli_use_the_same_settings(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    env = {"SEDIMEM_HOME": str(tmp_path), **llm_env(llm_server)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "sedimem", "mcp"], env={**os.environ, **env}
    )
    async with Client(params) as client:
        stored = data_of(
            await client.call_tool(
                "remember",
                {"kind": "episode", "text": "Ana adopted a dog named Rex", "format": "json"},
            )
        )
        embedded = len(llm_server.requests("embeddings"))
        assert embedded >= 2  # the dimension probe at start, then the episode
        llm_server.script_chat(fact_reply("Ana", "has_dog", "Rex"))
        consolidate = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "sedimem", "consolidate", "--tenant", "default"],
            env={**os.environ, **env, "COLUMNS": "200"},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert consolidate.returncode == 0, consolidate.stderr
        assert "inserted=1" in consolidate.stdout
        assert "llm_requests=1" in consolidate.stdout
        found = data_of(await client.call_tool("recall", {"query": "Ana's dog", "format": "json"}))
        assert [h["record"]["statement"] for h in found["facts"]] == ["Ana has dog Rex."]
        assert found["facts"][0]["record"]["source_episode_ids"] == [stored["id"]]
    assert len(llm_server.requests("embeddings")) > embedded
    assert len(llm_server.requests("chat")) == 1


def test_mcp_and_worker_refuse_a_bad_setting_by_name(tmp_path: Path) -> None:
    env = {**os.environ, "SEDIMEM_HOME": str(tmp_path), "SEDIMEM_LLM_URL": "http://x/v1"}
    for command in ("mcp", "worker"):
        done = subprocess.run(
            [sys.executable, "-m", "sedimem", command],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 1
        assert "SEDIMEM_LLM_MODEL is required" in done.stderr


def test_the_worker_extracts_on_schedule_until_interrupted(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    env = {"SEDIMEM_HOME": str(tmp_path), **llm_env(llm_server)}
    named = {k.removeprefix("SEDIMEM_").lower(): v for k, v in env.items()}
    settings = load_settings(**named)
    scope = Scope(tenant="acme", user="ana")

    async def record() -> None:
        async with await Memory.open(settings=settings) as memory:
            await memory.episodes.record(Episode(scope=scope, description="Ana works at Globex"))

    async def learned() -> list[str]:
        async with await Memory.open(settings=settings) as memory:
            hits = await memory.facts.recall("where does Ana work", scope=scope)
        return [h.record.statement for h in hits]

    asyncio.run(record())
    llm_server.default_chat(fact_reply("Ana", "works_at", "Globex"))
    worker = subprocess.Popen(
        [sys.executable, "-m", "sedimem", "worker", "--tenant", "acme", "--interval", "0.5"],
        env={**os.environ, **env, "COLUMNS": "200"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not llm_server.requests("chat") and time.monotonic() < deadline:
            assert worker.poll() is None, worker.stdout.read() if worker.stdout else ""
            time.sleep(0.1)
        time.sleep(1.5)  # a few more rounds: nothing new to extract
    finally:
        worker.send_signal(signal.SIGINT)
        output, _ = worker.communicate(timeout=60)
    assert worker.returncode == 0, output
    assert "consolidating acme every 0.5 s (facts: LLM" in output
    assert "embedder: openai/embed-model" in output
    assert re.search(r"stopped after [1-9]\d* round", output)
    assert len(llm_server.requests("chat")) == 1  # each episode once
    assert asyncio.run(learned()) == ["Ana works at Globex."]
