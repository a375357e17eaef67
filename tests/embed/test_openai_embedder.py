"""The OpenAI-compatible adapter against a real HTTP server on 127.0.0.1.

The server speaks ``POST /v1/embeddings``: by default it answers with the hash embedder's
vectors (un-normalised, in reverse order with their ``index``, like a server may); a test can
queue scripted answers (status, body, delay) that are served first.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from sedimem.embed import Embedder, HashEmbedder
from sedimem.embed.base import forget_cached_text
from sedimem.embed.cache import EmbeddingCache
from sedimem.embed.openai import OpenAIEmbedder
from sedimem.errors import (
    ConfigurationError,
    ModelError,
    ModelUnavailable,
    ValidationError,
)

DIM = 8
REFERENCE = HashEmbedder(DIM)


@dataclass
class Scripted:
    status: int
    body: Any = None
    delay: float = 0.0


@dataclass
class EmbeddingServer:
    base_url: str
    script: list[Scripted] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any]) -> Scripted:
        with self.lock:
            if self.script:
                return self.script.pop(0)
        texts = body["input"]
        vectors = REFERENCE.embed(texts) * 3.0  # not unit length: the client normalises
        data = [
            {"object": "embedding", "index": i, "embedding": vectors[i].tolist()}
            for i in reversed(range(len(texts)))
        ]
        return Scripted(200, {"object": "list", "data": data, "model": body["model"]})


def make_handler(server: EmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with server.lock:
                server.requests.append(body)
                server.headers.append({k.lower(): v for k, v in self.headers.items()})
            if self.path != "/v1/embeddings":
                self.reply(404, {"error": {"message": f"no route {self.path}"}})
                return
            scripted = server.answer(body)
            time.sleep(scripted.delay)
            self.reply(scripted.status, scripted.body)

        def reply(self, status: int, body: Any) -> None:
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


@pytest.fixture
def server() -> Iterator[EmbeddingServer]:
    state = EmbeddingServer(base_url="")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(state))
    httpd.daemon_threads = True
    httpd.block_on_close = False
    state.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def client(server: EmbeddingServer, **kwargs: Any) -> OpenAIEmbedder:
    options: dict[str, Any] = {"retry_wait": 0.01, "timeout": 5.0}
    options.update(kwargs)
    return OpenAIEmbedder(server.base_url, "test-embed", **options)


def expected(texts: list[str]) -> np.ndarray:
    return REFERENCE.embed(texts)


def test_embeds_in_batches_in_input_order(server: EmbeddingServer) -> None:
    texts = [f"memory {i} about topic {i % 3}" for i in range(10)]
    with client(server, api_key="sk-test", batch_size=3, dimension=DIM) as embedder:
        assert isinstance(embedder, Embedder)
        assert embedder.name == "openai/test-embed"
        vectors = embedder.embed(texts)
    assert vectors.shape == (10, DIM)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert [len(r["input"]) for r in server.requests] == [3, 3, 3, 1]
    assert all(r["model"] == "test-embed" and "dimensions" not in r for r in server.requests)
    assert server.headers[0]["authorization"] == "Bearer sk-test"


async def test_aembed_batches_concurrently(server: EmbeddingServer) -> None:
    texts = [f"async text number {i}" for i in range(25)]
    async with client(server, batch_size=4, concurrency=3) as embedder:
        vectors = await embedder.aembed(texts)
        assert embedder.dimension == DIM  # learnt from the first answer
        assert (await embedder.aembed([])).shape == (0, DIM)
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert sorted(len(r["input"]) for r in server.requests) == [1, 4, 4, 4, 4, 4, 4]
    assert "authorization" not in server.headers[0]


def test_dimension_probe_and_request_dimensions(server: EmbeddingServer) -> None:
    with client(server) as embedder:
        assert embedder.dimension == DIM
    assert server.requests[-1]["input"] == ["dimension probe"]
    with client(server, dimension=DIM, request_dimensions=True) as embedder:
        embedder.embed(["shorten me"])
    assert server.requests[-1]["dimensions"] == DIM


def test_blank_texts_are_not_sent(server: EmbeddingServer) -> None:
    with client(server, dimension=DIM) as embedder:
        vectors = embedder.embed(["", "real text", "   "])
        assert embedder.embed(["", " "]).shape == (2, DIM)
    assert not vectors[0].any()
    assert not vectors[2].any()
    np.testing.assert_allclose(vectors[1], expected(["real text"])[0], atol=1e-6)
    assert [r["input"] for r in server.requests] == [["real text"]]


def test_retries_a_500_then_succeeds(server: EmbeddingServer) -> None:
    server.script.append(Scripted(500, {"error": {"message": "temporarily broken"}}))
    with client(server, max_retries=2) as embedder:
        vectors = embedder.embed(["retry me"])
    np.testing.assert_allclose(vectors, expected(["retry me"]), atol=1e-6)
    assert len(server.requests) == 2


async def test_async_retries_429_and_503(server: EmbeddingServer) -> None:
    server.script += [Scripted(429, {"error": "slow down"}), Scripted(503, b"unavailable")]
    async with client(server, max_retries=2) as embedder:
        vectors = await embedder.aembed(["retry me too"])
    np.testing.assert_allclose(vectors, expected(["retry me too"]), atol=1e-6)
    assert len(server.requests) == 3


def test_persistent_5xx_becomes_store_unavailable(server: EmbeddingServer) -> None:
    server.script += [Scripted(502, {"error": "bad gateway"})] * 3
    with client(server, max_retries=2) as embedder, pytest.raises(ModelUnavailable) as info:
        embedder.embed(["never works"])
    assert "after 3 attempt(s)" in str(info.value)
    assert "HTTP 502" in str(info.value)
    assert info.value.__cause__ is not None
    assert len(server.requests) == 3


async def test_async_persistent_5xx_becomes_store_unavailable(server: EmbeddingServer) -> None:
    server.script += [Scripted(500, {"error": "down"})] * 2
    async with client(server, max_retries=1) as embedder:
        with pytest.raises(ModelUnavailable):
            await embedder.aembed(["never works"])


def test_4xx_is_a_configuration_error_without_retry(server: EmbeddingServer) -> None:
    server.script.append(Scripted(401, {"error": {"message": "invalid api key"}}))
    with client(server, max_retries=3) as embedder, pytest.raises(ConfigurationError) as info:
        embedder.embed(["who am I"])
    assert "HTTP 401" in str(info.value)
    assert "invalid api key" in str(info.value)
    assert len(server.requests) == 1


async def test_async_404_on_a_wrong_base_url(server: EmbeddingServer) -> None:
    wrong = server.base_url.removesuffix("/v1") + "/v2"
    async with OpenAIEmbedder(wrong, "test-embed", retry_wait=0.01) as embedder:
        with pytest.raises(ConfigurationError, match="HTTP 404"):
            await embedder.aembed(["lost"])


@pytest.mark.parametrize(
    "body",
    [
        b"this is not json",
        {"object": "list"},
        {"data": "nope"},
        {"data": []},
        {"data": [{"index": 0, "embedding": "nope"}]},
        {"data": [{"index": 5, "embedding": [1.0] * DIM}]},
        {"data": [{"index": 0, "embedding": ["a"] * DIM}]},
        {"data": [{"index": 0, "embedding": [1.0, [2.0]]}]},
        {"data": [{"index": 0, "embedding": [1.0, None]}]},
        {"data": [{"index": 0, "embedding": []}]},
        {"data": ["not an object"]},
    ],
)
def test_malformed_response_is_a_store_error(server: EmbeddingServer, body: Any) -> None:
    server.script.append(Scripted(200, body))
    with client(server) as embedder, pytest.raises(ModelError, match="embedding endpoint") as info:
        embedder.embed(["shape check"])
    assert not isinstance(info.value, ModelUnavailable)
    assert len(server.requests) == 1  # a malformed answer is not retried


def test_non_finite_and_uneven_rows_are_malformed(server: EmbeddingServer) -> None:
    server.script.append(
        Scripted(200, {"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1}]})
    )
    server.script.append(
        Scripted(
            200, {"data": [{"index": 0, "embedding": [1.0, 2.0]}, {"index": 1, "embedding": [1.0]}]}
        )
    )
    with client(server) as embedder:
        for _ in range(2):
            with pytest.raises(ModelError, match="malformed"):
                embedder.embed(["a", "b"])


def test_repeated_index_is_malformed(server: EmbeddingServer) -> None:
    row = [1.0] * DIM
    server.script.append(
        Scripted(200, {"data": [{"index": 0, "embedding": row}, {"index": 0, "embedding": row}]})
    )
    with client(server) as embedder, pytest.raises(ModelError, match="index"):
        embedder.embed(["a", "b"])


def test_missing_indexes_mean_input_order(server: EmbeddingServer) -> None:
    server.script.append(
        Scripted(200, {"data": [{"embedding": [1.0, 0.0]}, {"embedding": [0.0, 2.0]}]})
    )
    with client(server) as embedder:
        vectors = embedder.embed(["a", "b"])
    np.testing.assert_allclose(vectors, [[1.0, 0.0], [0.0, 1.0]])


def test_wrong_dimension_is_a_configuration_error(server: EmbeddingServer) -> None:
    with client(server, dimension=16) as embedder, pytest.raises(ConfigurationError, match="16"):
        embedder.embed(["eight numbers come back"])


def test_connection_refused_becomes_store_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    embedder = OpenAIEmbedder(
        f"http://127.0.0.1:{port}/v1", "m", dimension=4, max_retries=1, retry_wait=0.01
    )
    with embedder, pytest.raises(ModelUnavailable, match="ConnectError"):
        embedder.embed(["nobody listens"])


async def test_async_connection_refused_becomes_store_unavailable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with OpenAIEmbedder(
        f"http://127.0.0.1:{port}/v1", "m", dimension=4, max_retries=0
    ) as embedder:
        with pytest.raises(ModelUnavailable, match="1 attempt"):
            await embedder.aembed(["nobody listens"])


def test_timeout_is_retried_then_store_unavailable(server: EmbeddingServer) -> None:
    server.script += [Scripted(200, {"data": []}, delay=1.0)] * 2
    embedder = client(server, timeout=0.2, max_retries=1)
    with embedder, pytest.raises(ModelUnavailable, match="Timeout"):
        embedder.embed(["slow"])
    assert len(server.requests) == 2


async def test_one_failing_batch_fails_the_call(server: EmbeddingServer) -> None:
    server.script.append(Scripted(400, {"error": "input too long"}))
    async with client(server, batch_size=2, concurrency=1, dimension=DIM) as embedder:
        with pytest.raises(ConfigurationError, match="input too long"):
            await embedder.aembed(["a", "b", "c", "d", "e"])


def test_configuration_is_validated() -> None:
    with pytest.raises(ConfigurationError, match="http"):
        OpenAIEmbedder("ftp://example.invalid/v1", "m")
    with pytest.raises(ConfigurationError):
        OpenAIEmbedder("not a url", "m")
    with pytest.raises(ConfigurationError, match="model"):
        OpenAIEmbedder("http://127.0.0.1:1/v1", "")
    invalid = (
        ("batch_size", 0),
        ("max_retries", -1),
        ("concurrency", 0),
        ("timeout", -1.0),
        ("retry_wait", "soon"),
    )
    for name, value in invalid:
        options: dict[str, Any] = {name: value}
        with pytest.raises(ValidationError) as info:
            OpenAIEmbedder("http://127.0.0.1:1/v1", "m", **options)
        assert info.value.field == name
    with pytest.raises(ValidationError):
        OpenAIEmbedder("http://127.0.0.1:1/v1", "m", dimension=0)
    embedder = OpenAIEmbedder("http://127.0.0.1:1/v1/", "m", dimension=3, name="custom/name")
    assert embedder.url == "http://127.0.0.1:1/v1/embeddings"
    assert embedder.name == "custom/name"
    with pytest.raises(ValidationError) as info:
        embedder.embed(["ok", 1])  # type: ignore[list-item]
    assert info.value.field == "texts.1"


# -- the vector cache ---------------------------------------------------------------------


async def test_cached_texts_are_not_sent_again(server: EmbeddingServer) -> None:
    async with client(server, dimension=DIM, cache_size=100) as embedder:
        first = await embedder.aembed(["where does Ana live", "Ana moved to Oslo"])
        again = await embedder.aembed(["Ana moved to Oslo", "where does Ana live", "new"])
        sync = embedder.embed(["new", "new", "where does Ana live"])
        counts = embedder.cache.counts()
    assert [r["input"] for r in server.requests] == [
        ["where does Ana live", "Ana moved to Oslo"],
        ["new"],
    ]
    np.testing.assert_allclose(again[:2], first[::-1], atol=1e-6)
    np.testing.assert_allclose(sync, expected(["new", "new", "where does Ana live"]), atol=1e-6)
    assert (counts.hits, counts.misses, counts.entries) == (5, 3, 3)


async def test_a_text_repeated_in_a_batch_is_sent_once(server: EmbeddingServer) -> None:
    texts = ["hello", "", "hello", "world", "hello"]
    async with client(server, dimension=DIM, cache_size=10) as embedder:
        vectors = await embedder.aembed(texts)
    assert [r["input"] for r in server.requests] == [["hello", "world"]]
    np.testing.assert_allclose(vectors, expected(texts), atol=1e-6)
    assert not vectors[1].any()  # blank: the zero row, never sent


async def test_embedders_sharing_a_cache_keep_their_own_vectors(server: EmbeddingServer) -> None:
    shared = EmbeddingCache(100)
    one = client(server, dimension=DIM, cache=shared)
    other = OpenAIEmbedder(server.base_url, "other-model", dimension=DIM, cache=shared)
    async with one, other:
        await one.aembed(["same"])
        await other.aembed(["same"])
        await one.aembed(["same"])
        await other.aembed(["same"])
    assert [r["model"] for r in server.requests] == ["test-embed", "other-model"]
    assert one.identity != other.identity
    assert shared.counts().entries == 2


async def test_erasure_clears_the_cache(server: EmbeddingServer) -> None:
    async with client(server, dimension=DIM, cache_size=10) as embedder:
        await embedder.aembed(["secret"])
        forget_cached_text(embedder)
        assert embedder.cache.counts().entries == 0
        await embedder.aembed(["secret"])
    assert len(server.requests) == 2


async def test_without_a_dimension_the_first_request_is_not_cached_from_nothing(
    server: EmbeddingServer,
) -> None:
    async with client(server, cache_size=10) as embedder:
        await embedder.aembed(["a"])  # learns the dimension, nothing to look up yet
        await embedder.aembed(["a"])
        await embedder.aembed(["a"])
    assert len(server.requests) == 2


async def test_concurrent_calls_for_one_text_send_it_once(server: EmbeddingServer) -> None:
    """A recall embeds its question for each tier at once: one request, not three."""
    async with client(server, dimension=DIM, cache_size=10) as embedder:
        results = await asyncio.gather(*(embedder.aembed(["q", f"t{i}"]) for i in range(3)))
        counts = embedder.cache.counts()
    assert sorted(t for r in server.requests for t in r["input"]) == ["q", "t0", "t1", "t2"]
    for i, vectors in enumerate(results):
        np.testing.assert_allclose(vectors, expected(["q", f"t{i}"]), atol=1e-6)
    assert (counts.hits, counts.misses) == (2, 4)


async def test_when_the_fetching_call_fails_its_waiters_fetch_for_themselves(
    server: EmbeddingServer,
) -> None:
    server.script.append(Scripted(400, {"error": {"message": "no"}}))
    async with client(server, dimension=DIM, cache_size=10) as embedder:
        results = await asyncio.gather(
            *(embedder.aembed(["q"]) for _ in range(3)), return_exceptions=True
        )
    assert isinstance(results[0], ConfigurationError)
    for vectors in results[1:]:
        assert isinstance(vectors, np.ndarray)
        np.testing.assert_allclose(vectors, expected(["q"]), atol=1e-6)
