from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sedimem.storage.working.sqlite import SqliteWorkingStore
from sedimem.testing import WorkingStoreConformance


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteWorkingStore]:
    s = await SqliteWorkingStore.open(str(tmp_path / "wm.db"))
    yield s
    await s.aclose()


@pytest.fixture
async def other_handle(tmp_path: Path) -> AsyncIterator[SqliteWorkingStore]:
    s = await SqliteWorkingStore.open(str(tmp_path / "wm.db"))
    yield s
    await s.aclose()


class TestSqliteStore(WorkingStoreConformance):
    pass
