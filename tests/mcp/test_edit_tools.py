"""Update and forget by id, and predicate cardinality, through MCP tools."""

from __future__ import annotations

from typing import Any

from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode
from sedimem.types.edits import MAX_PREDICATES_PER_CALL
from tests.mcp.conftest import client_as, data_of, error_of, ids_in, lines_of, local_key

JSON = {"format": "json"}


def seat(where: str, **extra: Any) -> dict[str, Any]:
    return {
        "kind": "fact",
        "text": f"Ana prefers the {where} seat",
        "subject": "Ana",
        "predicate": "prefers_seat",
        "object": where,
        "user": "ana",
        **JSON,
        **extra,
    }


async def test_cardinality_conflicts_and_declarations(memory: Memory) -> None:
    async with client_as(memory, local_key("t")) as client:
        window = data_of(await client.call_tool("remember", seat("window")))
        aisle = lines_of(await client.call_tool("remember", seat("aisle", format="text")))
        assert aisle[0].startswith("inserted fact ")
        assert aisle[1] == "possible conflicts (both kept; update or forget one if wrong):"
        assert ids_in(aisle[2:], "fact") == [window["id"]]
        middle = data_of(await client.call_tool("remember", seat("middle", cardinality="one")))
        assert middle["action"] == "superseded"
        assert len(middle["superseded"]) == 2
        context = data_of(
            await client.call_tool(
                "assemble_context", {"query": "which seat", "user": "ana"} | JSON
            )
        )
        assert "middle" in context["text"]
        assert "window" not in context["text"]
        too_many = [f"p{i}" for i in range(MAX_PREDICATES_PER_CALL + 1)]
        text = error_of(
            await client.call_tool("inspect_memory", {"report": "predicates", "declare": too_many})
        )
        assert text.startswith("Error executing tool inspect_memory: declare:")
        assert str(MAX_PREDICATES_PER_CALL) in text
        bad = error_of(await client.call_tool("remember", seat("x", cardinality="two")))
        assert "cardinality" in bad


async def test_update_and_forget_each_kind_by_id(memory: Memory) -> None:
    async with client_as(memory, local_key("t", user="ana")) as client:
        fact = data_of(await client.call_tool("remember", seat("window")))["id"]
        episode = data_of(
            await client.call_tool(
                "remember", {"kind": "episode", "text": "Booked a train", **JSON}
            )
        )["id"]
        procedure = data_of(
            await client.call_tool(
                "remember",
                {"kind": "procedure", "text": "booking", "name": "book", "steps": ["a"], **JSON},
            )
        )["id"]
        corrected = lines_of(
            await client.call_tool(
                "update_memory",
                {"id": fact, "text": "Ana prefers the aisle seat", "object": "aisle"},
            )
        )
        (new_fact,) = ids_in(corrected, "fact")
        assert new_fact != fact
        assert corrected[1] == f"(new version; replaced {fact}, kept as history)"
        stale = error_of(await client.call_tool("update_memory", {"id": fact, "object": "x"}))
        assert f"the current fact is '{new_fact}'" in stale
        changed = data_of(
            await client.call_tool(
                "update_memory",
                {
                    "id": episode,
                    "outcome": "partial",
                    "fields": {"actions": ["search"], "metadata": {"k": 1}},
                    **JSON,
                },
            )
        )
        assert changed["kind"] == "episode"
        assert (changed["record"]["outcome"], changed["record"]["actions"]) == (
            "partial",
            ["search"],
        )
        assert changed["record"]["metadata"] == {"k": 1}
        stepped = data_of(
            await client.call_tool("update_memory", {"id": procedure, "steps": ["a", "b"], **JSON})
        )
        assert stepped["record"]["version"] == 2
        used = lines_of(
            await client.call_tool("update_memory", {"id": procedure, "used": "success"})
        )
        assert "[worked 1/1, success rate 0.667]" in used[0]
        for arguments, expected in (
            ({"id": episode, "steps": ["x"]}, "steps: does not apply to a episode"),
            ({"id": new_fact, "used": "success"}, "used: does not apply to a fact"),
            ({"id": procedure, "used": "success", "steps": ["x"]}, "used: goes alone"),
            ({"id": episode}, "changes: name at least one field to change"),
            (
                {"id": episode, "outcome": "success", "fields": {"outcome": "failure"}},
                "fields.outcome: is an argument",
            ),
            ({"id": "nope"}, "no episode, fact or procedure has the id 'nope'"),
        ):
            assert expected in error_of(await client.call_tool("update_memory", arguments))
        kept = lines_of(
            await client.call_tool("forget_memory", {"id": new_fact, "keep_history": True})
        )
        assert kept[0].startswith(f"no longer believed: fact {new_fact}: ")
        assert "keep_history: applies to facts" in error_of(
            await client.call_tool("forget_memory", {"id": episode, "keep_history": True})
        )
        for kind, rid in (("episode", episode), ("fact", new_fact), ("procedure", procedure)):
            assert lines_of(await client.call_tool("forget_memory", {"id": rid})) == [
                f"deleted {kind} {rid}"
            ]
            again = error_of(await client.call_tool("forget_memory", {"id": rid}))
            assert "no episode, fact or procedure has the id" in again
        left = data_of(await client.call_tool("recall", {"query": "booked train"} | JSON))
        assert left["episodes"] == []
        assert left["procedures"] == []


async def test_by_id_tools_follow_the_key(memory: Memory) -> None:
    bobs = await memory.episodes.record(
        Episode(scope=Scope(tenant="t", user="bob"), description="bob's trip")
    )
    async with client_as(memory, local_key("t", user="ana")) as ana:
        for tool, args in (
            ("update_memory", {"id": bobs.id, "importance": 0.1}),
            ("forget_memory", {"id": bobs.id}),
        ):
            assert "user='ana'" in error_of(await ana.call_tool(tool, args))
    async with client_as(memory, local_key("other")) as other:
        text = error_of(await other.call_tool("forget_memory", {"id": bobs.id}))
        assert "no episode, fact or procedure has the id" in text
    assert (await memory.episodes.get(bobs.id, tenant="t")).description == "bob's trip"
