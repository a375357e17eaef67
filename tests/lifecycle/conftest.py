"""The lifecycle runs on the embedded default (SQLite) and on Redis + PostgreSQL."""

from collections.abc import AsyncIterator

import pytest

from sedimem.embed import HashEmbedder
from sedimem.memory import Memory


@pytest.fixture
async def memory(memory_urls: tuple[str, str]) -> AsyncIterator[Memory]:
    working, store = memory_urls
    async with await Memory.open(working=working, store=store, embedder=HashEmbedder(64)) as m:
        yield m
