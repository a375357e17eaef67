"""A ``Memory`` on each working store (in-process, SQLite file, real Redis)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import pytest

from sedimem.embed.hashing import HashEmbedder
from sedimem.memory import Memory

OpenMemory = Callable[[], AbstractAsyncContextManager[Memory]]


@pytest.fixture(
    params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)],
)
def working_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'working.db'}"
    return str(request.getfixturevalue("redis_url"))


@pytest.fixture
def open_memory(working_url: str, tmp_path: Path) -> OpenMemory:
    """Opens a fresh ``Memory`` on the working store under test (each call: a new handle
    on the same data)."""

    @asynccontextmanager
    async def opened() -> AsyncIterator[Memory]:
        memory = await Memory.open(
            working=working_url,
            store=f"sqlite:///{tmp_path / 'longterm.db'}",
            embedder=HashEmbedder(),
        )
        try:
            yield memory
        finally:
            await memory.aclose()

    return opened
