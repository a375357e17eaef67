"""Every service test runs on each long-term backend: SQLite and a real PostgreSQL."""

from collections.abc import AsyncIterator

import pytest

from sedimem.embed import HashEmbedder
from sedimem.storage.longterm.base import LongTermStore


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def lt_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    # sync on purpose: the PostgreSQL server fixture must start outside the test's loop
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('lt') / 'lt.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
async def lt_store(lt_url: str) -> AsyncIterator[LongTermStore]:
    from sedimem.longterm.stores import open_longterm_store

    store = await open_longterm_store(lt_url)
    embedder = HashEmbedder(64)
    await store.bind_embedder(embedder.name, embedder.dimension)
    try:
        yield store
    finally:
        await store.aclose()


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder(64)
