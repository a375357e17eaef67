"""The shared client of OpenAI-compatible endpoints: Retry-After, usage counts, sync path."""

from __future__ import annotations

import time
from email.utils import formatdate

import httpx
import pytest

from sedimem.embed.openai import OpenAIEmbedder
from sedimem.errors import ModelUnavailable
from sedimem.llm.http import retry_after_seconds
from sedimem.llm.usage import Usage
from sedimem.testing.llm_server import ScriptedLLMServer


def answer(retry_after: str | None) -> httpx.Response:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return httpx.Response(429, headers=headers)


def test_retry_after_in_seconds_or_as_an_http_date() -> None:
    now = 1_700_000_000.0
    assert retry_after_seconds(answer("2")) == 2.0
    assert retry_after_seconds(answer("0.5")) == 0.5
    assert retry_after_seconds(answer("-3")) == 0.0
    assert retry_after_seconds(answer(formatdate(now + 30, usegmt=True)), now) == 30.0
    assert retry_after_seconds(answer(formatdate(now - 30, usegmt=True)), now) == 0.0
    assert retry_after_seconds(answer(None)) is None
    assert retry_after_seconds(answer("soon")) is None
    assert retry_after_seconds(answer("Sun, 06 Nov 1994 08:49:37")) is None  # no zone


def test_usage_counts_are_named_and_skip_zeros() -> None:
    usage = Usage()
    usage.add(requests=2, prompt_tokens=7)
    assert usage.counts("llm_") == {"llm_requests": 2, "llm_prompt_tokens": 7}


def test_the_sync_embedder_honours_retry_after_and_counts(
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.script_embeddings({"status": 429, "headers": {"Retry-After": "1"}})
    with OpenAIEmbedder(llm_server.base_url, "e", retry_wait=0) as embedder:
        rows = embedder.embed(["one two three", "four"])
        assert rows.shape == (2, llm_server.dimension)
        usage = embedder.usage
        assert (usage.requests, usage.retries, usage.failures) == (2, 1, 0)
        assert usage.prompt_tokens == 4  # what the server reported: the words sent
        times = [r["at"] for r in llm_server.requests("embeddings")]
        assert times[1] - times[0] >= 0.9
        llm_server.script_embeddings({"status": 503, "headers": {"Retry-After": "100"}})
        started = time.monotonic()
        with pytest.raises(ModelUnavailable, match="asked to retry after 100 s"):
            embedder.embed(["again"])
        assert time.monotonic() - started < 30  # the cap (60 s) was not waited for
        assert embedder.usage.failures == 1
