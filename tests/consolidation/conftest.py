"""The ``sessions`` job on real stores: SQLite, in-process + SQLite, Redis + PostgreSQL.

SQLite and the in-process store measure idleness with the caller's clock, so their tests
move a :class:`ManualClock`; Redis measures it with its own clock, so its tests wait for real
(with a short idle threshold).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from sedimem.config import Settings, WorkingSettings
from sedimem.consolidation import ConsolidationSettings
from sedimem.embed import HashEmbedder
from sedimem.longterm.stores import open_longterm_store
from sedimem.memory import Memory
from sedimem.storage.working.base import WorkingStore
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry
from sedimem.testing import ManualClock

EMBEDDER = HashEmbedder(64)


@dataclass
class Env:
    """Opens Memory handles on one set of stores and makes time pass for them."""

    backend: str
    working_url: str
    store_url: str
    idle: float
    clock: ManualClock | None
    registry: SessionRegistry = field(default_factory=SessionRegistry)
    opened: list[Memory] = field(default_factory=list)

    async def open_working(self) -> WorkingStore:
        if self.backend == "memory":
            return InProcessWorkingStore(self.registry)
        if self.backend == "sqlite":
            from sedimem.storage.working.sqlite import SqliteWorkingStore

            return await SqliteWorkingStore.open(self.working_url)
        from sedimem.storage.working.redis import RedisWorkingStore

        return RedisWorkingStore.from_url(self.working_url)

    async def open(self, *, session_ttl: float | None = None, **settings: object) -> Memory:
        """A Memory on the shared stores (its own handles), with the test's idle threshold
        (and working memory's session TTL, when given)."""
        working = await self.open_working()
        longterm = await open_longterm_store(self.store_url)
        await longterm.bind_embedder(EMBEDDER.name, EMBEDDER.dimension)
        memory = Memory(
            working,
            longterm,
            EMBEDDER,
            clock=self.clock,
            settings=None
            if session_ttl is None
            else Settings(working=WorkingSettings(session_ttl_seconds=session_ttl)),
            consolidation=ConsolidationSettings.model_validate(
                {"session_idle_seconds": self.idle, **settings}
            ),
        )
        self.opened.append(memory)
        return memory

    async def pass_idle(self) -> None:
        """Let more than the idle threshold pass without a write."""
        if self.clock is not None:
            self.clock.advance(self.idle + 1)
        else:
            await asyncio.sleep(self.idle + 0.3)

    async def pass_a_little(self) -> None:
        if self.clock is not None:
            self.clock.advance(5)
        else:
            await asyncio.sleep(0.05)


@pytest.fixture(
    params=[
        "sqlite",
        "memory",
        pytest.param("redis+postgres", marks=[pytest.mark.redis, pytest.mark.postgres]),
    ]
)
def env_urls(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str, str]:
    """(backend, working store location, long-term store URL)."""
    # sync on purpose: servers start outside the test's event loop
    if request.param == "redis+postgres":
        redis = request.getfixturevalue("redis_server")
        return request.param, redis.url, str(request.getfixturevalue("postgres_url"))
    url = f"sqlite:///{tmp_path / 'sedimem.db'}"
    return request.param, str(tmp_path / "sedimem.db"), url


@pytest.fixture
async def env(env_urls: tuple[str, str, str]) -> AsyncIterator[Env]:
    # the Redis server is shared by the test session: tests use tenants of their own
    backend, working_url, store_url = env_urls
    if backend == "redis+postgres":
        made = Env(backend, working_url, store_url, idle=0.4, clock=None)
    else:
        made = Env(backend, working_url, store_url, idle=600.0, clock=ManualClock())
    try:
        yield made
    finally:
        for memory in made.opened:
            await memory.aclose()
