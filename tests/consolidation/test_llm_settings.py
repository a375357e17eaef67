"""Memory opened from settings with the LLM extractor and the OpenAI-compatible embedder,
both served by the scripted server process: the facts job extracts through it, reports
model calls, tokens and failed extractions, and never loses an episode."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from sedimem.access import Access
from sedimem.config import Settings
from sedimem.consolidation import OpenAIChatExtractor
from sedimem.embed import HashEmbedder
from sedimem.embed.openai import OpenAIEmbedder
from sedimem.errors import ConfigurationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.llm_server import ScriptedLLMServer
from sedimem.types.longterm import Episode

SCOPE = Scope(tenant="t", user="ana", session="s1")
GOOD_TEA = json.dumps(
    {
        "facts": [
            {
                "statement": "Ana likes tea.",
                "subject": "Ana",
                "predicate": "likes",
                "object": "tea",
                "confidence": 0.9,
            }
        ]
    }
)


def reply(*facts: tuple[str, str, str]) -> dict[str, Any]:
    items = [
        {
            "statement": f"{s} {p.replace('_', ' ')} {o}.",
            "subject": s,
            "predicate": p,
            "object": o,
            "confidence": 0.9,
        }
        for s, p, o in facts
    ]
    return {"content": json.dumps({"facts": items})}


def settings_for(server: ScriptedLLMServer, home: Path, **more: Any) -> Settings:
    return Settings(
        home=home,
        llm_url=server.base_url,
        llm_model="chat-model",
        llm_max_retries=1,
        embedder="openai",
        embedder_url=server.base_url,
        embedder_model="embed-model",
        **more,
    )


async def test_the_facts_job_extracts_through_the_configured_llm(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    async with await Memory.open(settings=settings_for(llm_server, tmp_path)) as memory:
        assert isinstance(memory.embedder, OpenAIEmbedder)
        assert memory.embedder.name == "openai/embed-model"
        assert memory.embedder.dimension == llm_server.dimension  # asked once, at open
        assert isinstance(memory.extractor, OpenAIChatExtractor)
        assert set(memory.model_usage()) == {"chat", "embedding"}
        first = await memory.episodes.record(
            Episode(scope=SCOPE, description="Ana said she moved to Oslo")
        )
        second = await memory.episodes.record(
            Episode(scope=SCOPE, description="Ana said something the model garbles")
        )
        llm_server.script_chat(
            reply(("Ana", "lives_in", "Oslo")),
            {"content": '{"facts": [{"statement": "Ana'},  # truncated
            {"content": "Sorry, I cannot help with that."},  # no JSON
        )
        report = await memory.consolidate(Access.local("t"), jobs=["facts"])
        job = report.job("facts")
        assert job.status == "ok"  # a failed extraction does not fail the job
        assert job.counts_in["episodes"] == 2
        assert job.counts_out == {"inserted": 1, "extraction_failed": 1}
        assert job.counts_in["llm_requests"] == 3
        assert job.counts_in["llm_invalid_replies"] == 2
        assert job.counts_in["llm_prompt_tokens"] > 0
        assert job.counts_in["llm_completion_tokens"] > 0
        (warning,) = job.warnings
        assert second.id in warning
        assert "not valid facts JSON after 2 attempt(s)" in warning
        # the episodes are stored, failed extraction or not; the fact carries provenance
        stats = await memory.stats(Scope(tenant="t", user="ana"))
        assert (stats.episodes, stats.current_facts) == (2, 1)
        facts = await memory.facts.recall("where does Ana live", scope=SCOPE.owner)
        assert [f.record.statement for f in facts] == ["Ana lives in Oslo."]
        assert facts[0].record.source_episode_ids == [first.id]
        assert memory.model_usage()["chat"].usage.requests == 3
        assert memory.model_usage()["embedding"].usage.requests >= 3
        # the run log keeps the report, warnings included
        (logged,) = await memory.consolidator.runs("t", job="facts")
        assert logged.warnings == job.warnings
    bodies = [r["body"] for r in llm_server.requests("embeddings")]
    assert all(b["model"] == "embed-model" for b in bodies)


async def test_an_unreachable_llm_fails_the_job_and_the_next_run_resumes(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    async with await Memory.open(settings=settings_for(llm_server, tmp_path)) as memory:
        await memory.episodes.record(Episode(scope=SCOPE, description="Ana likes tea"))
        llm_server.script_chat({"status": 500}, {"status": 503})
        failed = (await memory.consolidate(Access.local("t"), jobs=["facts"])).job("facts")
        assert failed.status == "failed"
        assert "ModelUnavailable" in (failed.error or "")
        assert failed.counts_in["llm_failures"] == 1
        assert failed.counts_in["llm_retries"] == 1
        llm_server.script_chat(reply(("Ana", "likes", "tea")))
        again = (await memory.consolidate(Access.local("t"), jobs=["facts"])).job("facts")
        assert again.status == "ok"
        assert again.counts_out == {"inserted": 1}


async def test_a_store_written_by_another_embedder_is_refused(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'sedimem.db'}"
    async with await Memory.open(url, embedder=HashEmbedder(64)):
        pass
    with pytest.raises(ConfigurationError, match="embedder"):
        await Memory.open(settings=settings_for(llm_server, tmp_path))
    # the hash embedder from settings, with the dimension that wrote the store, opens it
    async with await Memory.open(
        settings=Settings(home=tmp_path, embedder="hash", embedder_dimension=64)
    ) as memory:
        assert memory.embedder.name == "sedimem/hash-v1-64"
        assert memory.extractor is None
        assert memory.model_usage() == {}


async def test_an_unreachable_embedder_fails_the_open(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path,
        embedder="openai",
        embedder_url="http://127.0.0.1:1/v1",
        embedder_model="m",
        embedder_max_retries=0,
    )
    with pytest.raises(Exception, match="embedding endpoint"):
        await Memory.open(settings=settings)


async def test_a_call_slower_than_the_lease_ttl_keeps_the_lease(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    from sedimem.consolidation import ConsolidationSettings, Consolidator

    async with await Memory.open(settings=settings_for(llm_server, tmp_path)) as memory:
        await memory.episodes.record(Episode(scope=SCOPE, description="Ana likes tea"))
        # one reply slower than the whole TTL: only renewal while it waits keeps the lease
        llm_server.default_chat({"content": '{"facts": []}', "delay": 2.4})

        def consolidator(extractor: OpenAIChatExtractor | None) -> Consolidator:
            return Consolidator(
                memory.longterm_store,
                memory.episodes,
                memory.facts,
                memory.procedures,
                settings=ConsolidationSettings(lease_ttl_seconds=1.5),
                extractor=extractor,
            )

        slow = asyncio.create_task(consolidator(memory.extractor).run("t", ["facts"]))  # type: ignore[arg-type]
        await asyncio.sleep(1.9)  # past the TTL, mid-call
        other = await consolidator(None).run("t", ["facts"])
        assert other.job("facts").status == "skipped"
        done = (await slow).job("facts")
        assert done.status == "ok"
        assert done.counts_in["episodes"] == 1
        assert len(llm_server.requests("chat")) == 1  # the second worker asked nothing


async def test_a_lease_taken_over_mid_call_fails_the_run_fenced(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    from sedimem.consolidation import ConsolidationSettings, Consolidator
    from sedimem.consolidation.lease import Leases

    async with await Memory.open(settings=settings_for(llm_server, tmp_path)) as memory:
        await memory.episodes.record(Episode(scope=SCOPE, description="Ana likes tea"))
        llm_server.default_chat({"content": GOOD_TEA, "delay": 1.2})
        consolidator = Consolidator(
            memory.longterm_store,
            memory.episodes,
            memory.facts,
            memory.procedures,
            settings=ConsolidationSettings(lease_ttl_seconds=0.6),  # a beat every 0.2 s
            extractor=memory.extractor,
        )
        slow = asyncio.create_task(consolidator.run("t", ["facts"]))
        await asyncio.sleep(0.3)
        # another worker whose clock says the lease expired long ago takes it over; the
        # next beat finds it lost and stops renewing
        leases = Leases(memory.longterm_store, 60.0)
        taken, _ = await leases.acquire("t", "facts", "intruder", time.time() + 3600)
        assert taken
        done = (await slow).job("facts")
        assert done.status == "failed"
        assert "taken over" in (done.error or "")
        assert done.counts_out == {"inserted": 1}  # learned, but the cursor did not move
