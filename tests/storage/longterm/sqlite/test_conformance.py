"""The long-term conformance suite on SQLite: with the in-memory index (the default), with
FTS5 and file scans only, and with HNSW graphs from the first vector on."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.testing.longterm import LongTermStoreConformance


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteLongTermStore]:
    s = await SqliteLongTermStore.open(str(tmp_path / "lt.db"), index=MemoryIndexEngine())
    yield s
    await s.aclose()


class TestSqliteMemoryIndex(LongTermStoreConformance):
    pass


class TestSqliteWithoutMemoryIndex(LongTermStoreConformance):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[SqliteLongTermStore]:
        s = await SqliteLongTermStore.open(str(tmp_path / "lt.db"))
        yield s
        await s.aclose()


class TestSqliteHnsw(LongTermStoreConformance):
    """HNSW graphs built inline as soon as a kind has a vector: every vector test runs on
    the approximate path and its exact fallback."""

    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[SqliteLongTermStore]:
        s = await SqliteLongTermStore.open(
            str(tmp_path / "lt.db"),
            index=MemoryIndexEngine(hnsw_threshold=1, hnsw_background=False, exact_limit=0),
        )
        yield s
        await s.aclose()
