"""The scripted OpenAI-compatible server's own behaviour, served in this process (the
fixture's process runs the same handler; here coverage sees it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer

import httpx
import pytest

from sedimem.testing.llm_server import _handler, _State


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(_State(8)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.server_address[1]}") as http:
            yield http
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_scripted_then_default_replies_and_the_request_log(client: httpx.Client) -> None:
    assert client.get("/_health").status_code == 200
    script = [
        {"content": "not json {", "finish_reason": "length"},
        {"status": 429, "headers": {"Retry-After": "2"}},
        {"raw": "<html>"},
        {"body": {"choices": []}},
    ]
    assert client.post("/_script/chat", json=script).status_code == 200
    ask = {"model": "m", "messages": [{"role": "user", "content": "three words here"}]}
    first = client.post("/v1/chat/completions", json=ask, headers={"Authorization": "Bearer k"})
    choice = first.json()["choices"][0]
    assert (choice["message"]["content"], choice["finish_reason"]) == ("not json {", "length")
    assert first.json()["usage"] == {
        "prompt_tokens": 3,
        "completion_tokens": 3,
        "total_tokens": 6,
    }
    limited = client.post("/v1/chat/completions", json=ask)
    assert (limited.status_code, limited.headers["retry-after"]) == (429, "2")
    assert client.post("/v1/chat/completions", json=ask).text == "<html>"
    assert client.post("/v1/chat/completions", json=ask).json() == {"choices": []}
    default = client.post("/v1/chat/completions", json=ask).json()
    assert default["choices"][0]["message"]["content"] == '{"facts": []}'
    client.post("/_default/chat", json={"content": '{"facts": [1]}'})
    changed = client.post("/v1/chat/completions", json=ask).json()
    assert changed["choices"][0]["message"]["content"] == '{"facts": [1]}'
    log = client.get("/_requests").json()
    assert len(log) == 6
    assert log[0]["authorization"] == "Bearer k"
    assert log[0]["body"] == ask
    assert log[0]["at"] <= log[-1]["at"]


def test_embeddings_errors_and_reset(client: httpx.Client) -> None:
    vectors = client.post("/v1/embeddings", json={"model": "e", "input": ["a b", "c"]}).json()
    assert [d["index"] for d in vectors["data"]] == [1, 0]
    assert len(vectors["data"][0]["embedding"]) == 8
    assert vectors["usage"]["prompt_tokens"] == 3
    single = client.post("/v1/embeddings", json={"model": "e", "input": "one"}).json()
    assert len(single["data"]) == 1
    client.post("/_script/embeddings", json=[{"status": 500}])
    failed = client.post("/v1/embeddings", json={"input": ["x"]})
    assert failed.status_code == 500
    assert "scripted HTTP 500" in failed.text
    assert client.post("/v1/other", json={}).status_code == 404
    assert client.post("/v1/embeddings", content=b"{bad").status_code == 200
    assert client.get("/nothing").status_code == 404
    assert client.post("/_unknown", json={}).status_code == 404
    client.post("/_reset", json={})
    assert client.get("/_requests").json() == []
