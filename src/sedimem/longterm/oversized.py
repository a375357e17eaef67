"""Stored free-form values past the shape limits: what ``sedimem doctor`` reports.

Versions before the limits of :mod:`sedimem.types.shape` accepted metadata and document
values of any depth and size. They still read (the levels past the depth limit come back as
JSON text), but a client may not expect that, and an export carries them as they are. This
walks every record of every tenant once and lists each value over a limit, so an operator
can find and fix them (edit the metadata, or export, trim and import).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from sedimem.limits import MAX_DOCUMENT_BYTES, MAX_JSON_DEPTH, MAX_METADATA_BYTES
from sedimem.longterm import records
from sedimem.longterm.documents import DOCUMENT
from sedimem.storage.longterm.base import LongTermStore, RecordFilter
from sedimem.types.shape import depth_of, dumps_deep, loads_stored

__all__ = ["OversizedValue", "find_oversized"]

_PAGE = 500
#: The kinds holding a free-form value, each with that value's field and its size limit.
_FIELDS = {
    records.EPISODE: ("metadata", MAX_METADATA_BYTES),
    records.FACT: ("metadata", MAX_METADATA_BYTES),
    records.PROCEDURE: ("metadata", MAX_METADATA_BYTES),
    DOCUMENT: ("value", MAX_DOCUMENT_BYTES),
}


class OversizedValue(BaseModel):
    """One stored value over a limit."""

    model_config = ConfigDict(frozen=True)

    tenant: str = Field(description="The record's tenant.")
    kind: str = Field(description="episode, fact, procedure or document.")
    id: str = Field(description="The record's id.")
    field: str = Field(description="The value's field (`metadata`, or a document's `value`).")
    depth: int = Field(description="How many levels it nests.")
    size_bytes: int = Field(description="Its size as UTF-8 JSON.")
    problem: str = Field(description="Which limit it is over.")


def _value(kind: str, body: str) -> Any:
    data = loads_stored(body)
    if kind == DOCUMENT:
        return data.get("document", data).get("value")
    return data.get("metadata")


def _check(tenant: str, kind: str, row_id: str, body: str) -> OversizedValue | None:
    field, limit = _FIELDS[kind]
    try:
        value = _value(kind, body)
    except RecursionError:  # deeper than Python's parser goes: over the limit, surely
        return OversizedValue(
            tenant=tenant, kind=kind, id=row_id, field=field, depth=-1,
            size_bytes=len(body.encode()), problem="nests too deep to parse",
        )  # fmt: skip
    if value is None:
        return None
    depth = depth_of(value)
    size = len(dumps_deep(value).encode())
    problems = []
    if depth > MAX_JSON_DEPTH:
        problems.append(f"nests {depth} levels (limit {MAX_JSON_DEPTH})")
    if size > limit:
        problems.append(f"takes {size} bytes (limit {limit})")
    if not problems:
        return None
    return OversizedValue(
        tenant=tenant, kind=kind, id=row_id, field=field, depth=depth, size_bytes=size,
        problem="; ".join(problems),
    )  # fmt: skip


async def find_oversized(store: LongTermStore) -> list[OversizedValue]:
    """Every stored metadata and document value over a limit, in every tenant."""
    found: list[OversizedValue] = []
    for tenant in await store.tenants():
        for kind in _FIELDS:
            cursor: str | None = None
            while True:
                rows = await store.find(tenant, RecordFilter(kind=kind), limit=_PAGE, after=cursor)
                for row in rows:
                    # a cheap look first: a body with fewer brackets than the depth limit
                    # and within the size limit cannot hold a value over either
                    if len(row.body) <= _FIELDS[kind][1] and (
                        row.body.count("{") + row.body.count("[") <= MAX_JSON_DEPTH
                    ):
                        continue
                    if (problem := _check(tenant, kind, row.id, row.body)) is not None:
                        found.append(problem)
                if len(rows) < _PAGE:
                    break
                cursor = rows[-1].id
    return found
