"""The chat extractor against the scripted OpenAI-compatible server process."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sedimem.config import Settings
from sedimem.consolidation import OpenAIChatExtractor
from sedimem.errors import ConfigurationError, ExtractionFailed, ModelError, ModelUnavailable
from sedimem.extraction.llm import parse_facts
from sedimem.scope import Scope
from sedimem.testing.llm_server import ScriptedLLMServer
from sedimem.types.longterm import Episode

LISBON = {
    "statement": "Ana lives in Lisbon.",
    "subject": "Ana",
    "predicate": "lives_in",
    "object": "Lisbon",
    "confidence": 0.9,
}
FRIENDLY = {
    "statement": "Ana is friendly.",
    "subject": None,
    "predicate": None,
    "object": None,
    "confidence": 0.5,
}
GOOD = json.dumps({"facts": [LISBON, FRIENDLY]})

EPISODE = Episode(
    description="Talked with Ana about her move.",
    input_text="I moved to Lisbon",
    scope=Scope(project="p", session="s"),
)


def extractor(server: ScriptedLLMServer, **options: Any) -> OpenAIChatExtractor:
    options.setdefault("retry_wait", 0)
    return OpenAIChatExtractor(server.base_url, "m", **options)


async def test_valid_answer_becomes_facts_with_provenance_and_usage(
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.script_chat({"content": GOOD})
    async with extractor(llm_server, api_key="k", max_tokens=300) as x:
        facts = await x.extract(EPISODE)
        usage = x.usage
    assert [f.statement for f in facts] == ["Ana lives in Lisbon.", "Ana is friendly."]
    assert facts[0].predicate == "lives_in"
    assert facts[0].confidence == 0.9
    assert facts[1].subject is None
    assert all(f.source_episode_ids == [EPISODE.id] for f in facts)
    assert all(f.scope == Scope(project="p") for f in facts)
    (request,) = llm_server.requests("chat")
    body = request["body"]
    assert body["model"] == "m"
    assert body["max_tokens"] == 300
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["facts"]
    assert "I moved to Lisbon" in body["messages"][1]["content"]
    assert request["authorization"] == "Bearer k"
    assert usage.requests == 1
    assert usage.retries == 0
    assert usage.prompt_tokens > 10  # the scripted server counts the prompt's words
    assert usage.completion_tokens == len(GOOD.split())


@pytest.mark.parametrize(
    "content",
    [
        "```json\n" + GOOD + "\n```",
        "Here are the facts:\n" + GOOD + "\nHope this helps.",
        json.dumps([LISBON, FRIENDLY]),  # a bare list
        json.dumps({"facts": [{**LISBON, "why": "said so"}, FRIENDLY]}),  # unknown keys
    ],
)
def test_tolerant_parsing_finds_the_facts(content: str) -> None:
    facts, dropped = parse_facts(content)
    assert [f.statement for f in facts] == ["Ana lives in Lisbon.", "Ana is friendly."]
    assert dropped == 0


def test_an_invalid_fact_is_dropped_the_valid_ones_kept() -> None:
    content = json.dumps({"facts": [LISBON, {"statement": "", "confidence": 3}, "x"]})
    facts, dropped = parse_facts(content)
    assert [f.statement for f in facts] == ["Ana lives in Lisbon."]
    assert dropped == 2
    assert parse_facts('{"facts": []}') == ([], 0)


@pytest.mark.parametrize(
    "bad",
    [
        "not json {",
        '{"facts": [{"statement": "Ana lives in Lis',  # truncated
        json.dumps({"facts": [{"statement": "x", "confidence": 3}]}),  # only invalid facts
        json.dumps({"facts": "nope"}),
        json.dumps({"other": []}),
        "no JSON at all",
    ],
)
async def test_an_invalid_reply_is_asked_for_again(llm_server: ScriptedLLMServer, bad: str) -> None:
    llm_server.script_chat({"content": bad}, {"content": GOOD})
    async with extractor(llm_server) as x:
        facts = await x.extract(EPISODE)
        assert x.usage.invalid_replies == 1
    assert len(facts) == 2
    assert len(llm_server.requests("chat")) == 2


async def test_invalid_after_the_retries_raises_extraction_failed(
    llm_server: ScriptedLLMServer,
) -> None:
    truncated = {"content": '{"facts": [{"statement": "Ana', "finish_reason": "length"}
    llm_server.script_chat(truncated, truncated, truncated)
    async with extractor(llm_server, invalid_retries=2, max_tokens=64) as x:
        with pytest.raises(ExtractionFailed) as failed:
            await x.extract(EPISODE)
        assert x.usage.invalid_replies == 3
    assert failed.value.attempts == 3
    assert EPISODE.id in str(failed.value)
    assert "truncated" in str(failed.value)
    assert "max_tokens=64" in str(failed.value)
    assert len(llm_server.requests("chat")) == 3


async def test_429_waits_what_retry_after_asks(llm_server: ScriptedLLMServer) -> None:
    llm_server.script_chat(
        {"status": 429, "headers": {"Retry-After": "1"}},
        {"status": 503, "headers": {"Retry-After": "1"}},
        {"content": GOOD},
    )
    async with extractor(llm_server) as x:  # retry_wait=0: only Retry-After makes it wait
        assert len(await x.extract(EPISODE)) == 2
        assert (x.usage.requests, x.usage.retries, x.usage.failures) == (3, 2, 0)
    times = [r["at"] for r in llm_server.requests("chat")]
    assert len(times) == 3
    assert times[1] - times[0] >= 0.9
    assert times[2] - times[1] >= 0.9


async def test_a_retry_after_past_the_cap_is_not_waited_for(
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.script_chat({"status": 429, "headers": {"Retry-After": "3600"}})
    async with extractor(llm_server, max_retry_after=5) as x:
        with pytest.raises(ModelUnavailable, match="asked to retry after 3600 s"):
            await x.extract(EPISODE)
        assert x.usage.failures == 1
    assert len(llm_server.requests("chat")) == 1


async def test_a_reply_past_the_timeout_is_retried(llm_server: ScriptedLLMServer) -> None:
    llm_server.script_chat({"content": GOOD, "delay": 3}, {"content": GOOD})
    async with extractor(llm_server, timeout=0.5) as x:
        assert len(await x.extract(EPISODE)) == 2
        assert x.usage.retries == 1
    assert len(llm_server.requests("chat")) == 2


async def test_http_errors_are_translated(llm_server: ScriptedLLMServer) -> None:
    x = extractor(llm_server, max_retries=1)
    llm_server.script_chat({"status": 503}, {"content": GOOD})
    assert len(await x.extract(EPISODE)) == 2  # a 5xx is retried
    llm_server.script_chat({"status": 500}, {"status": 500})
    with pytest.raises(ModelUnavailable, match="after 2 attempt"):
        await x.extract(EPISODE)
    llm_server.script_chat({"status": 401})
    with pytest.raises(ConfigurationError, match="HTTP 401"):
        await x.extract(EPISODE)
    llm_server.script_chat({"body": {"choices": []}})
    with pytest.raises(ModelError, match="malformed"):
        await x.extract(EPISODE)
    llm_server.script_chat({"body": {"choices": [{"message": {"content": None}}]}})
    with pytest.raises(ModelError, match="no message content"):
        await x.extract(EPISODE)
    llm_server.script_chat({"raw": "<html>oops</html>"})
    with pytest.raises(ModelError, match="not JSON"):
        await x.extract(EPISODE)
    assert x.usage.failures == 5
    await x.aclose()
    await x.aclose()


async def test_a_server_refusing_json_schema_is_asked_without_it(
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.script_chat(
        {"status": 400, "body": {"error": {"message": "response_format not supported"}}},
        {"content": GOOD},
        {"content": GOOD},
    )
    async with extractor(llm_server) as x:
        assert x.structured
        assert len(await x.extract(EPISODE)) == 2
        assert not x.structured
        assert len(await x.extract(EPISODE)) == 2
    sent = [("response_format" in r["body"]) for r in llm_server.requests("chat")]
    assert sent == [True, False, False]


async def test_json_schema_mode_does_not_fall_back(llm_server: ScriptedLLMServer) -> None:
    llm_server.script_chat({"status": 400})
    async with extractor(llm_server, structured_output="json_schema") as x:
        with pytest.raises(ConfigurationError, match="HTTP 400"):
            await x.extract(EPISODE)
    llm_server.script_chat({"content": GOOD})
    async with extractor(llm_server, structured_output="none") as x:
        assert len(await x.extract(EPISODE)) == 2
    assert "response_format" not in llm_server.requests("chat")[-1]["body"]


async def test_from_settings(llm_server: ScriptedLLMServer) -> None:
    assert OpenAIChatExtractor.from_settings(Settings()) is None
    settings = Settings(
        llm_url=llm_server.base_url,
        llm_model="gpt-x",
        llm_api_key="secret",  # type: ignore[arg-type]
        llm_max_tokens=100,
        llm_structured_output="none",
    )
    x = OpenAIChatExtractor.from_settings(settings)
    assert x is not None
    llm_server.script_chat({"content": GOOD})
    async with x:
        assert len(await x.extract(EPISODE)) == 2
    (request,) = llm_server.requests("chat")
    assert request["authorization"] == "Bearer secret"
    assert request["body"]["model"] == "gpt-x"
    assert request["body"]["max_tokens"] == 100
    assert "response_format" not in request["body"]


async def test_unreachable_and_bad_configuration() -> None:
    with pytest.raises(ConfigurationError):
        OpenAIChatExtractor("ftp://x", "m")
    with pytest.raises(ConfigurationError):
        OpenAIChatExtractor("http://127.0.0.1:1/v1", "")
    x = OpenAIChatExtractor("http://127.0.0.1:1/v1", "m", retry_wait=0, max_retries=0)
    assert x.url == "http://127.0.0.1:1/v1/chat/completions"
    with pytest.raises(ModelUnavailable):
        await x.extract(EPISODE)
    await x.aclose()


def _turn(role: str, text: str) -> Episode:
    return Episode(
        task_type="conversation",
        description=f"{role}: {text}",
        input_text=text if role == "user" else None,
        output_text=text if role == "assistant" else None,
        scope=Scope(user="ana", session="s"),
        metadata={"role": role, "speaker": role, "subject": "ana"},
    )


def _fact(subject: str | None, predicate: str | None, obj: str | None, text: str) -> dict[str, Any]:
    return {"statement": text, "subject": subject, "predicate": predicate, "object": obj,
            "confidence": 0.8}  # fmt: skip


async def test_chat_turn_facts_follow_the_extraction_rules(
    llm_server: ScriptedLLMServer,
) -> None:
    """The model is told the rules, and what it returns is held to them anyway."""
    reply = {
        "facts": [
            _fact("user", "Prefers", "quiet cafés", "The user likes quiet places"),
            _fact("ana", "lives_in", "Hamburg", "ana moved to Hamburg"),
            _fact("assistant", "recommends", "binoculars", "The assistant recommends binoculars"),
            _fact("ana", "asked_about", "laptops", "What laptop should ana buy?"),
            _fact(None, None, None, "Binoculars are an excellent tool."),
            _fact("ana", "likes", "the taste of it", "ana likes the taste of it"),  # of what?
        ]
    }
    llm_server.script_chat({"content": json.dumps(reply)})
    async with extractor(llm_server) as x:
        facts = await x.extract(_turn("user", "I moved to Hamburg and I prefer quiet cafés."))
    assert [(f.subject, f.predicate, f.object) for f in facts] == [
        ("ana", "prefers", "quiet cafés"),
        ("ana", "lives_in", "Hamburg"),
    ]
    # phrased from the parts, with the vocabulary's cardinality
    assert [f.statement for f in facts] == ["ana prefers quiet cafés.", "ana lives in Hamburg."]
    assert [f.cardinality for f in facts] == ["many", "one"]
    (request,) = llm_server.requests("chat")
    system = request["body"]["messages"][0]["content"]
    assert "Never a fact: questions" in system
    assert "lives_in" in system
    assert "A user turn; the user is ana." in request["body"]["messages"][1]["content"]


async def test_an_assistant_turn_yields_only_what_the_user_decided(
    llm_server: ScriptedLLMServer,
) -> None:
    reply = {
        "facts": [
            _fact("ana", "has_booking", "table at Luigi's on Friday", "booked"),
            _fact("ana", "likes", "binoculars", "ana likes binoculars"),
        ]
    }
    llm_server.script_chat({"content": json.dumps(reply)})
    async with extractor(llm_server) as x:
        facts = await x.extract(_turn("assistant", "I've booked your table at Luigi's."))
    assert [(f.predicate, f.object) for f in facts] == [
        ("has_booking", "table at Luigi's on Friday")
    ]
