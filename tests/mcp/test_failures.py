"""Failures never crash the server: store errors and crashes become generic tool errors."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any, NoReturn

import pytest
from mcp.client import Client

from sedimem.errors import ExtractionFailed, ModelUnavailable, StoreError, StoreUnavailable
from sedimem.mcp import build_server
from sedimem.mcp.access import request_key, request_scoped_key
from sedimem.mcp.tools.base import time_range
from sedimem.memory import Memory
from tests.mcp.conftest import client_as, data_of, error_of, local_key


def _raise(exc: Exception) -> Any:
    async def fail(*args: object, **kwargs: object) -> NoReturn:
        raise exc

    return fail


async def test_a_crash_is_a_generic_tool_error_and_is_logged(
    memory: Memory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    async with client_as(memory, local_key()) as client:
        monkeypatch.setattr(memory, "stats", _raise(RuntimeError("internal detail 42")))
        with caplog.at_level(logging.ERROR):
            message = error_of(await client.call_tool("inspect_memory", {}))
        assert message == "Error executing tool inspect_memory"
        assert any("internal detail 42" in (r.exc_text or "") for r in caplog.records)
        # the server keeps serving
        assert data_of(
            await client.call_tool("working_memory", {"session": "s", "key": "k", "format": "json"})
        )


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (StoreUnavailable("redis at 10.0.0.7:6379 refused"), "unavailable right now; retry later"),
        (StoreError("disk /var/lib/x full"), "failed to serve this call; retry later"),
        (
            ModelUnavailable("chat endpoint http://10.0.0.7/v1 refused", retry_after=30),
            "the model endpoint (LLM) is unavailable right now; retry in 30 s",
        ),
        (
            ExtractionFailed("episode e: reply from /var/llm not JSON", attempts=3),
            "the model endpoint (LLM) gave no usable answer; retry later",
        ),
    ],
)
async def test_store_failures_do_not_leak_deployment_details(
    memory: Memory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    error: Exception,
    expected: str,
) -> None:
    async with client_as(memory, local_key()) as client:
        monkeypatch.setattr(memory, "stats", _raise(error))
        with caplog.at_level(logging.WARNING, logger="sedimem.mcp"):
            message = error_of(await client.call_tool("inspect_memory", {}))
        assert expected in message
        assert "10.0.0.7" not in message
        assert "/var" not in message
        assert any(r.name == "sedimem.mcp" for r in caplog.records)


async def test_without_an_authenticated_key_every_call_is_refused(memory: Memory) -> None:
    async with Client(build_server(memory, request_scoped_key)) as c:
        message = error_of(await c.call_tool("recall", {"query": "anything"}))
    assert "no authenticated API key for this call" in message
    token = request_key.set(local_key("acme"))
    try:
        assert request_scoped_key().tenant == "acme"
    finally:
        request_key.reset(token)


def test_time_range_fills_open_ends() -> None:
    start = datetime(2025, 1, 1, tzinfo=UTC)
    assert time_range(None, None) is None
    low, high = time_range(start, None) or (start, start)
    assert low == start
    assert high.year == 9999
    low, high = time_range(None, start) or (start, start)
    assert low.year == 1
    assert high == start
