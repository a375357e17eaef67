"""Every MCP tool through the SDK's in-process client: results, scoping and error paths."""

from __future__ import annotations

from typing import Any

import pytest

from sedimem.ids import handle
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Fact
from tests.mcp.conftest import client_as, data_of, error_of, ids_in, lines_of, local_key

JSON = {"format": "json"}


async def test_remember_files_plain_text_and_learns_its_facts(memory: Memory) -> None:
    async with client_as(memory, local_key("acme", user="ana")) as client:
        lines = lines_of(await client.call_tool("remember", {"text": "Ana prefers aisle seats."}))
        (episode,) = ids_in(lines, "episode")
        (fact,) = ids_in(lines, "fact")
        assert lines[0] == f"stored note episode {episode}"
        assert lines[1].startswith(f"learned fact {fact}: Ana prefers aisle seats.")
        again = data_of(
            await client.call_tool("remember", {"text": "Ana prefers aisle seats.", **JSON})
        )
        assert again["stored"] == []
        assert again["duplicates"] == [episode]  # the same note is filed once
        assert "usage" not in again  # the rule extractor: no model
    stored = await memory.episodes.get(episode, tenant="acme")
    assert stored.task_type == "note"
    assert stored.scope == Scope(tenant="acme", user="ana")


async def test_remember_each_kind_exactly(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        episode = data_of(
            await client.call_tool(
                "remember",
                {
                    "kind": "episode",
                    "text": "Booked the night train to Oslo for Ana",
                    "outcome": "failure",
                    "lessons_learned": ["book two weeks early"],
                    "importance": 0.9,
                    "fields": {
                        "task_type": "booking",
                        "actions": ["search trains"],
                        "occurred_at": "2025-03-01T10:00:00Z",
                        "metadata": {"source": "test"},
                    },
                    "tenant": "someone-else",  # ignored: the tenant comes from the key
                    **JSON,
                },
            )
        )
        record = episode["record"]
        assert record["scope"] == {"tenant": "default"}
        assert (record["outcome"], record["task_type"], record["actions"]) == (
            "failure",
            "booking",
            ["search trains"],
        )
        assert record["metadata"] == {"source": "test"}
        fact = lines_of(
            await client.call_tool(
                "remember",
                {
                    "kind": "fact",
                    "text": "Ana lives in Oslo",
                    "subject": "Ana",
                    "predicate": "lives_in",
                    "object": "Oslo",
                    "fields": {"confidence": 0.8, "valid_from": "2024-06-01T00:00:00Z"},
                },
            )
        )
        assert fact[0].startswith("inserted fact ")
        assert fact[0].endswith("[Ana / lives_in / Oslo; confidence 0.8]")
        procedure = lines_of(
            await client.call_tool(
                "remember",
                {
                    "kind": "procedure",
                    "text": "deploying the web service",
                    "name": "deploy",
                    "steps": ["test", "roll out"],
                },
            )
        )
        assert procedure[0].startswith("stored procedure ")
        assert procedure[0].endswith("(deploy v1)")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"kind": "episode", "importance": 2}, "importance: Input should be less than or equal"),
        ({"kind": "episode", "subject": "Ana"}, "subject: does not apply to kind 'episode'"),
        ({"subject": "Ana"}, "subject: does not apply to kind 'auto' (allowed: nothing)"),
        ({"kind": "fact", "fields": {"actions": []}}, "fields.actions: is not a field kind"),
        ({"kind": "procedure", "name": "n"}, "steps: is required for kind 'procedure'"),
        ({"kind": "fact", "predicate": "p"}, "subject and predicate go together"),
        ({"kind": "memo"}, "kind: Input should be 'auto', 'fact', 'episode' or 'procedure'"),
        ({"text": ""}, "text: String should have at least 1 character"),
        ({"text": "a\x00b", "kind": "fact"}, "text: contains a NUL character"),
        ({"user": "bob"}, "restricted to user='ana'"),
    ],
)
async def test_remember_refuses_bad_arguments_naming_the_field(
    memory: Memory, arguments: dict[str, Any], expected: str
) -> None:
    async with client_as(memory, local_key(user="ana")) as client:
        message = error_of(await client.call_tool("remember", {"text": "x", **arguments}))
    assert expected in message


async def test_recall_text_lines_and_json_with_filters(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        for outcome, when in (("success", "2025-01-10T00:00:00Z"), ("failure", "2025-02-10")):
            stamp = when if "T" in when else when + "T00:00:00Z"
            await client.call_tool(
                "remember",
                {
                    "kind": "episode",
                    "text": f"deploy ended in {outcome}",
                    "outcome": outcome,
                    "fields": {"occurred_at": stamp},
                },
            )
        lines = lines_of(await client.call_tool("recall", {"query": "deploy"}))
        assert lines[0] == "facts: none"
        assert lines[1] == "episodes:"
        assert len(ids_in(lines, "episode")) == 2
        score = lines[2].split()[1]
        assert len(score.split(".")[1]) == 3  # rounded to three decimals
        assert lines[-1] == "procedures: none"
        failed = data_of(
            await client.call_tool(
                "recall", {"query": "deploy", "outcome": "failure", "kinds": ["episode"], **JSON}
            )
        )
        assert set(failed) == {"query", "episodes"}
        assert [h["record"]["outcome"] for h in failed["episodes"]] == ["failure"]
        assert "keyword" in failed["episodes"][0]["explain"]
        since = data_of(
            await client.call_tool(
                "recall", {"query": "deploy", "since": "2025-02-01T00:00:00Z", **JSON}
            )
        )
        assert [h["record"]["outcome"] for h in since["episodes"]] == ["failure"]
        until = data_of(
            await client.call_tool(
                "recall", {"query": "deploy", "until": "2025-02-01T00:00:00Z", **JSON}
            )
        )
        assert [h["record"]["outcome"] for h in until["episodes"]] == ["success"]
        bad = error_of(await client.call_tool("recall", {"query": "x", "k": 1001}))
        assert "k: Input should be less than or equal to 1000, got 1001 (allowed: 1..1000)" in bad


async def test_recall_reads_one_memory_whole_by_id_or_handle(memory: Memory) -> None:
    ana = Scope(tenant="acme", user="ana")
    fact = (await memory.facts.learn(Fact(scope=ana, statement="Ana lives in Porto"))).fact
    async with client_as(memory, local_key("acme", user="ana")) as client:
        (line,) = lines_of(await client.call_tool("recall", {"id": handle(fact.id)}))
        assert line.startswith(f"fact {fact.id}: Ana lives in Porto")
        read = data_of(await client.call_tool("recall", {"id": fact.id, **JSON}))
        assert (read["kind"], read["id"]) == ("fact", fact.id)
        assert read["record"]["statement"] == "Ana lives in Porto"
        both = error_of(await client.call_tool("recall", {"id": fact.id, "query": "Porto"}))
        assert "query: goes without id" in both
        neither = error_of(await client.call_tool("recall", {}))
        assert "query: give a query to search (or an id to read)" in neither
        absent = error_of(await client.call_tool("recall", {"id": "ffffffffff"}))
        assert "does not exist" in absent
    async with client_as(memory, local_key("acme", user="bob")) as bob:
        refused = error_of(await bob.call_tool("recall", {"id": handle(fact.id)}))
        assert f"fact '{handle(fact.id)}' cannot be read from a scope narrowed to" in refused


async def test_a_new_single_valued_fact_supersedes_and_history_stays(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:

        def fact(city: str, since: str) -> dict[str, Any]:
            return {
                "kind": "fact",
                "text": f"Ana lives in {city}",
                "subject": "Ana",
                "predicate": "lives_in",
                "object": city,
                "fields": {"valid_from": since},
                **JSON,
            }

        await client.call_tool("remember", fact("Lisbon", "2020-01-01T00:00:00Z"))
        moved = data_of(await client.call_tool("remember", fact("Oslo", "2024-06-01T00:00:00Z")))
        assert moved["action"] == "superseded"
        assert len(moved["closed"]) == 1
        now = data_of(await client.call_tool("recall", {"query": "where does Ana live", **JSON}))
        assert [h["record"]["object"] for h in now["facts"]] == ["Oslo"]
        then = data_of(
            await client.call_tool(
                "recall",
                {"query": "where does Ana live", "valid_at": "2021-01-01T00:00:00Z", **JSON},
            )
        )
        assert [h["record"]["object"] for h in then["facts"]] == ["Lisbon"]
        history = lines_of(
            await client.call_tool(
                "recall",
                {
                    "query": "Ana lives",
                    "include_history": True,
                    "subject": "Ana",
                    "predicate": "lives_in",
                    "kinds": ["fact"],
                },
            )
        )
        assert any("true 2020-01-01 00:00 .. 2024-06-01 00:00" in line for line in history)


async def test_user_memories_are_private_and_sessions_are_provenance(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        await client.call_tool(
            "remember",
            {"kind": "fact", "text": "Ana's locker code is 1234", "user": "ana", "session": "s1"},
        )
        for who, session, expected in (("ana", "s2", 1), ("bob", None, 0), (None, None, 0)):
            found = data_of(
                await client.call_tool(
                    "recall",
                    {"query": "locker code", "kinds": ["fact"], "user": who, "session": session}
                    | JSON,
                )
            )
            assert len(found["facts"]) == expected, who
        only_s2 = data_of(
            await client.call_tool(
                "recall",
                {"query": "locker code", "user": "ana", "from_session": "s2", "kinds": ["fact"]}
                | JSON,
            )
        )
        assert only_s2["facts"] == []


async def test_assemble_context_packs_memories_into_the_budget(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        await client.call_tool("remember", {"kind": "fact", "text": "Ana lives in Oslo"})
        await client.call_tool(
            "working_memory",
            {"session": "s1", "action": "set", "key": "destination", "value": "Oslo"},
        )
        text = lines_of(
            await client.call_tool(
                "assemble_context", {"query": "Oslo trip", "session": "s1", "budget_tokens": 500}
            )
        )
        head = text[0]
        assert head.startswith("<!-- ")
        assert "/500 tokens" in head
        assert any("Ana lives in Oslo" in line for line in text)
        packed = data_of(
            await client.call_tool(
                "assemble_context", {"query": "Oslo", "budget_tokens": 500, "session": "s1"} | JSON
            )
        )
        assert packed["tokens_used"] <= 500
        assert "destination" in packed["text"]
        tiny = error_of(
            await client.call_tool("assemble_context", {"query": "Oslo", "budget_tokens": 0})
        )
        assert "budget_tokens: Input should be greater than or equal to 1, got 0" in tiny
        assert "(allowed: 1..1000000)" in tiny


async def test_working_memory_actions(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:

        async def act(action: str, **arguments: Any) -> list[str]:
            return lines_of(
                await client.call_tool(
                    "working_memory", {"session": "s1", "action": action, **arguments}
                )
            )

        assert await act("set", key="step", value={"n": 1}, ttl_seconds=60) == ["set step"]
        assert await act("get", key="step") == ['step = {"n":1}']
        assert await act("get", key="absent") == ["absent: not set"]
        assert await act("note", text="first idea") == ["noted (1)"]
        task = await act("task", value={"task_id": "t1", "status": "in_progress", "total_steps": 3})
        assert task == ["task t1: in_progress, step 0/3, 0.0%"]
        (made,) = await act("checkpoint", text="before risky step")
        checkpoint = made.split()[1]
        await act("set", key="step", value=2)
        assert await act("restore", checkpoint_id=checkpoint) == [f"restored {checkpoint}"]
        everything = await act("get")
        assert everything[:3] == [
            "session s1",
            'step = {"n":1}',
            "task t1: in_progress, step 0/3, 0.0%",
        ]
        assert everything[4].endswith(" first idea")
        assert everything[5].startswith(f"checkpoint {checkpoint}: before risky step at ")
        assert await act("delete", key="step") == ["step: deleted"]
        state = data_of(await client.call_tool("working_memory", {"session": "s1", **JSON}))
        assert state["values"] == {}
        assert [n["text"] for n in state["scratchpad"]] == ["first idea"]
        for arguments, expected in (
            ({"action": "set", "key": "k"}, "value: is required to set a key"),
            ({"action": "set", "value": 1}, "key: is required to set a key"),
            ({"action": "note"}, "text: is required to note"),
            ({"action": "task", "value": 3}, "value: must give the task state"),
            ({"action": "task", "value": {"task_id": "t", "status": "x"}}, "status"),
            ({"action": "restore"}, "checkpoint_id: is required to restore"),
            ({"action": "restore", "checkpoint_id": "c1"}, "checkpoint 'c1' does not exist"),
            ({"action": "set", "key": "k", "value": 1, "ttl_seconds": 0}, "ttl_seconds"),
            ({"action": "set", "key": "__x", "value": 1}, "reserved"),
        ):
            message = error_of(
                await client.call_tool("working_memory", {"session": "s1", **arguments})
            )
            assert expected in message, arguments
        assert "session" in error_of(await client.call_tool("working_memory", {}))


async def test_ingest_messages_files_turns_once_and_learns_facts(memory: Memory) -> None:
    turns = [
        {"role": "user", "name": "Ana", "content": "I work at Acme.", "id": "t1"},
        {"role": "assistant", "content": "Noted, Acme it is.", "id": "t2"},
    ]
    async with client_as(memory, local_key("acme", user="ana")) as client:
        first = lines_of(
            await client.call_tool("ingest_messages", {"messages": turns, "session": "s1"})
        )
        assert first[0] == "stored 2 turns, 0 already stored"
        assert first[1].startswith("facts inserted: ")
        again = data_of(await client.call_tool("ingest_messages", {"messages": turns} | JSON))
        assert again["stored"] == []
        assert len(again["duplicates"]) == 2
        bad = await client.call_tool(
            "ingest_messages", {"messages": [{"role": "robot", "content": "hi"}]}
        )
        assert "role" in error_of(bad)
    (fact,) = await memory.facts.current("Ana", "works_at", scope=Scope(tenant="acme", user="ana"))
    assert fact.object == "Acme"


async def test_inspect_memory_stats_reflection_and_predicates(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        for n, outcome in enumerate(("success", "failure", "success")):
            await client.call_tool(
                "remember",
                {
                    "kind": "episode",
                    "text": f"deploy {n}",
                    "outcome": outcome,
                    "fields": {"task_type": "deploy"},
                },
            )
        stats = lines_of(await client.call_tool("inspect_memory", {}))
        assert stats[0].startswith("longterm: episodes 3, facts 0")
        with_session = data_of(await client.call_tool("inspect_memory", {"session": "s"} | JSON))
        assert with_session["working"]["keys"] == 0
        reflected = lines_of(await client.call_tool("inspect_memory", {"report": "reflect"}))
        assert reflected[0] == "3 episodes analysed; success rate 0.667 of 3"
        listed = lines_of(await client.call_tool("inspect_memory", {"report": "predicates"}))
        assert "prefers_seat" not in listed[0]
        declared = data_of(
            await client.call_tool(
                "inspect_memory", {"report": "predicates", "declare": ["prefers_seat"]} | JSON
            )
        )
        assert "prefers_seat" in declared["single_valued"]
        misplaced = error_of(await client.call_tool("inspect_memory", {"declare": ["x"]}))
        assert "declare: goes with report 'predicates'" in misplaced
    async with client_as(memory, local_key(user="ana")) as narrowed:
        refused = error_of(
            await narrowed.call_tool("inspect_memory", {"report": "predicates", "declare": ["x"]})
        )
        assert "narrowed" in refused or "restricted" in refused
        # every report applies the key's narrowing: another user is refused, its own is not
        for report in ("predicates", "stats", "reflect"):
            outside = error_of(
                await narrowed.call_tool("inspect_memory", {"report": report, "user": "bob"})
            )
            assert "restricted to user='ana'" in outside, outside
        own = lines_of(
            await narrowed.call_tool("inspect_memory", {"report": "predicates", "user": "ana"})
        )
        assert own[0].startswith("single-valued predicates:")


async def test_erase_memories_within_the_keys_narrowing(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        for user in ("ana", "bo"):
            await client.call_tool(
                "remember", {"kind": "fact", "text": f"{user} likes tea", "user": user}
            )
    async with client_as(memory, local_key(user="ana")) as ana:
        assert lines_of(await ana.call_tool("erase_memories", {})) == ["erased: 1 facts"]
        assert "restricted to user='ana'" in error_of(
            await ana.call_tool("erase_memories", {"user": "bo"})
        )
    async with client_as(memory, local_key(project="p")) as project_key:
        refused = error_of(await project_key.call_tool("erase_memories", {"user": "bo"}))
        assert "erasure spans projects and agents" in refused
    async with client_as(memory, local_key()) as client:
        erased = data_of(await client.call_tool("erase_memories", {"user": "bo"} | JSON))
        assert erased["erased"]["facts"] == 1


async def test_the_tenant_is_the_keys_and_unknown_tools_are_errors(memory: Memory) -> None:
    async with client_as(memory, local_key("acme")) as acme:
        await acme.call_tool("remember", {"kind": "episode", "text": "secret plan"})
        assert "Unknown tool: nope" in error_of(await acme.call_tool("nope", {}))
    async with client_as(memory, local_key("other")) as other:
        theirs = data_of(await other.call_tool("recall", {"query": "secret plan"} | JSON))
        assert theirs["episodes"] == []
        assert theirs["facts"] == []
