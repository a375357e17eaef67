"""The long-term conformance suite on PostgreSQL + pgvector (a fresh database per test)."""

from __future__ import annotations

import pytest

from sedimem.storage.longterm.postgres import PostgresLongTermStore
from sedimem.testing.longterm import LongTermStoreConformance


@pytest.mark.postgres
class TestPostgresStore(LongTermStoreConformance):
    @pytest.fixture
    async def store(self, postgres_store: PostgresLongTermStore) -> PostgresLongTermStore:
        return postgres_store
