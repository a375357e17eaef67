"""A lease and a cursor per (tenant, job), kept in one record of the long-term store.

The record (kind ``consolidation_lease``, ``name`` = the job) holds ``owner`` (a random
token of the worker holding the lease), ``expires_at`` (epoch seconds) and ``cursor`` (the
id of the last episode the job fully processed). Every change goes through
``update_locked`` under the key ``lease:{job}``, so it is atomic and serialised across
processes. Keeping the cursor beside the lease lets a worker advance it only while it still
holds the lease (a fenced write): a worker whose lease expired and was taken over cannot
move the cursor back or forward.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sedimem.ids import new_id
from sedimem.storage.longterm.base import (
    LongTermStore,
    RecordFilter,
    StoredRecord,
    internal_record,
)

__all__ = ["LEASE_KIND", "LeaseLost", "LeaseState", "Leases"]

LEASE_KIND = "consolidation_lease"


class LeaseLost(Exception):
    """The lease expired and another worker took it: stop without advancing the cursor."""


@dataclass(slots=True)
class LeaseState:
    owner: str | None
    expires_at: float
    cursor: str | None


_Change = Callable[[LeaseState], LeaseState | None]


def _state(rows: list[StoredRecord]) -> tuple[StoredRecord | None, LeaseState]:
    if not rows:
        return None, LeaseState(None, 0.0, None)
    row = min(rows, key=lambda r: r.id)
    data = json.loads(row.body)
    return row, LeaseState(
        data.get("owner"), float(data.get("expires_at", 0.0)), data.get("cursor")
    )


def _row(tenant: str, job: str, existing: StoredRecord | None, state: LeaseState) -> StoredRecord:
    body = json.dumps(
        {"owner": state.owner, "expires_at": state.expires_at, "cursor": state.cursor}
    )
    record_id = existing.id if existing is not None else new_id()
    return internal_record(LEASE_KIND, tenant, record_id, body, state.expires_at, name=job)


class Leases:
    """Take, renew (advancing the cursor) and release the lease of a job."""

    def __init__(self, store: LongTermStore, ttl_seconds: float) -> None:
        self._store = store
        self._ttl = ttl_seconds

    async def _change(self, tenant: str, job: str, change: _Change) -> tuple[bool, LeaseState]:
        outcome: list[tuple[bool, LeaseState]] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            existing, state = _state(rows)
            new = change(state)
            outcome.append((new is not None, new or state))
            return [] if new is None else [_row(tenant, job, existing, new)]

        await self._store.update_locked(
            tenant, f"lease:{job}", RecordFilter(kind=LEASE_KIND, name=job), decide
        )
        return outcome[-1]

    async def peek(self, tenant: str, job: str) -> LeaseState:
        rows = await self._store.find(tenant, RecordFilter(kind=LEASE_KIND, name=job), limit=5)
        return _state(rows)[1]

    async def acquire(
        self, tenant: str, job: str, owner: str, now: float
    ) -> tuple[bool, str | None]:
        """Take the lease when it is free or expired; returns (taken, cursor)."""

        def change(state: LeaseState) -> LeaseState | None:
            if state.owner is not None and state.owner != owner and state.expires_at > now:
                return None
            return LeaseState(owner, now + self._ttl, state.cursor)

        taken, state = await self._change(tenant, job, change)
        return taken, state.cursor

    async def advance(self, tenant: str, job: str, owner: str, cursor: str, now: float) -> None:
        """Move the cursor and renew the lease; raises :class:`LeaseLost` if not held."""

        def change(state: LeaseState) -> LeaseState | None:
            if state.owner != owner:
                return None
            return LeaseState(owner, now + self._ttl, cursor)

        held, _ = await self._change(tenant, job, change)
        if not held:
            raise LeaseLost(f"the lease of job {job!r} was taken over by another worker")

    async def renew(self, tenant: str, job: str, owner: str, now: float) -> None:
        """Extend the lease without moving the cursor; raises :class:`LeaseLost`."""

        def change(state: LeaseState) -> LeaseState | None:
            if state.owner != owner:
                return None
            return LeaseState(owner, now + self._ttl, state.cursor)

        held, _ = await self._change(tenant, job, change)
        if not held:
            raise LeaseLost(f"the lease of job {job!r} was taken over by another worker")

    async def release(self, tenant: str, job: str, owner: str) -> None:
        """Give the lease up (a no-op when another worker holds it now)."""

        def change(state: LeaseState) -> LeaseState | None:
            if state.owner != owner:
                return None
            return LeaseState(None, 0.0, state.cursor)

        await self._change(tenant, job, change)
