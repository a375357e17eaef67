"""The working-memory store protocol: the smallest surface a backend must offer.

Rules shared by every store (the conformance suite in :mod:`sedimem.testing` checks them):

- A session's live state (user keys, task state, scratchpad) lives until ``now`` passes
  ``touched + ref.ttl``, where ``touched`` is the time of the session's latest write. Past
  that, the live state is gone at once (not merely hidden until a sweep) and a later write
  starts from nothing. Checkpoints keep their own ``expires_at``. A store may measure the
  idle lifetime on its own clock (Redis does: ``PEXPIRE``) rather than the caller's ``now``.
- A user key may expire earlier, at its own ``expires_at``.
- Every method is atomic: concurrent writers never lose each other's updates and readers
  never see a half-applied write. ``restore`` replaces the live state in one step.
- Values, task fields and scratchpad entries are opaque text; the service encodes them.
- Every method's cost is bounded by the one session's size, never by the whole keyspace
  (``idle_sessions`` is bounded by its ``limit`` and reads one tenant's index).
- Every write records the session's canonical scope (``ref.scope``, when given) and the time
  of the write (``touched``), so consolidation can find sessions left idle and rebuild their
  scope: ``idle_sessions`` lists them, ``drop_idle_session`` removes one unless it was
  written again since. Redis stamps ``touched`` with its own clock, the others with ``now``.

Validation, id generation, TTL defaults and encoding live in the service, not here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = [
    "IdleSession",
    "ScrubbableStore",
    "SessionCounts",
    "SessionRef",
    "Snapshot",
    "StoredValue",
    "WorkingStore",
]


@dataclass(frozen=True, slots=True)
class SessionRef:
    """How a store addresses one session."""

    digest: str  # stable hash of the full scope; the store's key for the session
    tenant: str
    user: str | None
    ttl: float  # idle lifetime in seconds, renewed by every write
    # Scope.canonical of the session: remembered so that consolidation can rebuild the scope
    # of a session nobody terminated (a session written without it is never listed idle)
    scope: str | None = None


@dataclass(frozen=True, slots=True)
class StoredValue:
    value: str
    expires_at: float | None  # epoch seconds, or None for "lives as long as the session"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A consistent copy of a session's live state."""

    values: dict[str, StoredValue]
    task: dict[str, str] | None
    scratchpad: list[str]


@dataclass(frozen=True, slots=True)
class SessionCounts:
    keys: int
    scratchpad_entries: int
    checkpoints: int
    has_task_state: bool


@dataclass(frozen=True, slots=True)
class IdleSession:
    """A session with live state and no write since ``touched``, as ``idle_sessions`` lists it."""

    digest: str
    scope: str  # the Scope.canonical its writes carried
    touched: float  # epoch seconds of its latest write, on the store's clock
    cursor: str  # opaque: pass it as ``after`` to list the sessions that follow


@runtime_checkable
class WorkingStore(Protocol):
    """An async store of working memory, one namespace per :class:`SessionRef`."""

    @property
    def name(self) -> str: ...

    @property
    def using_fallback(self) -> bool: ...

    # user keys
    async def set(
        self,
        ref: SessionRef,
        key: str,
        value: str,
        expires_at: float | None,
        now: float,
        max_keys: int,
    ) -> None:
        """Write ``key``; raise LimitExceeded if it is new and the session holds max_keys."""

    async def get(self, ref: SessionRef, key: str, now: float) -> str | None: ...

    async def delete(self, ref: SessionRef, key: str, now: float) -> bool: ...

    async def items(self, ref: SessionRef, now: float) -> dict[str, StoredValue]: ...

    async def clear(self, ref: SessionRef, now: float) -> int:
        """Remove the user keys only; return how many live keys there were."""

    # task state: a flat mapping of field -> encoded value
    async def set_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> None: ...

    async def update_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> bool:
        """Merge ``fields`` into the task state; False (and no write) when there is none."""

    async def get_task(self, ref: SessionRef, now: float) -> dict[str, str] | None: ...

    # scratchpad
    async def append_scratchpad(
        self, ref: SessionRef, entry: str, max_entries: int, now: float
    ) -> None: ...

    async def scratchpad(self, ref: SessionRef, now: float) -> list[str]: ...

    async def clear_scratchpad(self, ref: SessionRef, now: float) -> int: ...

    # checkpoints
    async def snapshot(self, ref: SessionRef, now: float) -> Snapshot: ...

    async def restore(self, ref: SessionRef, snapshot: Snapshot, now: float) -> None: ...

    async def put_checkpoint(
        self,
        ref: SessionRef,
        checkpoint_id: str,
        info: str,
        content: str,
        expires_at: float,
        now: float,
    ) -> None: ...

    async def get_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> str | None:
        """The checkpoint's content, or None when unknown or expired."""

    async def list_checkpoints(self, ref: SessionRef, now: float) -> list[str]:
        """The live checkpoints' info texts, oldest first."""

    async def delete_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> bool: ...

    # whole sessions
    async def counts(self, ref: SessionRef, now: float) -> SessionCounts: ...

    async def drop_session(self, ref: SessionRef) -> None:
        """Remove everything of the session, checkpoints included."""

    async def drop_sessions(self, tenant: str, user: str | None) -> int:
        """Remove every session of ``tenant`` (of that ``user`` when given); return how many."""

    # idle sessions, for consolidation
    async def idle_sessions(
        self, tenant: str, idle_seconds: float, now: float, limit: int, after: str | None
    ) -> list[IdleSession]:
        """Up to ``limit`` sessions of ``tenant`` whose live state is still there and whose
        latest write is at least ``idle_seconds`` old, in a stable order (oldest write first,
        or close to it: Redis orders by its index), after the cursor ``after``. Only sessions
        written with ``ref.scope`` are listed. Idleness is measured on the store's clock
        (``now`` unless the store keeps its own, as Redis does). A page may be shorter than
        ``limit`` only when no more idle sessions follow."""

    async def drop_idle_session(self, ref: SessionRef, touched: float) -> bool:
        """Remove everything of the session (as ``drop_session``) unless it was written after
        ``touched`` (the time ``idle_sessions`` reported); True when it was removed."""

    async def ping(self) -> bool: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class ScrubbableStore(Protocol):
    """A working store whose deletions can leave bytes behind in its files (SQLite)."""

    async def scrub(self) -> str:
        """Make the deletions so far physical; return what was done (for a receipt)."""
        ...
