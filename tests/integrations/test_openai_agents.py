"""``SedimemSession`` against the SDK's own ``SQLiteSession``: the same random operation
sequences, the same observable results, on every working store."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from agents.memory import SQLiteSession
from agents.memory.session_settings import SessionSettings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sedimem.embed.hashing import HashEmbedder
from sedimem.errors import ConfigurationError, LimitExceeded, ValidationError
from sedimem.integrations.loop import BackgroundMemory
from sedimem.integrations.openai_agents import SedimemSession
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.conversation import MAX_MESSAGE_CHARS

EXAMPLES = 60  # generated operation sequences per working store

_item = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["user", "assistant", "system"]),
        "content": st.text(max_size=20),
    }
)
_op = st.one_of(
    st.tuples(st.just("add"), st.lists(_item, max_size=4)),
    st.tuples(st.just("get"), st.one_of(st.none(), st.integers(-2, 6))),
    st.tuples(st.just("pop"), st.none()),
    st.tuples(st.just("clear"), st.none()),
)


@pytest.fixture
def background(working_url: str, tmp_path: Path) -> Iterator[BackgroundMemory]:
    with BackgroundMemory.open(
        working=working_url, store=f"sqlite:///{tmp_path / 'lt.db'}", embedder=HashEmbedder()
    ) as bg:
        yield bg


async def _apply(session: Any, op: str, arg: Any) -> Any:
    if op == "add":
        return await session.add_items(list(arg))
    if op == "get":
        return await session.get_items(arg)
    if op == "pop":
        return await session.pop_item()
    return await session.clear_session()


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(ops=st.lists(_op, max_size=12))
def test_same_results_as_sqlite_session(
    background: BackgroundMemory, ops: list[tuple[str, Any]]
) -> None:
    async def run() -> None:
        sid = uuid4().hex
        ours = SedimemSession(
            sid, background.memory, Scope(tenant="agents"), bridge=background.bridge
        )
        oracle = SQLiteSession(sid)  # the SDK's own, in memory
        try:
            for op, arg in ops:
                assert await _apply(ours, op, arg) == await _apply(oracle, op, arg), (op, arg, ops)
            assert await ours.get_items() == await oracle.get_items()
        finally:
            oracle.close()

    # a loop of the test's own: the session reaches its memory's loop through the bridge,
    # as it does under the SDK's Runner.run_sync
    asyncio.run(run())


async def test_session_settings_limit_and_history_across_handles(open_memory: Any) -> None:
    async with open_memory() as memory:
        first = SedimemSession("s1", memory, session_settings=SessionSettings(limit=2))
        await first.add_items([{"role": "user", "content": str(i)} for i in range(3)])
        assert [i["content"] for i in await first.get_items()] == ["1", "2"]
        again = SedimemSession("s1", memory)
        assert len(await again.get_items()) == 3
        assert await SedimemSession("s2", memory).get_items() == []
        # the items live in the session's working memory, beside nothing else
        assert len(await first.working.list_keys("openai-agents/*")) == 3


async def test_concurrent_pops_return_each_item_once(open_memory: Any) -> None:
    async with open_memory() as memory:
        session = SedimemSession("pops", memory)
        await session.add_items([{"content": str(i)} for i in range(10)])
        popped = await asyncio.gather(*(session.pop_item() for _ in range(12)))
        got = sorted(p["content"] for p in popped if p is not None)
        assert got == sorted(str(i) for i in range(10))
        assert popped.count(None) == 2


async def test_a_batch_that_does_not_fit_writes_nothing(tmp_path: Path) -> None:
    from sedimem.config import Settings, WorkingSettings
    from sedimem.memory import Memory

    url = f"sqlite:///{tmp_path / 'm.db'}"
    small = Settings(working=WorkingSettings(max_keys_per_session=3))
    async with await Memory.open(url, settings=small, embedder=HashEmbedder()) as memory:
        session = SedimemSession("full", memory)
        await session.add_items([{"n": 1}, {"n": 2}])
        with pytest.raises(LimitExceeded, match="items"):
            await session.add_items([{"n": 3}, {"n": 4}])
        assert await session.get_items() == [{"n": 1}, {"n": 2}]


async def test_scope_with_a_session_is_refused(open_memory: Any) -> None:
    async with open_memory() as memory:
        with pytest.raises(ValidationError, match=r"scope\.session"):
            SedimemSession("x", memory, Scope(session="other"))


def test_blocking_on_the_memorys_own_loop_is_refused(background: BackgroundMemory) -> None:
    async def on_own_loop() -> None:
        with pytest.raises(ConfigurationError, match="block forever"):
            background.bridge.block(asyncio.sleep(0))

    background.bridge.block(on_own_loop())


def test_building_outside_a_loop_without_a_bridge_is_refused(background: BackgroundMemory) -> None:
    with pytest.raises(ConfigurationError, match="no running event loop"):
        SedimemSession("x", background.memory)


def test_the_docs_example_runs(tmp_path: Path) -> None:
    doc = Path(__file__).parents[2] / "docs" / "integrations" / "openai-agents.md"
    block = re.findall(r"```python\n(.*?)```", doc.read_text(), flags=re.S)[0]
    namespace: dict[str, Any] = {}
    exec(block, namespace)
    items = asyncio.run(namespace["conversation"](str(tmp_path / "chat.db")))
    assert items == [{"role": "assistant", "content": "It ships tomorrow."}]


@pytest.fixture(params=["sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def shared_working_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A working store several processes share (the in-process one is not)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pops.db'}"
    return str(request.getfixturevalue("redis_url"))


@pytest.mark.slow
async def test_processes_popping_one_conversation_get_each_item_once(
    shared_working_url: str, tmp_path: Path
) -> None:
    working_url = shared_working_url
    store = f"sqlite:///{tmp_path / 'pops-lt.db'}"
    async with await Memory.open(working=working_url, store=store, embedder=HashEmbedder()) as m:
        await SedimemSession("shared", m, Scope(tenant="pops")).add_items(
            [{"n": i} for i in range(30)]
        )
    script = Path(__file__).parent / "pops_proc.py"
    start_at = str(time.time() + 3)
    procs = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            str(script),
            working_url,
            store,
            "shared",
            start_at,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        for _ in range(3)
    ]
    popped: list[int] = []
    for proc in procs:
        out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
        assert proc.returncode == 0, err.decode()
        popped += json.loads(out.decode().strip().splitlines()[-1])
    assert sorted(popped) == list(range(30))  # every item once: none lost, none twice


async def test_ingest_files_each_turn_as_an_episode_and_learns_its_facts(
    open_memory: Any,
) -> None:
    async with open_memory() as memory:
        scope = Scope(tenant="agents", user="ana")
        session = SedimemSession(
            "chat", memory, scope, ingest="inline", names={"user": "Ana", "assistant": "Bot"}
        )
        await session.add_items(
            [
                {"role": "user", "content": "I live in Oslo."},
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Noted.", "annotations": []}],
                },
                {"role": "developer", "content": "   "},
                {"role": "user"},
            ]
        )
        first = session.last_ingest
        assert first is not None
        assert first.status == "done"
        assert len(first.stored) == 2  # the tool call and the empty messages: history only
        assert len(await session.get_items()) == 5
        # the same words again are a new turn, filed again
        await session.add_items([{"role": "user", "content": "I live in Oslo."}])
        assert session.last_ingest is not None
        assert len(session.last_ingest.stored) == 1

        in_session = scope.with_session("chat")
        page = await memory.episodes.list(in_session, session="chat")
        assert [(e.input_text, e.output_text) for e in page.items] == [
            ("I live in Oslo.", None),
            (None, "Noted."),
            ("I live in Oslo.", None),
        ]
        assert all(e.task_type == "conversation" for e in page.items)
        lives = await memory.facts.current("Ana", "lives_in", scope=in_session)
        assert [f.object for f in lives] == ["Oslo"]
        assert await memory.episodes.session_messages(in_session) == [
            {"role": "user", "content": "I live in Oslo."},
            {"role": "assistant", "content": "Noted."},
            {"role": "user", "content": "I live in Oslo."},
        ]

        # a turn longer than a message may be is filed by its beginning, whole in the history
        long = "x" * (MAX_MESSAGE_CHARS + 10)
        await session.add_items([{"role": "system", "content": long}])
        assert session.last_ingest is not None
        (filed,) = session.last_ingest.stored
        episode = await memory.episodes.get(filed, scope=in_session)
        assert episode.description == "system: " + long[:MAX_MESSAGE_CHARS]
        assert (await session.get_items(limit=1)) == [{"role": "system", "content": long}]

        # without ingest (the default) the history is all there is
        plain = SedimemSession("plain", memory, scope)
        await plain.add_items([{"role": "user", "content": "I work at Acme."}])
        assert plain.last_ingest is None
        assert (await memory.episodes.list(scope, session="plain")).items == []


async def test_ingest_in_the_background(open_memory: Any) -> None:
    async with open_memory() as memory:
        scope = Scope(tenant="agents", user="bob")
        session = SedimemSession("bg", memory, scope, ingest="background", names={"user": "Bob"})
        await session.add_items([{"role": "user", "content": "I work at Acme."}])
        pending = session.last_ingest
        assert pending is not None
        assert pending.job_id is not None
        await memory.conversations.wait()
        done = memory.conversations.job(pending.job_id, tenant="agents")
        assert done.status == "done"
        assert len(done.inserted) == 1
        works = await memory.facts.current("Bob", "works_at", scope=scope)
        assert [f.object for f in works] == ["Acme"]
        with pytest.raises(ValidationError, match="ingest"):
            SedimemSession("x", memory, ingest="always")  # type: ignore[arg-type]
        with pytest.raises(ValidationError, match="names"):
            SedimemSession("x", memory, names={"tool": "T"})
        with pytest.raises(ValidationError, match="name"):
            SedimemSession("x", memory, names={"user": ""})
