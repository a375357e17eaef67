"""Pinned blocks through the core_memory tool: list, set, append, delete."""

from __future__ import annotations

from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.blocks import MAX_BLOCK_CHARS
from tests.mcp.conftest import client_as, data_of, error_of, lines_of, local_key


async def test_core_memory_list_set_append_delete(memory: Memory) -> None:
    async with client_as(memory, local_key("t", user="ana")) as client:

        async def core(**arguments: object) -> list[str]:
            return lines_of(await client.call_tool("core_memory", arguments))

        assert await core() == ["no core memory blocks"]
        persona = data_of(
            await client.call_tool(
                "core_memory",
                {"action": "set", "name": "persona", "text": "A travel agent.", "format": "json"},
            )
        )
        assert persona["scope"]["user"] == "ana"
        appended = await core(action="append", name="persona", text="Be brief.")
        assert appended == ["[persona] (position 0)", "A travel agent.", "Be brief."]
        await core(action="set", name="profile", text="Ana likes trains.", position=1)
        assert await core(action="list") == [
            "[persona] (position 0)",
            "A travel agent.",
            "Be brief.",
            "",
            "[profile] (position 1)",
            "Ana likes trains.",
        ]
        context = lines_of(await client.call_tool("assemble_context", {"query": "trip"}))
        assert any("Be brief." in line for line in context)
        assert await core(action="delete", name="profile") == ["deleted block profile"]
        for arguments, expected in (
            ({"action": "delete", "name": "profile"}, "does not exist"),
            ({"action": "set", "name": "p", "text": "x" * (MAX_BLOCK_CHARS + 1)}, "text:"),
            ({"action": "set", "text": "x"}, "name: is required to set a block"),
            ({"action": "append", "name": "p"}, "text: is required to append a block"),
            ({"action": "append", "name": "p", "text": ""}, "text: is empty"),
            ({"action": "list", "user": "bob"}, "restricted to user='ana'"),
            ({"action": "drop"}, "action: Input should be"),
        ):
            assert expected in error_of(await client.call_tool("core_memory", arguments))
    blocks = await memory.blocks(Scope(tenant="t", user="ana")).list()
    assert [b.name for b in blocks] == ["persona"]
