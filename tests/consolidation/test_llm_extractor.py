"""The chat extractor against a real HTTP server on 127.0.0.1 with scripted answers."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from sedimem.consolidation import OpenAIChatExtractor
from sedimem.errors import ConfigurationError, StoreError, StoreUnavailable
from sedimem.scope import Scope
from sedimem.types.longterm import Episode

GOOD = {
    "facts": [
        {
            "statement": "Ana lives in Lisbon.",
            "subject": "Ana",
            "predicate": "lives_in",
            "object": "Lisbon",
            "confidence": 0.9,
        },
        {
            "statement": "Ana is friendly.",
            "subject": None,
            "predicate": None,
            "object": None,
            "confidence": 0.5,
        },
    ]
}


def completion(content: Any) -> dict[str, Any]:
    text = content if isinstance(content, str) else json.dumps(content)
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}


@dataclass
class ChatServer:
    base_url: str
    script: list[tuple[int, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def server() -> Iterator[ChatServer]:
    state = ChatServer("")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests.append(body)
                state.headers.append({k.lower(): v for k, v in self.headers.items()})
                status, answer = state.script.pop(0) if state.script else (200, completion(GOOD))
            if self.path != "/v1/chat/completions":
                status, answer = 404, {"error": "no route"}
            raw = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


EPISODE = Episode(
    description="Talked with Ana about her move.",
    input_text="I moved to Lisbon",
    scope=Scope(project="p", session="s"),
)


async def test_valid_answer_becomes_facts_with_provenance(server: ChatServer) -> None:
    async with OpenAIChatExtractor(server.base_url, "m", api_key="k", retry_wait=0) as x:
        facts = await x.extract(EPISODE)
    assert [f.statement for f in facts] == ["Ana lives in Lisbon.", "Ana is friendly."]
    assert facts[0].predicate == "lives_in"
    assert facts[0].confidence == 0.9
    assert facts[1].subject is None
    assert all(f.source_episode_ids == [EPISODE.id] for f in facts)
    assert all(f.scope == Scope(project="p") for f in facts)
    (request,) = server.requests
    assert request["model"] == "m"
    assert request["response_format"]["type"] == "json_schema"
    assert "I moved to Lisbon" in request["messages"][1]["content"]
    assert server.headers[0]["authorization"] == "Bearer k"


@pytest.mark.parametrize(
    "bad",
    [
        "not json {",
        {"facts": [{"statement": "x", "confidence": 3}]},
        {"facts": "nope"},
        {"other": []},
    ],
)
async def test_invalid_output_is_retried_once(server: ChatServer, bad: Any) -> None:
    server.script = [(200, completion(bad)), (200, completion(GOOD))]
    async with OpenAIChatExtractor(server.base_url, "m", retry_wait=0) as x:
        facts = await x.extract(EPISODE)
    assert len(facts) == 2
    assert len(server.requests) == 2


async def test_twice_invalid_is_logged_and_skipped(
    server: ChatServer, caplog: pytest.LogCaptureFixture
) -> None:
    server.script = [(200, completion("{bad")), (200, completion({"facts": [{}]}))]
    with caplog.at_level(logging.WARNING, logger="sedimem.consolidation.llm"):
        async with OpenAIChatExtractor(server.base_url, "m", retry_wait=0) as x:
            assert await x.extract(EPISODE) == []
    assert len(server.requests) == 2
    assert EPISODE.id in caplog.text
    assert "skipping" in caplog.text


async def test_http_errors_are_translated(server: ChatServer) -> None:
    x = OpenAIChatExtractor(server.base_url, "m", retry_wait=0, max_retries=1)
    server.script = [(503, {"error": "busy"}), (200, completion(GOOD))]
    assert len(await x.extract(EPISODE)) == 2  # a 5xx is retried
    server.script = [(500, {}), (500, {})]
    with pytest.raises(StoreUnavailable):
        await x.extract(EPISODE)
    server.script = [(401, {"error": "bad key"})]
    with pytest.raises(ConfigurationError, match="HTTP 401"):
        await x.extract(EPISODE)
    server.script = [(200, {"choices": []})]
    with pytest.raises(StoreError, match="malformed"):
        await x.extract(EPISODE)
    server.script = [(200, {"choices": [{"message": {"content": None}}]})]
    with pytest.raises(StoreError, match="no message content"):
        await x.extract(EPISODE)
    await x.aclose()
    await x.aclose()


async def test_unreachable_and_bad_configuration() -> None:
    with pytest.raises(ConfigurationError):
        OpenAIChatExtractor("ftp://x", "m")
    with pytest.raises(ConfigurationError):
        OpenAIChatExtractor("http://127.0.0.1:1/v1", "")
    x = OpenAIChatExtractor("http://127.0.0.1:1/v1", "m", retry_wait=0, max_retries=0)
    assert x.url == "http://127.0.0.1:1/v1/chat/completions"
    with pytest.raises(StoreUnavailable):
        await x.extract(EPISODE)
    await x.aclose()
