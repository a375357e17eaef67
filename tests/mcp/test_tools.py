"""Every MCP tool through the SDK's in-process client: results, scoping and error paths."""

from __future__ import annotations

import pytest

from sedimem.mcp import TOOL_NAMES
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.mcp.conftest import client_as, data_of, error_of, local_key


async def test_lists_every_tool_with_schemas_that_state_limits(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == set(TOOL_NAMES)
        for tool in tools.values():
            assert len(tool.description or "") > 80, tool.name
            assert tool.annotations is not None
            assert tool.annotations.title
            assert tool.input_schema["type"] == "object"
        remember = tools["remember"].input_schema["properties"]
        assert remember["tier"]["enum"] == ["working", "episodic", "semantic", "procedural"]
        importance = remember["importance"]["anyOf"][0]
        assert (importance["minimum"], importance["maximum"]) == (0, 1)
        assert remember["ttl_seconds"]["anyOf"][0]["exclusiveMinimum"] == 0
        assert remember["description"]["anyOf"][0]["maxLength"] == 20_000
        recall = tools["recall"].input_schema["properties"]
        assert (recall["k"]["minimum"], recall["k"]["maximum"]) == (1, 100)
        assert recall["query"]["maxLength"] == 10_000
        assert tools["assemble_context"].input_schema["properties"]["budget_tokens"]["maximum"]
        assert tools["forget"].annotations
        assert tools["forget"].annotations.destructive_hint
        assert tools["recall"].annotations
        assert tools["recall"].annotations.read_only_hint


async def test_remember_each_tier_and_recall_them(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        episode = data_of(
            await client.call_tool(
                "remember",
                {
                    "tier": "episodic",
                    "description": "Booked the night train to Oslo for Ana",
                    "outcome": "success",
                    "actions": ["search trains", "book seat"],
                    "lessons_learned": ["book two weeks early"],
                    "task_type": "booking",
                    "importance": 0.9,
                    "duration_seconds": 12.5,
                    "tokens_used": 800,
                    "occurred_at": "2025-03-01T10:00:00Z",
                    "metadata": {"source": "test"},
                    "tenant": "someone-else",  # ignored: the tenant comes from the key
                },
            )
        )
        assert episode["tier"] == "episodic"
        assert episode["record"]["scope"] == {"tenant": "default"}
        assert episode["record"]["actions"] == ["search trains", "book seat"]
        fact = data_of(
            await client.call_tool(
                "remember",
                {
                    "tier": "semantic",
                    "statement": "Ana prefers night trains",
                    "subject": "Ana",
                    "predicate": "prefers",
                    "object": "night trains",
                    "confidence": 0.8,
                },
            )
        )
        assert fact["action"] == "inserted"
        assert fact["closed"] == []
        procedure = data_of(
            await client.call_tool(
                "remember",
                {
                    "tier": "procedural",
                    "name": "book a train",
                    "trigger": "booking train travel",
                    "steps": ["search trains", "compare prices", "book seat"],
                },
            )
        )
        assert procedure["version"] == 1

        found = data_of(await client.call_tool("recall", {"query": "night train Oslo", "k": 5}))
        assert set(found) == {"query", "episodic", "semantic", "procedural"}
        assert found["episodic"][0]["id"] == episode["id"]
        assert found["semantic"][0]["id"] == fact["id"]
        assert found["procedural"][0]["id"] == procedure["id"]
        explain = found["episodic"][0]["explain"]
        assert {"recency", "importance", "fused", "score"} <= set(explain)
        only = data_of(await client.call_tool("recall", {"query": "train", "tiers": ["semantic"]}))
        assert set(only) == {"query", "semantic"}


async def test_recall_filters_apply_to_their_tier(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        for outcome, when in (
            ("success", "2025-01-10T00:00:00Z"),
            ("failure", "2025-02-10T00:00:00Z"),
        ):
            data_of(
                await client.call_tool(
                    "remember",
                    {
                        "tier": "episodic",
                        "description": f"deploy ended in {outcome}",
                        "outcome": outcome,
                        "occurred_at": when,
                    },
                )
            )
        failed = data_of(
            await client.call_tool("recall", {"query": "deploy", "outcome": "failure"})
        )
        assert [h["record"]["outcome"] for h in failed["episodic"]] == ["failure"]
        since = data_of(
            await client.call_tool("recall", {"query": "deploy", "since": "2025-02-01T00:00:00Z"})
        )
        assert [h["record"]["outcome"] for h in since["episodic"]] == ["failure"]
        until = data_of(
            await client.call_tool("recall", {"query": "deploy", "until": "2025-02-01T00:00:00Z"})
        )
        assert [h["record"]["outcome"] for h in until["episodic"]] == ["success"]


async def test_a_new_single_valued_fact_supersedes_and_history_stays(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:

        def fact(city: str, since: str) -> dict[str, str]:
            return {
                "tier": "semantic",
                "statement": f"Ana lives in {city}",
                "subject": "Ana",
                "predicate": "lives_in",
                "object": city,
                "valid_from": since,
            }

        data_of(await client.call_tool("remember", fact("Lisbon", "2020-01-01T00:00:00Z")))
        moved = data_of(await client.call_tool("remember", fact("Oslo", "2024-06-01T00:00:00Z")))
        assert moved["action"] == "superseded"
        assert len(moved["closed"]) == 1
        now = data_of(await client.call_tool("recall", {"query": "where does Ana live"}))
        assert [h["record"]["object"] for h in now["semantic"]] == ["Oslo"]
        then = data_of(
            await client.call_tool(
                "recall",
                {"query": "where does Ana live", "valid_at": "2021-01-01T00:00:00Z"},
            )
        )
        assert [h["record"]["object"] for h in then["semantic"]] == ["Lisbon"]
        history = data_of(
            await client.call_tool(
                "recall",
                {
                    "query": "Ana lives",
                    "include_history": True,
                    "subject": "Ana",
                    "predicate": "lives_in",
                },
            )
        )
        assert sorted(h["record"]["object"] for h in history["semantic"]) == ["Lisbon", "Oslo"]


async def test_remember_refuses_bad_arguments_naming_the_field(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        cases = {
            "importance: Input should be less than or equal to 1, got 2 (allowed: 0..1)": {
                "tier": "episodic",
                "description": "x",
                "importance": 2,
            },
            "description: is required for tier 'episodic' (allowed: 1..20000 characters)": {
                "tier": "episodic"
            },
            "statement: is not used by tier 'episodic'": {
                "tier": "episodic",
                "description": "x",
                "statement": "y",
            },
            "session: is required for tier 'working' (allowed: 1..128 characters)": {
                "tier": "working",
                "key": "k",
                "value": 1,
            },
            "tier: Input should be 'working', 'episodic', 'semantic' or 'procedural'": {
                "tier": "long"
            },
            "ttl_seconds: Input should be greater than 0, got 0 (allowed: > 0 and <= 31536000)": {
                "tier": "working",
                "session": "s",
                "key": "k",
                "value": 1,
                "ttl_seconds": 0,
            },
            "predicate: Value error, subject and predicate go together": {
                "tier": "semantic",
                "statement": "x",
                "predicate": "likes",
            },
            "steps: List should have at least 1 item after validation, not 0, got []": {
                "tier": "procedural",
                "name": "n",
                "trigger": "t",
                "steps": [],
            },
            "metadata: Dictionary should have at most 50 items": {
                "tier": "episodic",
                "description": "x",
                "metadata": {str(i): i for i in range(51)},
            },
            "actions.1: String should have at least 1 character": {
                "tier": "episodic",
                "description": "x",
                "actions": ["a", ""],
            },
        }
        for expected, arguments in cases.items():
            message = error_of(await client.call_tool("remember", arguments))
            assert message.startswith("Error executing tool remember: "), message
            assert expected in message, (expected, message)


async def test_remember_working_and_scope_narrowing(memory: Memory) -> None:
    async with client_as(memory, local_key(project="p1")) as narrowed:
        stored = data_of(
            await narrowed.call_tool(
                "remember",
                {"tier": "working", "session": "s1", "key": "goal", "value": {"city": "Oslo"}},
            )
        )
        assert stored == {"tier": "working", "session": "s1", "key": "goal", "ttl_seconds": None}
        got = data_of(await narrowed.call_tool("working_get", {"session": "s1", "key": "goal"}))
        assert got == {"key": "goal", "found": True, "value": {"city": "Oslo"}}
        denied = error_of(
            await narrowed.call_tool(
                "remember", {"tier": "episodic", "description": "x", "project": "p2"}
            )
        )
        assert "restricted to project='p1'" in denied
        episode = data_of(
            await narrowed.call_tool("remember", {"tier": "episodic", "description": "x"})
        )
        assert episode["record"]["scope"]["project"] == "p1"


async def test_user_memories_are_private_to_that_user(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        data_of(
            await client.call_tool(
                "remember",
                {"tier": "episodic", "description": "Ana's passport expires", "user": "ana"},
            )
        )
        anonymous = data_of(await client.call_tool("recall", {"query": "passport expires"}))
        assert anonymous["episodic"] == []
        ana = data_of(
            await client.call_tool("recall", {"query": "passport expires", "user": "ana"})
        )
        assert len(ana["episodic"]) == 1


async def test_what_one_session_remembers_the_next_recalls(memory: Memory) -> None:
    owner = {"user": "ana", "agent": "planner"}
    async with client_as(memory, local_key()) as client:
        for tier, fields in (
            ("episodic", {"description": "Booked the night train to Oslo"}),
            ("semantic", {"statement": "Ana prefers the night train to Oslo"}),
        ):
            data_of(
                await client.call_tool(
                    "remember", {"tier": tier, **fields, **owner, "session": "s1"}
                )
            )

        async def recall(**extra: str) -> tuple[int, int]:
            found = data_of(
                await client.call_tool(
                    "recall",
                    {"query": "night train to Oslo", **owner, "session": "s2", **extra},
                )
            )
            return len(found["episodic"]), len(found["semantic"])

        assert await recall() == (1, 1)
        assert await recall(from_session="s1") == (1, 1)
        assert await recall(from_session="s2") == (0, 0)
        context = data_of(
            await client.call_tool(
                "assemble_context", {"query": "night train to Oslo", **owner, "session": "s2"}
            )
        )
        assert "Ana prefers the night train to Oslo" in context["text"]
        assert "Booked the night train to Oslo" in context["text"]


async def test_recall_refuses_bad_arguments(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        cases = {
            "k: Input should be less than or equal to 100, got 101 (allowed: 1..100)": {
                "query": "q",
                "k": 101,
            },
            "since: Input should have timezone info": {
                "query": "q",
                "since": "2025-01-01T00:00:00",
            },
            "(allowed: an ISO 8601 date-time with a time zone": {
                "query": "q",
                "valid_at": "yesterday",
            },
            "tiers.0: Input should be 'episodic', 'semantic' or 'procedural'": {
                "query": "q",
                "tiers": ["working"],
            },
            "query: Field required (allowed: 1..10000 characters)": {},
            "query: String should have at most 10000 characters, got 'qqqq": {
                "query": "q" * 10_001
            },
            "min_importance: Input should be greater than or equal to 0": {
                "query": "q",
                "min_importance": -1,
            },
            "and 1 more problem(s)": {"query": "", "k": 0},
            "query: must be non-empty text": {"query": "   "},
            "subject: String should have at least 1 character": {"query": "q", "subject": ""},
        }
        for expected, arguments in cases.items():
            message = error_of(await client.call_tool("recall", arguments))
            assert expected in message, (expected, message)
        long = error_of(await client.call_tool("recall", {"query": "q" * 10_001}))
        assert len(long) < 300
        assert long.endswith("qq... (allowed: 1..10000 characters)")


async def test_assemble_context_packs_memories_and_working_state(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        data_of(
            await client.call_tool(
                "remember", {"tier": "episodic", "description": "Oslo hotel was fully booked"}
            )
        )
        data_of(
            await client.call_tool(
                "working_set", {"session": "trip", "key": "destination", "value": "Oslo"}
            )
        )
        data_of(
            await client.call_tool("append_scratchpad", {"session": "trip", "text": "try Bergen"})
        )
        packed = data_of(
            await client.call_tool(
                "assemble_context",
                {"query": "Oslo hotel", "budget_tokens": 300, "session": "trip"},
            )
        )
        assert "Oslo hotel was fully booked" in packed["text"]
        assert "destination" in packed["text"]
        assert "try Bergen" in packed["text"]
        assert 0 < packed["tokens_used"] <= 300
        assert packed["budget_tokens"] == 300
        assert {t["tier"] for t in packed["tiers"]} >= {"episodes", "working"}
        assert packed["included"] >= 3
        tiny = error_of(
            await client.call_tool("assemble_context", {"query": "Oslo", "budget_tokens": 0})
        )
        assert "budget_tokens: Input should be greater than or equal to 1, got 0" in tiny
        assert "(allowed: 1..200000)" in tiny


async def test_procedures_search_and_outcomes(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        recorded = data_of(
            await client.call_tool(
                "remember",
                {
                    "tier": "procedural",
                    "name": "deploy service",
                    "trigger": "deploying the web service",
                    "steps": ["run tests", "build image", "roll out"],
                    "project": "web",
                },
            )
        )
        again = data_of(
            await client.call_tool(
                "remember",
                {
                    "tier": "procedural",
                    "name": "deploy service",
                    "trigger": "deploying the web service",
                    "steps": ["run tests", "build image", "canary", "roll out"],
                    "project": "web",
                },
            )
        )
        assert again["id"] == recorded["id"]
        assert again["version"] == 2
        found = data_of(
            await client.call_tool("search_procedures", {"task": "deploy the web service", "k": 3})
        )
        assert found["procedures"][0]["id"] == recorded["id"]
        assert found["procedures"][0]["success_rate"] == 0.5
        assert found["procedures"][0]["record"]["steps"][2] == "canary"
        win = data_of(
            await client.call_tool(
                "record_outcome", {"procedure_id": recorded["id"], "success": True}
            )
        )
        loss = data_of(
            await client.call_tool(
                "record_outcome", {"procedure_id": recorded["id"], "success": False}
            )
        )
        assert (win["success_count"], loss["failure_count"]) == (1, 1)
        assert loss["success_rate"] == 0.5
        assert loss["last_used_at"]
        missing = error_of(
            await client.call_tool("record_outcome", {"procedure_id": "nope", "success": True})
        )
        assert "procedure 'nope' does not exist" in missing
        bad = error_of(
            await client.call_tool(
                "record_outcome", {"procedure_id": recorded["id"], "success": "?"}
            )
        )
        assert "success: Input should be a valid boolean" in bad
        assert "(allowed: a JSON boolean)" in bad
        async with client_as(memory, local_key(project="mobile")) as other_project:
            denied = error_of(
                await other_project.call_tool(
                    "record_outcome", {"procedure_id": recorded["id"], "success": True}
                )
            )
            assert "narrowed to project='mobile'" in denied
            hidden = data_of(
                await other_project.call_tool(
                    "search_procedures", {"task": "deploy the web service"}
                )
            )
            assert hidden["procedures"] == []
        async with client_as(memory, local_key(project="web")) as same_project:
            data_of(
                await same_project.call_tool(
                    "record_outcome", {"procedure_id": recorded["id"], "success": True}
                )
            )


async def test_reflect_and_stats(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        for i in range(3):
            data_of(
                await client.call_tool(
                    "remember",
                    {"tier": "episodic", "description": f"task {i}", "task_type": "triage"},
                )
            )
        report = data_of(await client.call_tool("reflect", {"task_types": ["triage"]}))
        assert {"patterns", "success_factors", "anomalies", "insights"} <= set(report)
        windowed = data_of(
            await client.call_tool(
                "reflect",
                {"since": "2020-01-01T00:00:00Z", "until": "2030-01-01T00:00:00Z"},
            )
        )
        assert "patterns" in windowed
        short = error_of(await client.call_tool("reflect", {"baseline_days": 3}))
        assert "baseline_days: 3.0 is out of range" in short
        backwards = error_of(
            await client.call_tool(
                "reflect", {"since": "2025-01-02T00:00:00Z", "until": "2025-01-01T00:00:00Z"}
            )
        )
        assert "time_range: ends before it starts" in backwards

        stats = data_of(await client.call_tool("get_memory_stats", {}))
        assert stats["longterm"]["episodes"] == 3
        assert "working" not in stats
        data_of(await client.call_tool("working_set", {"session": "s", "key": "k", "value": 1}))
        with_session = data_of(await client.call_tool("get_memory_stats", {"session": "s"}))
        assert with_session["working"]["keys"] == 1
        assert with_session["scope"] == {"tenant": "default", "session": "s"}


async def test_working_memory_tools(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        session = {"session": "run-1"}
        assert data_of(await client.call_tool("working_get", {**session, "key": "x"})) == {
            "key": "x",
            "found": False,
            "value": None,
        }
        data_of(await client.call_tool("working_set", {**session, "key": "step", "value": 1}))
        data_of(
            await client.call_tool(
                "working_set", {**session, "key": "temp", "value": [1, 2], "ttl_seconds": 60}
            )
        )
        for note in ("first", "second", "third"):
            appended = data_of(
                await client.call_tool("append_scratchpad", {**session, "text": note})
            )
        assert appended["scratchpad_entries"] == 3
        checkpoint = data_of(
            await client.call_tool("checkpoint", {**session, "description": "before step 2"})
        )
        data_of(await client.call_tool("working_set", {**session, "key": "step", "value": 2}))
        view = data_of(await client.call_tool("working_get", {**session, "scratchpad_entries": 2}))
        assert view["values"] == {"step": 2, "temp": [1, 2]}
        assert [n["text"] for n in view["scratchpad"]] == ["second", "third"]
        assert view["scratchpad_total"] == 3
        assert view["task_state"] is None
        assert [c["id"] for c in view["checkpoints"]] == [checkpoint["checkpoint_id"]]
        restored = data_of(
            await client.call_tool(
                "restore", {**session, "checkpoint_id": checkpoint["checkpoint_id"]}
            )
        )
        assert restored["restored"] == checkpoint["checkpoint_id"]
        view = data_of(await client.call_tool("working_get", {**session, "scratchpad_entries": 0}))
        assert view["values"]["step"] == 1
        assert view["scratchpad"] == []

        errors = {
            "checkpoint 'nope' does not exist in this session": (
                "restore",
                {**session, "checkpoint_id": "nope"},
            ),
            "key: '__task' is reserved": ("working_set", {**session, "key": "__task", "value": 1}),
            "value: Field required": ("working_set", {**session, "key": "k"}),
            "session: Field required (allowed: 1..128 characters)": ("working_get", {}),
            "text: String should have at least 1 character": (
                "append_scratchpad",
                {**session, "text": ""},
            ),
            "description: String should have at most 1024 characters": (
                "checkpoint",
                {**session, "description": "d" * 1025},
            ),
        }
        for expected, (tool, arguments) in errors.items():
            message = error_of(await client.call_tool(tool, arguments))
            assert expected in message, (expected, message)
        no_allowed = error_of(await client.call_tool("working_set", {**session, "key": "k"}))
        assert "allowed" not in no_allowed


async def test_forget_within_the_keys_narrowing(memory: Memory) -> None:
    async with client_as(memory, local_key()) as admin:
        for user in ("ana", "bo"):
            data_of(
                await admin.call_tool(
                    "remember",
                    {"tier": "episodic", "description": f"{user} asked for help", "user": user},
                )
            )
        nothing = error_of(await admin.call_tool("forget", {}))
        assert "user: name at least one of user, session, before" in nothing
        naive = error_of(await admin.call_tool("forget", {"before": "2025-01-01T00:00:00"}))
        assert "before: Input should have timezone info" in naive
        await memory.blocks(Scope(user="ana")).update("profile", "ana's SSN 123-45-6789")
        erased = data_of(await admin.call_tool("forget", {"user": "ana"}))
        assert erased["erased"]["episodes"] == 1
        assert erased["erased"]["blocks"] == 1
        assert await memory.blocks(Scope(user="ana")).list() == []
    async with client_as(memory, local_key(user="bo")) as bo:
        denied = error_of(await bo.call_tool("forget", {"user": "ana"}))
        assert "restricted to user='bo'" in denied
        own = data_of(await bo.call_tool("forget", {"before": "2999-01-01T00:00:00Z"}))
        assert own["erased"]["episodes"] == 1
    async with client_as(memory, local_key(project="p")) as project_key:
        refused = error_of(await project_key.call_tool("forget", {"user": "bo"}))
        assert "forget erases across projects and agents" in refused


async def test_unknown_tool_is_a_tool_error(memory: Memory) -> None:
    async with client_as(memory, local_key()) as client:
        assert "Unknown tool: nope" in error_of(await client.call_tool("nope", {}))


@pytest.mark.parametrize("tenant", ["acme"])
async def test_the_tenant_is_the_keys(memory: Memory, tenant: str) -> None:
    async with client_as(memory, local_key(tenant)) as acme:
        data_of(
            await acme.call_tool("remember", {"tier": "episodic", "description": "secret plan"})
        )
        mine = data_of(await acme.call_tool("recall", {"query": "secret plan"}))
        assert mine["episodic"][0]["record"]["scope"]["tenant"] == tenant
    async with client_as(memory, local_key("other")) as other:
        theirs = data_of(await other.call_tool("recall", {"query": "secret plan"}))
        assert theirs["episodic"] == []
        assert theirs["semantic"] == []


async def test_nul_in_text_is_refused_naming_the_field(memory: Memory) -> None:
    # the records refuse NUL themselves, so MCP answers like REST and Python do
    async with client_as(memory, local_key()) as client:
        episode = await client.call_tool(
            "remember", {"tier": "episodic", "description": "d", "actions": ["a", "b\x00c"]}
        )
        assert "actions.1: contains a NUL character" in error_of(episode)
        fact = await client.call_tool("remember", {"tier": "semantic", "statement": "a\x00b"})
        assert "statement: contains a NUL character" in error_of(fact)
        found = data_of(await client.call_tool("recall", {"query": "d"}))
        assert all(not hits for hits in found.values() if isinstance(hits, list))


async def test_ingest_messages_files_turns_once_and_learns_facts(memory: Memory) -> None:
    turns = [
        {"role": "user", "name": "Ana", "content": "I work at Acme.", "id": "t1"},
        {"role": "assistant", "content": "Noted, Acme it is.", "id": "t2"},
    ]
    async with client_as(memory, local_key("acme", user="ana")) as client:
        first = data_of(
            await client.call_tool("ingest_messages", {"messages": turns, "session": "s1"})
        )
        assert len(first["stored"]) == 2
        assert len(first["inserted"]) == 1
        again = data_of(await client.call_tool("ingest_messages", {"messages": turns}))
        assert again["stored"] == []
        assert sorted(again["duplicates"]) == sorted(first["stored"])
        bad = await client.call_tool(
            "ingest_messages", {"messages": [{"role": "robot", "content": "hi"}]}
        )
        assert "role" in error_of(bad)
    scope = Scope(tenant="acme", user="ana")
    (fact,) = await memory.facts.current("Ana", "works_at", scope=scope)
    assert fact.object == "Acme"
