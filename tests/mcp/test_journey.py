"""The MCP journey a model walks, over both transports with the SDK's client: core memory,
remember, recall, update by id, forget by id, and a new session that finds what the first
one left. Each transport serves from a real process (``sedimem mcp`` over stdio,
``sedimem serve`` over streamable HTTP); the steps read the text answers, as a model does.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from sedimem.mcp import TOOL_NAMES
from sedimem.testing import SedimemServer
from tests.mcp.conftest import ids_in, lines_of

Connect = Callable[[], AbstractAsyncContextManager[Client]]


@pytest.fixture(params=["stdio", "streamable-http"])
def connect(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Connect]:
    """Opens a new client session on the same memory, each time it is called."""
    if request.param == "stdio":
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "sedimem", "mcp"],  # the command an MCP host runs
            env={"SEDIMEM_HOME": str(tmp_path)},
        )

        def stdio() -> AbstractAsyncContextManager[Client]:
            return Client(params)

        yield stdio
        return
    with SedimemServer() as server:
        key = server.printed_key  # the key a first start on loopback prints
        assert key is not None

        @asynccontextmanager
        async def http() -> AsyncIterator[Client]:
            headers = {"Authorization": f"Bearer {key}"}
            async with (
                httpx2.AsyncClient(headers=headers, timeout=60) as transport,
                Client(streamable_http_client(server.url + "/mcp", http_client=transport)) as c,
            ):
                yield c

        yield http


async def test_remember_recall_update_forget_and_core_memory(connect: Connect) -> None:
    async with connect() as client:

        async def call(tool: str, **arguments: object) -> list[str]:
            return lines_of(await client.call_tool(tool, arguments))

        assert [t.name for t in (await client.list_tools()).tools] == list(TOOL_NAMES)
        await call("core_memory", action="set", name="persona", text="A travel assistant.")
        await call("core_memory", action="append", name="persona", text="Answer briefly.")
        assert await call("core_memory") == [
            "[persona] (position 0)",
            "A travel assistant.",
            "Answer briefly.",
        ]
        noted = await call("remember", text="Ana prefers window seats.", user="ana", session="s1")
        assert len(ids_in(noted, "fact")) == 1  # the note's fact was learned
        stored = await call(
            "remember",
            kind="fact",
            text="Ana lives in Oslo",
            subject="Ana",
            predicate="lives_in",
            object="Oslo",
            user="ana",
            session="s1",
        )
        (oslo,) = ids_in(stored, "fact")
        found = await call("recall", query="where does Ana live", user="ana", kinds=["fact"])
        assert oslo in ids_in(found, "fact")
        updated = await call("update_memory", id=oslo, text="Ana lives in Bergen", object="Bergen")
        (bergen,) = ids_in(updated[:1], "fact")
        assert bergen != oslo
        now = await call("recall", query="where does Ana live", user="ana", kinds=["fact"])
        assert bergen in ids_in(now, "fact")
        assert oslo not in ids_in(now, "fact")  # kept as history only
        episode = await call("remember", kind="episode", text="Booked Ana a train", user="ana")
        (trip,) = ids_in(episode, "episode")
        assert await call("forget_memory", id=trip) == [f"deleted episode {trip}"]
    # a new session (a new process over stdio) finds what the first one left
    async with connect() as client:
        found = lines_of(
            await client.call_tool(
                "recall", {"query": "Ana Bergen train", "user": "ana", "session": "s2"}
            )
        )
        assert bergen in ids_in(found, "fact")
        assert trip not in ids_in(found, "episode")
        context = lines_of(
            await client.call_tool(
                "assemble_context", {"query": "Ana's next trip", "user": "ana", "session": "s2"}
            )
        )
        text = "\n".join(context)
        assert "Answer briefly." in text
        assert "Bergen" in text
        forgotten = lines_of(await client.call_tool("forget_memory", {"id": bergen}))
        assert forgotten == [f"deleted fact {bergen}"]
        gone = lines_of(
            await client.call_tool("recall", {"query": "Bergen", "user": "ana", "kinds": ["fact"]})
        )
        assert bergen not in ids_in(gone, "fact")
