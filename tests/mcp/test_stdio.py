"""MCP over stdio: the SDK client launches ``sedimem mcp`` and talks to it."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from sedimem.mcp import TOOL_NAMES
from sedimem.memory import Memory
from tests.mcp.conftest import data_of, error_of


async def test_a_stdio_session_remembers_recalls_and_assembles(tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sedimem", "mcp"],  # the CLI command an MCP host runs
        env={"SEDIMEM_HOME": str(tmp_path)},
    )
    async with Client(params) as client:
        assert {t.name for t in (await client.list_tools()).tools} == set(TOOL_NAMES)
        stored = data_of(
            await client.call_tool(
                "remember",
                {
                    "kind": "episode",
                    "text": "Migrated the billing database to PostgreSQL 16",
                    "outcome": "partial",
                    "lessons_learned": ["rehearse the cutover on a copy"],
                    "importance": 0.9,
                    "format": "json",
                },
            )
        )
        assert stored["record"]["scope"]["tenant"] == "default"
        found = data_of(
            await client.call_tool(
                "recall", {"query": "billing database migration", "format": "json"}
            )
        )
        assert [h["id"] for h in found["episodes"]] == [stored["id"]]
        packed = data_of(
            await client.call_tool(
                "assemble_context",
                {"query": "database migration", "budget_tokens": 150, "format": "json"},
            )
        )
        assert "rehearse the cutover" in packed["text"]
        assert packed["tokens_used"] <= 150
        bad = error_of(
            await client.call_tool("remember", {"kind": "episode", "text": "x", "importance": 2})
        )
        assert "importance: Input should be less than or equal to 1, got 2 (allowed: 0..1)" in bad
        # the server is still there after the error
        stats = data_of(await client.call_tool("inspect_memory", {"format": "json"}))
        assert stats["longterm"]["episodes"] == 1


async def test_sedimem_api_key_decides_the_tenant_of_a_stdio_session(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sedimem.db'}"
    async with await Memory.open(url) as memory:  # the default embedder, as the CLI's
        issued = await memory.keys.create("acme", user="ana")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "sedimem", "mcp", "--tenant", "ignored-when-a-key-is-set"],
        env={"SEDIMEM_HOME": str(tmp_path), "SEDIMEM_API_KEY": issued.secret},
    )
    async with Client(params) as client:
        stored = data_of(
            await client.call_tool(
                "remember", {"kind": "episode", "text": "Wrote a memo", "format": "json"}
            )
        )
    assert stored["record"]["scope"]["tenant"] == "acme"
    assert stored["record"]["scope"]["user"] == "ana"
