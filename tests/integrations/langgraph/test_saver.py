"""``SedimemSaver`` beyond the conformance suite: sync use, bad input, what a thread is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.conformance.test_utils import (
    generate_checkpoint,
    generate_config,
    generate_metadata,
)

from sedimem.embed.hashing import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.integrations.langgraph import SedimemSaver
from sedimem.integrations.loop import BackgroundMemory
from sedimem.scope import Scope
from tests.integrations.conftest import OpenMemory


def test_sync_methods_through_a_background_memory(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sync.db'}"
    with BackgroundMemory.open(url, embedder=HashEmbedder()) as bg:
        saver = SedimemSaver(bg.memory, Scope(tenant="t"), bridge=bg.bridge)
        first = saver.put(
            generate_config("th"),
            generate_checkpoint(channel_values={"a": 1}, channel_versions={"a": 1}),
            generate_metadata(run_id="r1"),
            {"a": 1},
        )
        second_config = generate_config("th")
        second_config["configurable"]["checkpoint_id"] = first["configurable"]["checkpoint_id"]
        second = saver.put(
            second_config, generate_checkpoint(), generate_metadata(run_id="r2", step=1), {}
        )
        saver.put_writes(second, [("ch", "v")], "task-1")
        latest = saver.get_tuple(generate_config("th"))
        assert latest is not None
        assert latest.pending_writes == [("task-1", "ch", "v")]
        assert latest.parent_config is not None
        assert [t.metadata["run_id"] for t in saver.list(None)] == ["r2", "r1"]
        assert len(list(saver.list(generate_config("th"), limit=1))) == 1

        saver.copy_thread("th", "copy")
        assert [t.metadata["run_id"] for t in saver.list(generate_config("copy"))] == [
            "r2",
            "r1",
        ]
        saver.prune(["copy"])
        assert [t.metadata["run_id"] for t in saver.list(generate_config("copy"))] == ["r2"]
        # a run's checkpoints go from every thread of the scope
        saver.delete_for_runs(["r2"])
        assert [t.metadata["run_id"] for t in saver.list(generate_config("th"))] == ["r1"]
        assert list(saver.list(generate_config("copy"))) == []
        saver.prune(["th"], strategy="delete")
        assert saver.get_tuple(generate_config("th")) is None
        saver.delete_thread("copy")
        assert saver.get_tuple(generate_config("copy")) is None
        with pytest.raises(ValidationError, match="strategy"):
            saver.prune(["th"], strategy="all")


async def test_bad_input_names_the_field(open_memory: OpenMemory) -> None:
    async with open_memory() as memory:
        with pytest.raises(ValidationError, match=r"scope\.session"):
            SedimemSaver(memory, Scope(session="s"))
        saver = SedimemSaver(memory)
        bad: Any = {"configurable": {}}
        with pytest.raises(ValidationError, match="thread_id"):
            await saver.aget_tuple(bad)
        with pytest.raises(ValidationError, match="strategy"):
            await saver.aprune(["t"], strategy="newest")


async def test_a_thread_is_a_session_of_the_scope(open_memory: OpenMemory) -> None:
    async with open_memory() as memory:
        scope = Scope(tenant="t", project="p")
        saver = SedimemSaver(memory, scope)
        await saver.aput(
            generate_config("thread-9"), generate_checkpoint(), generate_metadata(), {}
        )
        session = memory.working(scope.with_session("thread-9"))
        assert len(await session.list_keys("langgraph/cp/*")) == 1
        # the session's own keys live beside the checkpoints, untouched by them
        await session.set("note", "mine")
        assert await saver.aget_tuple(generate_config("thread-9")) is not None
        assert [s.session for s in await memory.sessions(scope)] == ["thread-9"]
        # another scope's saver does not see the thread
        other = SedimemSaver(memory, Scope(tenant="t", project="q"))
        assert await other.aget_tuple(generate_config("thread-9")) is None
        assert [t async for t in other.alist(None)] == []
