import pytest

from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry
from sedimem.testing import WorkingStoreConformance


@pytest.fixture
def registry() -> SessionRegistry:
    return SessionRegistry()


@pytest.fixture
def store(registry: SessionRegistry) -> InProcessWorkingStore:
    return InProcessWorkingStore(registry)


@pytest.fixture
def other_handle(registry: SessionRegistry) -> InProcessWorkingStore:
    return InProcessWorkingStore(registry)


class TestInProcessStore(WorkingStoreConformance):
    pass
