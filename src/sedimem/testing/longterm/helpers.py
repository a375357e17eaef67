"""Helpers of the long-term conformance suite: records, vectors, ids, shared checks."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from sedimem.storage.longterm.base import (
    FusedSearch,
    LongTermStore,
    Ranked,
    RecordFilter,
    StoredRecord,
    Traits,
    Vector,
)

__all__ = [
    "A",
    "B",
    "DIM",
    "EMBEDDER",
    "ConformanceBase",
    "hit_ids",
    "ids_of",
    "make_record",
    "new_record_id",
    "unit_vector",
]

DIM = 8
EMBEDDER = "conformance-embedder"
A, B = "tenant-a", "tenant-b"  # two tenants: isolation is checked between them

_UUID_BASE = 0x0190_0000_0000_7000_8000_0000_0000_0000  # a UUIDv7-shaped prefix
_serial = itertools.count(1)


def new_record_id() -> str:
    """A fresh id; later ids sort after earlier ones (as UUIDv7 text does)."""
    return str(uuid.UUID(int=_UUID_BASE + next(_serial)))


def unit_vector(seed: int | Sequence[float]) -> Vector:
    """A normalised vector: from explicit values (padded to DIM) or a seeded random draw."""
    if isinstance(seed, int):
        values = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    else:
        values = np.zeros(DIM, dtype=np.float32)
        values[: len(seed)] = seed
    return (values / np.linalg.norm(values)).astype(np.float32)


def make_record(
    text: str = "a plain record",
    *,
    tenant: str = A,
    kind: str = "episode",
    vector: Vector | None = None,
    record_id: str | None = None,
    **fields: Any,
) -> StoredRecord:
    """A record with sensible defaults; ``fields`` sets any other column."""
    values: dict[str, Any] = {
        "project": None,
        "user": None,
        "agent_type": None,
        "agent": None,
        "session": None,
        "occurred_at": 1_700_000_000.0,
        "importance": 0.5,
        "body": '{"n": 0}',
    }
    values.update(fields)
    return StoredRecord(
        id=record_id or new_record_id(),
        kind=kind,
        tenant=tenant,
        text=text,
        vector=vector,
        **values,
    )


def ids_of(records: Iterable[StoredRecord]) -> list[str]:
    return [r.id for r in records]


def hit_ids(hits: Iterable[tuple[str, float]]) -> list[str]:
    return [i for i, _ in hits]


class ConformanceBase:
    async def bind(self, store: LongTermStore) -> None:
        await store.bind_embedder(EMBEDDER, DIM)

    async def agree(
        self, store: LongTermStore, flt: RecordFilter, expected: Iterable[str], term: str
    ) -> None:
        """``find``, ``count`` and both searches select exactly ``expected`` under ``flt``
        (every record of these tests contains ``term`` and has a vector)."""
        want = sorted(expected)
        assert ids_of(await store.find(A, flt, limit=1000)) == want
        assert await store.count(A, flt) == len(want)
        assert sorted(hit_ids(await store.keyword_search(A, flt, [term], 1000))) == want
        hits = await store.vector_search(A, flt, unit_vector(1), 1000)
        assert sorted(hit_ids(hits)) == want
        found = await store.keyword_search_records(A, flt, [term], 1000)
        assert sorted(r.id for r, _ in found) == want
        found = await store.vector_search_records(A, flt, unit_vector(1), 1000)
        assert sorted(r.id for r, _ in found) == want
        if isinstance(store, FusedSearch):
            lists: list[tuple[list[str], list[str]]] = []

            def every(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
                lists.append((hit_ids(keyword), hit_ids(vector)))
                return [*hit_ids(keyword), *hit_ids(vector)]

            rows = await store.fused_search(A, flt, [term], unit_vector(1), 1000, every)
            assert sorted(rows) == want
            assert [sorted(ids) for ids in lists[0]] == [want, want]
