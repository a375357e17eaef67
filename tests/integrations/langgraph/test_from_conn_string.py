"""``SedimemSaver.from_conn_string(url)``: a saver for the length of a ``with`` (sync graphs)
or ``async with`` block (async graphs), as LangGraph's own savers offer; what it wrote is
there for the next one opened on the same URL."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph

from sedimem.embed.hashing import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.integrations.langgraph import SedimemSaver
from sedimem.scope import Scope


class Count(TypedDict):
    n: int


def counter() -> StateGraph[Count]:
    graph: StateGraph[Count] = StateGraph(Count)
    graph.add_node("add", lambda state: {"n": state["n"] + 1})
    graph.add_edge(START, "add")
    graph.add_edge("add", END)
    return graph


CONFIG: Any = {"configurable": {"thread_id": "t1"}}


def test_a_sync_graph_keeps_its_thread_across_two_savers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'threads.db'}"
    with SedimemSaver.from_conn_string(url, embedder=HashEmbedder()) as saver:
        assert counter().compile(checkpointer=saver).invoke({"n": 1}, CONFIG) == {"n": 2}
    with SedimemSaver.from_conn_string(url, embedder=HashEmbedder()) as saver:
        state = counter().compile(checkpointer=saver).get_state(CONFIG)
        assert state.values == {"n": 2}
    assert (tmp_path / "threads.db").exists()  # threads and long-term memory: one file


async def test_an_async_graph_in_an_async_with_block(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'threads.db'}"
    scope = Scope(tenant="acme", user="ana")
    async with SedimemSaver.from_conn_string(url, scope=scope, embedder=HashEmbedder()) as saver:
        assert saver.scope == scope
        graph = counter().compile(checkpointer=saver)
        assert await graph.ainvoke({"n": 5}, CONFIG) == {"n": 6}
    async with SedimemSaver.from_conn_string(url, scope=scope, embedder=HashEmbedder()) as saver:
        assert [t.checkpoint["channel_values"] async for t in saver.alist(CONFIG, limit=1)] == [
            {"n": 6}
        ]
    # another scope is another set of threads
    async with SedimemSaver.from_conn_string(url, embedder=HashEmbedder()) as other:
        assert await other.aget_tuple(CONFIG) is None


async def test_bad_arguments_close_what_was_opened(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'threads.db'}"
    with pytest.raises(ValidationError, match="session_ttl_seconds"):
        async with SedimemSaver.from_conn_string(url, ttl_seconds=0, embedder=HashEmbedder()):
            pass
    with (
        pytest.raises(ValidationError, match=r"scope\.session"),
        SedimemSaver.from_conn_string(url, scope=Scope(session="s"), embedder=HashEmbedder()),
    ):
        pass
