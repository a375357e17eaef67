"""What a host receives from ``tools/list``: at most 10 tools, at most 16 KB in all, every
argument described."""

from __future__ import annotations

import json

from sedimem.mcp import TOOL_NAMES
from sedimem.mcp.server import INSTRUCTIONS
from sedimem.memory import Memory
from tests.mcp.conftest import client_as, local_key

MAX_TOOLS = 10
# every argument described, in a few words (issue 25: 11.8 KB before the descriptions)
MAX_TOOLS_LIST_BYTES = 16_000


async def test_tools_list_is_small_enough_for_every_prompt(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        listed = (await client.list_tools()).tools
    # everything the answer carries per tool: name, title, description, schemas, hints
    wire = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in listed]
    size = len(json.dumps(wire, separators=(",", ":")).encode())
    assert len(listed) <= MAX_TOOLS
    assert size <= MAX_TOOLS_LIST_BYTES, f"tools/list is {size} bytes"
    assert [t.name for t in listed] == list(TOOL_NAMES)


async def test_schemas_state_limits_and_when_to_use_each_tool(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    for tool in tools.values():
        assert 60 < len(tool.description or "") < 400, tool.name
        assert tool.output_schema is None  # answers are text unless format "json"
        schema = json.dumps(tool.input_schema)
        assert '"title"' not in schema
        assert '"null"' not in schema
        assert tool.input_schema["properties"]["format"] == {
            "description": "Answer as text or json.",
            "enum": ["text", "json"],
            "type": "string",
        }
        # the scope model is explained once, in the instructions, not on every tool
        assert "visible" not in (tool.description or "")
    remember = tools["remember"].input_schema["properties"]
    assert remember["kind"]["enum"] == ["auto", "fact", "episode", "procedure"]
    assert remember["outcome"]["enum"] == ["success", "failure", "partial"]
    assert (remember["importance"]["minimum"], remember["importance"]["maximum"]) == (0, 1)
    assert remember["text"]["maxLength"] == 100_000  # the records' Text bound
    recall = tools["recall"].input_schema["properties"]
    assert (recall["k"]["minimum"], recall["k"]["maximum"]) == (1, 1000)  # as REST's
    working = tools["working_memory"].input_schema["properties"]
    assert working["ttl_seconds"]["exclusiveMinimum"] == 0
    assert working["ttl_seconds"]["description"]
    assert tools["working_memory"].input_schema["required"] == ["session"]
    assert tools["forget_memory"].annotations
    assert tools["forget_memory"].annotations.destructive_hint is None  # the default: true
    assert tools["recall"].annotations
    assert tools["recall"].annotations.read_only_hint
    assert tools["update_memory"].annotations
    assert tools["update_memory"].annotations.destructive_hint is False
    for word in ("project", "user", "session", "json"):
        assert word in INSTRUCTIONS


async def test_every_argument_of_every_tool_is_described(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        tools = (await client.list_tools()).tools
    undescribed = [
        f"{tool.name}.{name}"
        for tool in tools
        for name, argument in tool.input_schema["properties"].items()
        if not argument.get("description")
    ]
    assert undescribed == []
    by_name = {t.name: t.input_schema["properties"] for t in tools}
    # the same words as REST's, and the truth: an unset TTL is the session's lifetime
    assert "as long as the session" in by_name["working_memory"]["ttl_seconds"]["description"]
    assert "private" in by_name["recall"]["user"]["description"]
