"""Edit, delete and invalidate by id, and predicate cardinality, through MCP tools."""

from __future__ import annotations

from typing import Any

from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode
from sedimem.types.edits import MAX_PREDICATES_PER_CALL
from tests.mcp.conftest import client_as, data_of, error_of, local_key


def seat(where: str, **extra: Any) -> dict[str, Any]:
    return {
        "tier": "semantic",
        "statement": f"Ana prefers the {where} seat",
        "subject": "Ana",
        "predicate": "prefers_seat",
        "object": where,
        "user": "ana",
        **extra,
    }


async def test_cardinality_conflicts_and_declarations(memory: Memory) -> None:
    async with client_as(memory, local_key("t")) as client:
        window = data_of(await client.call_tool("remember", seat("window")))
        aisle = data_of(await client.call_tool("remember", seat("aisle")))
        assert aisle["action"] == "inserted"
        assert [c["id"] for c in aisle["possible_conflicts"]] == [window["id"]]
        middle = data_of(await client.call_tool("remember", seat("middle", cardinality="one")))
        assert middle["action"] == "superseded"
        assert set(middle["superseded"]) == {window["id"], aisle["id"]}
        context = data_of(
            await client.call_tool(
                "assemble_context", {"query": "which seat for Ana", "user": "ana"}
            )
        )
        assert "middle" in context["text"]
        assert "window" not in context["text"]
        assert "aisle" not in context["text"]

        declared = data_of(
            await client.call_tool("declare_predicates", {"predicates": ["likes_drink"]})
        )
        assert declared["declared"] == {"likes_drink": "one"}
        listed = data_of(await client.call_tool("list_predicates", {}))
        assert "likes_drink" in listed["single_valued"]
        assert "lives_in" in listed["defaults"]
        too_many = [f"p{i}" for i in range(MAX_PREDICATES_PER_CALL + 1)]
        text = error_of(await client.call_tool("declare_predicates", {"predicates": too_many}))
        assert text.startswith("Error executing tool declare_predicates: predicates:")
        assert str(MAX_PREDICATES_PER_CALL) in text
        bad = error_of(await client.call_tool("remember", seat("x", cardinality="two")))
        assert "cardinality" in bad
    async with client_as(memory, local_key("t", user="ana")) as narrowed:
        refused = error_of(await narrowed.call_tool("declare_predicates", {"predicates": ["x"]}))
        assert "whole tenant" in refused


async def test_edit_delete_invalidate_by_id(memory: Memory) -> None:
    async with client_as(memory, local_key("t")) as client:
        window = data_of(await client.call_tool("remember", seat("window")))
        fixed = data_of(
            await client.call_tool(
                "edit_memory",
                {
                    "tier": "semantic",
                    "id": window["id"],
                    "object": "aisle",
                    "statement": "Ana prefers the aisle seat",
                },
            )
        )
        assert fixed["superseded"] == [window["id"]]
        stale = error_of(
            await client.call_tool(
                "edit_memory", {"tier": "semantic", "id": window["id"], "confidence": 0.5}
            )
        )
        assert "fact_id" in stale
        assert fixed["id"] in stale
        wrong = error_of(
            await client.call_tool(
                "edit_memory", {"tier": "semantic", "id": fixed["id"], "steps": ["x"]}
            )
        )
        assert "steps: is not editable in tier 'semantic'" in wrong
        nothing = error_of(
            await client.call_tool("edit_memory", {"tier": "semantic", "id": fixed["id"]})
        )
        assert "changes:" in nothing
        gone = data_of(await client.call_tool("invalidate_fact", {"id": fixed["id"]}))
        assert gone["record"]["invalidated_at"]
        recalled = data_of(await client.call_tool("recall", {"query": "Ana seat", "user": "ana"}))
        assert recalled["semantic"] == []

        episode = data_of(
            await client.call_tool(
                "remember", {"tier": "episodic", "description": "booked a ferry", "user": "ana"}
            )
        )
        edited = data_of(
            await client.call_tool(
                "edit_memory",
                {
                    "tier": "episodic",
                    "id": episode["id"],
                    "description": "booked a train",
                    "importance": 0.9,
                },
            )
        )
        assert edited["record"]["description"] == "booked a train"
        procedure = data_of(
            await client.call_tool(
                "remember",
                {
                    "tier": "procedural",
                    "name": "book",
                    "trigger": "book travel",
                    "steps": ["search", "pay"],
                },
            )
        )
        stepped = data_of(
            await client.call_tool(
                "edit_memory",
                {"tier": "procedural", "id": procedure["id"], "steps": ["search", "hold", "pay"]},
            )
        )
        assert stepped["record"]["version"] == 2
        targets = [
            ("episodic", episode["id"]),
            ("procedural", procedure["id"]),
            ("semantic", fixed["id"]),
        ]
        for tier, rid in targets:
            deleted = data_of(await client.call_tool("delete_memory", {"tier": tier, "id": rid}))
            assert deleted == {"tier": tier, "deleted": rid}
            again = error_of(await client.call_tool("delete_memory", {"tier": tier, "id": rid}))
            assert "does not exist" in again
        left = data_of(await client.call_tool("recall", {"query": "booked train", "user": "ana"}))
        assert left["episodic"] == []
        assert left["procedural"] == []


async def test_by_id_tools_follow_the_key(memory: Memory) -> None:
    bobs = await memory.episodes.record(
        Episode(scope=Scope(tenant="t", user="bob"), description="bob's trip")
    )
    async with client_as(memory, local_key("t", user="ana")) as ana:
        for tool, args in (
            ("edit_memory", {"tier": "episodic", "id": bobs.id, "importance": 0.1}),
            ("delete_memory", {"tier": "episodic", "id": bobs.id}),
        ):
            assert "user='ana'" in error_of(await ana.call_tool(tool, args))
    async with client_as(memory, local_key("other")) as other:
        text = error_of(await other.call_tool("delete_memory", {"tier": "episodic", "id": bobs.id}))
        assert "does not exist" in text
    assert (await memory.episodes.get(bobs.id, tenant="t")).description == "bob's trip"
