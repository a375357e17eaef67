"""Pinned blocks through MCP tools: list, update, append, delete."""

from __future__ import annotations

from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.blocks import MAX_BLOCK_CHARS
from tests.mcp.conftest import client_as, data_of, error_of, local_key


async def test_blocks_list_update_append_delete(memory: Memory) -> None:
    async with client_as(memory, local_key("t", user="ana")) as client:
        assert data_of(await client.call_tool("list_blocks", {}))["blocks"] == []
        persona = data_of(
            await client.call_tool(
                "update_block", {"name": "persona", "content": "A travel agent.", "position": 0}
            )
        )
        assert persona["scope"]["user"] == "ana"
        data_of(await client.call_tool("append_block", {"name": "persona", "text": "Be brief."}))
        data_of(
            await client.call_tool(
                "update_block", {"name": "profile", "content": "Ana likes trains.", "position": 1}
            )
        )
        listed = data_of(await client.call_tool("list_blocks", {}))["blocks"]
        assert [(b["name"], b["content"]) for b in listed] == [
            ("persona", "A travel agent.\nBe brief."),
            ("profile", "Ana likes trains."),
        ]
        context = data_of(await client.call_tool("assemble_context", {"query": "trip"}))
        assert "Be brief." in context["text"]
        assert data_of(await client.call_tool("delete_block", {"name": "profile"})) == {
            "deleted": "profile"
        }
        assert "does not exist" in error_of(
            await client.call_tool("delete_block", {"name": "profile"})
        )
        too_long = error_of(
            await client.call_tool(
                "update_block", {"name": "persona", "content": "x" * (MAX_BLOCK_CHARS + 1)}
            )
        )
        assert "content" in too_long
        refused = error_of(await client.call_tool("list_blocks", {"user": "bob"}))
        assert "restricted to user='ana'" in refused
    blocks = await memory.blocks(Scope(tenant="t", user="ana")).list()
    assert [b.name for b in blocks] == ["persona"]
