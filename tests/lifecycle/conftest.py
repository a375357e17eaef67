"""The lifecycle runs on the embedded default (SQLite) and on Redis + PostgreSQL."""

from collections.abc import AsyncIterator

import pytest

from memstrata.embed import HashEmbedder
from memstrata.memory import Memory


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("redis+postgres", marks=[pytest.mark.redis, pytest.mark.postgres]),
    ]
)
def memory_urls(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, str]:
    # sync on purpose: servers start outside the test's event loop
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('mem') / 'memstrata.db'}"
        return url, url
    redis = request.getfixturevalue("redis_server")
    return redis.url, str(request.getfixturevalue("postgres_url"))


@pytest.fixture
async def memory(memory_urls: tuple[str, str]) -> AsyncIterator[Memory]:
    working, store = memory_urls
    async with await Memory.open(working=working, store=store, embedder=HashEmbedder(64)) as m:
        yield m
