"""The in-process working store: a process-wide, bounded registry of sessions.

Every :class:`InProcessWorkingStore` built on the same :class:`SessionRegistry` (by default
the one process-wide registry) sees the same sessions, so two handles on one session agree.
The registry keeps at most ``max_sessions`` sessions and drops the least recently used.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from sedimem.errors import LimitExceeded
from sedimem.storage.working.base import (
    IdleSession,
    SessionCounts,
    SessionRef,
    Snapshot,
    StoredValue,
)

__all__ = ["InProcessWorkingStore", "SessionRegistry"]


@dataclass(slots=True)
class _Session:
    tenant: str
    user: str | None
    expires_at: float = 0.0
    touched: float = 0.0  # time of the latest write
    scope: str | None = None  # Scope.canonical, from the refs that wrote
    values: dict[str, StoredValue] = field(default_factory=dict)
    task: dict[str, str] | None = None
    scratchpad: list[str] = field(default_factory=list)
    # checkpoint id -> (info, content, expires_at)
    checkpoints: dict[str, tuple[str, str, float]] = field(default_factory=dict)

    def reset_live(self) -> None:
        self.values = {}
        self.task = None
        self.scratchpad = []

    def live_values(self, now: float) -> dict[str, StoredValue]:
        dead = [
            k for k, v in self.values.items() if v.expires_at is not None and v.expires_at <= now
        ]
        for k in dead:
            del self.values[k]
        return self.values

    def live_checkpoints(self, now: float) -> dict[str, tuple[str, str, float]]:
        dead = [k for k, (_, _, exp) in self.checkpoints.items() if exp <= now]
        for k in dead:
            del self.checkpoints[k]
        return self.checkpoints


class SessionRegistry:
    """Sessions of one process, least recently used first."""

    def __init__(self, max_sessions: int = 10_000) -> None:
        self.max_sessions = max_sessions
        self.lock = threading.Lock()
        self.sessions: OrderedDict[str, _Session] = OrderedDict()

    def read(self, ref: SessionRef, now: float) -> _Session | None:
        """The session if it has live state or checkpoints, expiring its live part."""
        session = self.sessions.get(ref.digest)
        if session is None:
            return None
        if session.expires_at <= now:
            session.reset_live()
            if not session.live_checkpoints(now):
                del self.sessions[ref.digest]
                return None
        self.sessions.move_to_end(ref.digest)
        return session

    def write(self, ref: SessionRef, now: float) -> _Session:
        """The session, created if needed, with its idle lifetime renewed."""
        session = self.read(ref, now)
        if session is None:
            session = _Session(ref.tenant, ref.user)
            self.sessions[ref.digest] = session
            while len(self.sessions) > self.max_sessions:
                self.sessions.popitem(last=False)
        elif session.expires_at <= now:
            session.reset_live()
        session.expires_at = now + ref.ttl
        session.touched = now
        if ref.scope is not None:
            session.scope = ref.scope
        return session

    def idle(
        self, tenant: str, idle_seconds: float, now: float, limit: int, after: str | None
    ) -> list[IdleSession]:
        """The tenant's idle sessions; a scan, bounded by ``max_sessions``."""
        cutoff = now - idle_seconds
        start = _position(after)
        found = sorted(
            (s.touched, digest, s.scope)
            for digest, s in self.sessions.items()
            if s.tenant == tenant
            and s.scope is not None
            and now < s.expires_at
            and s.touched <= cutoff
            and (start is None or (s.touched, digest) > start)
        )
        return [
            IdleSession(digest, scope, touched, f"{touched!r}|{digest}")
            for touched, digest, scope in found[:limit]
        ]


def _position(cursor: str | None) -> tuple[float, str] | None:
    if cursor is None:
        return None
    touched, _, digest = cursor.partition("|")
    return float(touched), digest


_PROCESS_REGISTRY = SessionRegistry()


class InProcessWorkingStore:
    """Working memory held in this process; also the fallback while Redis is away."""

    def __init__(self, registry: SessionRegistry | None = None) -> None:
        self._registry = registry if registry is not None else _PROCESS_REGISTRY

    @property
    def name(self) -> str:
        return "memory"

    @property
    def using_fallback(self) -> bool:
        return False

    @property
    def registry(self) -> SessionRegistry:
        return self._registry

    def _live(self, ref: SessionRef, now: float) -> _Session | None:
        session = self._registry.read(ref, now)
        if session is None or session.expires_at <= now:
            return None
        return session

    async def set(
        self,
        ref: SessionRef,
        key: str,
        value: str,
        expires_at: float | None,
        now: float,
        max_keys: int,
    ) -> None:
        with self._registry.lock:
            current = self._live(ref, now)
            # only a new key at the limit pays for purging expired keys
            if (
                current is not None
                and key not in current.values
                and len(current.values) >= max_keys
                and len(current.live_values(now)) >= max_keys
            ):
                raise LimitExceeded(
                    "key",
                    f"the session already holds {max_keys} keys",
                    allowed=f"at most {max_keys} keys per session",
                )
            session = self._registry.write(ref, now)
            session.values[key] = StoredValue(value, expires_at)

    async def get(self, ref: SessionRef, key: str, now: float) -> str | None:
        with self._registry.lock:
            session = self._live(ref, now)
            if session is None:
                return None
            stored = session.values.get(key)
            if stored is None or (stored.expires_at is not None and stored.expires_at <= now):
                return None
            return stored.value

    async def delete(self, ref: SessionRef, key: str, now: float) -> bool:
        with self._registry.lock:
            session = self._registry.write(ref, now)
            return session.live_values(now).pop(key, None) is not None

    async def items(self, ref: SessionRef, now: float) -> dict[str, StoredValue]:
        with self._registry.lock:
            session = self._live(ref, now)
            return {} if session is None else dict(session.live_values(now))

    async def clear(self, ref: SessionRef, now: float) -> int:
        with self._registry.lock:
            session = self._registry.write(ref, now)
            count = len(session.live_values(now))
            session.values = {}
            return count

    async def set_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> None:
        with self._registry.lock:
            self._registry.write(ref, now).task = dict(fields)

    async def update_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> bool:
        with self._registry.lock:
            current = self._live(ref, now)
            if current is None or current.task is None:
                return False
            self._registry.write(ref, now)
            current.task.update(fields)
            return True

    async def get_task(self, ref: SessionRef, now: float) -> dict[str, str] | None:
        with self._registry.lock:
            session = self._live(ref, now)
            return None if session is None or session.task is None else dict(session.task)

    async def append_scratchpad(
        self, ref: SessionRef, entry: str, max_entries: int, now: float
    ) -> None:
        with self._registry.lock:
            pad = self._registry.write(ref, now).scratchpad
            pad.append(entry)
            if len(pad) > max_entries:
                del pad[: len(pad) - max_entries]

    async def scratchpad(self, ref: SessionRef, now: float) -> list[str]:
        with self._registry.lock:
            session = self._live(ref, now)
            return [] if session is None else list(session.scratchpad)

    async def clear_scratchpad(self, ref: SessionRef, now: float) -> int:
        with self._registry.lock:
            session = self._registry.write(ref, now)
            count = len(session.scratchpad)
            session.scratchpad = []
            return count

    async def snapshot(self, ref: SessionRef, now: float) -> Snapshot:
        with self._registry.lock:
            session = self._live(ref, now)
            if session is None:
                return Snapshot({}, None, [])
            task = None if session.task is None else dict(session.task)
            return Snapshot(dict(session.live_values(now)), task, list(session.scratchpad))

    async def restore(self, ref: SessionRef, snapshot: Snapshot, now: float) -> None:
        with self._registry.lock:
            session = self._registry.write(ref, now)
            session.values = dict(snapshot.values)
            session.task = None if snapshot.task is None else dict(snapshot.task)
            session.scratchpad = list(snapshot.scratchpad)

    async def put_checkpoint(
        self,
        ref: SessionRef,
        checkpoint_id: str,
        info: str,
        content: str,
        expires_at: float,
        now: float,
    ) -> None:
        with self._registry.lock:
            self._registry.write(ref, now).checkpoints[checkpoint_id] = (info, content, expires_at)

    async def get_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> str | None:
        with self._registry.lock:
            session = self._registry.read(ref, now)
            if session is None:
                return None
            found = session.live_checkpoints(now).get(checkpoint_id)
            return None if found is None else found[1]

    async def list_checkpoints(self, ref: SessionRef, now: float) -> list[str]:
        with self._registry.lock:
            session = self._registry.read(ref, now)
            if session is None:
                return []
            live = session.live_checkpoints(now)
            return [live[cid][0] for cid in sorted(live)]

    async def delete_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> bool:
        with self._registry.lock:
            session = self._registry.read(ref, now)
            if session is None:
                return False
            return session.live_checkpoints(now).pop(checkpoint_id, None) is not None

    async def counts(self, ref: SessionRef, now: float) -> SessionCounts:
        with self._registry.lock:
            session = self._registry.read(ref, now)
            if session is None:
                return SessionCounts(0, 0, 0, False)
            checkpoints = len(session.live_checkpoints(now))
            if session.expires_at <= now:
                return SessionCounts(0, 0, checkpoints, False)
            return SessionCounts(
                len(session.live_values(now)),
                len(session.scratchpad),
                checkpoints,
                session.task is not None,
            )

    async def drop_session(self, ref: SessionRef) -> None:
        with self._registry.lock:
            self._registry.sessions.pop(ref.digest, None)

    async def drop_sessions(self, tenant: str, user: str | None) -> int:
        with self._registry.lock:
            doomed = [
                digest
                for digest, s in self._registry.sessions.items()
                if s.tenant == tenant and (user is None or s.user == user)
            ]
            for digest in doomed:
                del self._registry.sessions[digest]
            return len(doomed)

    async def idle_sessions(
        self, tenant: str, idle_seconds: float, now: float, limit: int, after: str | None
    ) -> list[IdleSession]:
        with self._registry.lock:
            return self._registry.idle(tenant, idle_seconds, now, limit, after)

    async def drop_idle_session(self, ref: SessionRef, touched: float) -> bool:
        with self._registry.lock:
            session = self._registry.sessions.get(ref.digest)
            if session is None or session.touched > touched:
                return False
            del self._registry.sessions[ref.digest]
            return True

    async def ping(self) -> bool:
        return True

    async def aclose(self) -> None:
        return None
