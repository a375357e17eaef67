"""Fixtures of the MCP tests: a memory on a temporary SQLite file and keys to call it with."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from mcp.client import Client
from mcp.types import CallToolResult, TextContent

from sedimem.embed import HashEmbedder
from sedimem.keys import ApiKey
from sedimem.mcp import build_server
from sedimem.mcp.access import fixed_key
from sedimem.memory import Memory

#: The first message of an MCP session over HTTP, and the Accept header it needs.
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def local_key(tenant: str = "default", **narrowed: str) -> ApiKey:
    """A key as the CLI builds it for stdio (never stored)."""
    return ApiKey(id=f"local-{tenant}", tenant=tenant, created_at=datetime.now(UTC), **narrowed)


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def data_of(result: CallToolResult) -> Any:
    """The JSON a successful tool call returned (called with ``format: "json"``)."""
    assert not result.is_error, text_of(result)
    assert result.structured_content == json.loads(text_of(result))
    return result.structured_content


def lines_of(result: CallToolResult) -> list[str]:
    """The text lines a successful tool call returned (the default format)."""
    assert not result.is_error, text_of(result)
    assert result.structured_content is None
    return text_of(result).splitlines()


def ids_in(lines: list[str], kind: str) -> list[str]:
    """The ids of ``kind`` records named in text lines (``... fact <id>: ...``), as a
    model reads them: the word after the kind that has the shape of our ids."""
    found = []
    for line in lines:
        words = line.split()
        for before, word in itertools.pairwise(words):
            candidate = word.rstrip(":,")
            if before == kind and len(candidate) == 36 and candidate.count("-") == 4:
                found.append(candidate)
    return found


def error_of(result: CallToolResult) -> str:
    assert result.is_error, text_of(result)
    return text_of(result)


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[Memory]:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    async with await Memory.open(working=url, store=url, embedder=HashEmbedder(64)) as m:
        yield m


@asynccontextmanager
async def client_as(memory: Memory, key: ApiKey) -> AsyncIterator[Client]:
    """An in-process SDK client of a server that speaks as ``key``.

    Not a fixture: the client's task group must be entered and left in the same task,
    which pytest-asyncio does not guarantee for a fixture's setup and teardown.
    """
    async with Client(build_server(memory, fixed_key(key))) as c:
        yield c
