"""``WorkingMemory``: key-value with TTL, task state, scratchpad and checkpoints for a session."""

from __future__ import annotations

import fnmatch
import json
import logging
from types import TracebackType
from typing import Any, Self

from sedimem.clock import Clock, SystemClock, utc_from_timestamp
from sedimem.config import WorkingSettings
from sedimem.errors import NotFound, ValidationError
from sedimem.ids import new_id
from sedimem.limits import (
    KEPT_SESSION_TTL_SECONDS,
    MAX_CHECKPOINT_DESCRIPTION_CHARS,
    MAX_TTL_SECONDS,
)
from sedimem.scope import Scope
from sedimem.storage.working.base import SessionRef, WorkingStore
from sedimem.types.text import check_no_nul
from sedimem.types.working import (
    CheckpointInfo,
    KeyEntry,
    ScratchpadEntry,
    TaskState,
    TaskStatus,
    WorkingStats,
)
from sedimem.working import codec

# the limits working memory enforces (of sedimem.limits), re-exported where they apply
__all__ = [
    "MAX_CHECKPOINT_DESCRIPTION_CHARS",
    "MAX_TTL_SECONDS",
    "WorkingMemory",
    "check_session_ttl",
]

logger = logging.getLogger("sedimem.working")


class WorkingMemory:
    """The working memory of one session scope.

    Handles are cheap: any number of them on the same session, in one process or many,
    see the same data, because all state lives in the store.
    """

    def __init__(
        self,
        store: WorkingStore,
        scope: Scope,
        *,
        settings: WorkingSettings | None = None,
        clock: Clock | None = None,
        owns_store: bool = False,
        session_ttl_seconds: float | None = None,
    ) -> None:
        scope.require_session()
        self._store = store
        self._scope = scope
        self._settings = settings or WorkingSettings()
        if session_ttl_seconds is not None:
            # this handle's idle lifetime (a framework's durable state), renewed by its writes
            check_session_ttl(session_ttl_seconds)
            self._settings = self._settings.model_copy(
                update={"session_ttl_seconds": session_ttl_seconds}
            )
        self._clock = clock or SystemClock()
        self._owns_store = owns_store
        self._ref = SessionRef(
            digest=scope.digest,
            tenant=scope.tenant,
            user=scope.user,
            ttl=self._settings.session_ttl_seconds,
            scope=scope.canonical,
        )

    @property
    def scope(self) -> Scope:
        return self._scope

    @property
    def store(self) -> WorkingStore:
        return self._store

    # -- key-value -------------------------------------------------------------------------

    async def set(self, key: str, value: Any, ttl_seconds: float | None = None) -> None:
        """Store ``value`` (any JSON value) under ``key``, for ``ttl_seconds`` if given."""
        codec.check_key(key)
        ttl = codec.check_ttl(ttl_seconds, upper=MAX_TTL_SECONDS)
        text = codec.encode_value(value, self._settings.max_value_bytes)
        now = self._clock.now()
        expires_at = None if ttl is None else now + ttl
        await self._store.set(
            self._ref, key, text, expires_at, now, self._settings.max_keys_per_session
        )

    async def get(self, key: str, default: Any = None) -> Any:
        codec.check_key(key)
        text = await self._store.get(self._ref, key, self._clock.now())
        return default if text is None else codec.decode_value(text)

    async def delete(self, key: str) -> bool:
        codec.check_key(key)
        return await self._store.delete(self._ref, key, self._clock.now())

    async def exists(self, key: str) -> bool:
        codec.check_key(key)
        return await self._store.get(self._ref, key, self._clock.now()) is not None

    async def list_keys(self, pattern: str = "*") -> list[str]:
        """The session's keys matching a glob ``pattern``, sorted."""
        keys = await self._store.items(self._ref, self._clock.now())
        return sorted(k for k in keys if fnmatch.fnmatchcase(k, pattern))

    async def get_all(self) -> dict[str, Any]:
        items = await self._store.items(self._ref, self._clock.now())
        return {k: codec.decode_value(v.value) for k, v in sorted(items.items())}

    async def entries(self) -> list[KeyEntry]:
        """The user keys, sorted, each with its value and the time it has left."""
        now = self._clock.now()
        items = await self._store.items(self._ref, now)
        return [
            KeyEntry(
                key=key,
                value=codec.decode_value(stored.value),
                expires_at=None
                if stored.expires_at is None
                else utc_from_timestamp(stored.expires_at),
                ttl_left_seconds=None
                if stored.expires_at is None
                else max(0.0, stored.expires_at - now),
            )
            for key, stored in sorted(items.items())
        ]

    async def clear(self) -> int:
        """Remove the user keys (not task state, scratchpad or checkpoints); return how many."""
        return await self._store.clear(self._ref, self._clock.now())

    # -- task state ------------------------------------------------------------------------

    async def set_task_state(self, state: TaskState) -> None:
        now = self._clock.now()
        stamped = state.model_copy(
            update={
                "started_at": state.started_at or utc_from_timestamp(now),
                "updated_at": utc_from_timestamp(now),
            }
        )
        await self._store.set_task(self._ref, codec.encode_task(stamped), now)

    async def get_task_state(self) -> TaskState | None:
        return codec.decode_task(await self._store.get_task(self._ref, self._clock.now()))

    async def update_task_progress(
        self,
        current_step: int | None = None,
        progress_percent: float | None = None,
        status: TaskStatus | str | None = None,
    ) -> TaskState:
        """Change the given fields of the task state in one atomic step."""
        changes: dict[str, Any] = {}
        if current_step is not None:
            if isinstance(current_step, bool) or not isinstance(current_step, int):
                raise ValidationError("current_step", "must be an integer", allowed=">= 0")
            if current_step < 0:
                raise ValidationError("current_step", f"{current_step} is negative", allowed=">= 0")
            changes["current_step"] = current_step
        if progress_percent is not None:
            if isinstance(progress_percent, bool) or not isinstance(progress_percent, int | float):
                raise ValidationError("progress_percent", "must be a number", allowed="0..100")
            if not 0 <= progress_percent <= 100:
                raise ValidationError(
                    "progress_percent", f"{progress_percent} is out of range", allowed="0..100"
                )
            changes["progress_percent"] = float(progress_percent)
        if status is not None:
            try:
                changes["status"] = TaskStatus(status).value
            except ValueError as exc:
                raise ValidationError(
                    "status",
                    f"{status!r} is unknown",
                    allowed=", ".join(s.value for s in TaskStatus),
                ) from exc
        now = self._clock.now()
        changes["updated_at"] = utc_from_timestamp(now).isoformat()
        fields = {name: json.dumps(v) for name, v in changes.items()}
        if not await self._store.update_task(self._ref, fields, now):
            raise NotFound("the session has no task state; call set_task_state first")
        state = await self.get_task_state()
        if state is None:  # the session expired between the two calls
            raise NotFound("the session has no task state; call set_task_state first")
        return state

    # -- scratchpad ------------------------------------------------------------------------

    async def append_scratchpad(self, text: str) -> None:
        """Append one entry; the scratchpad keeps the newest ``max_scratchpad_entries``."""
        if not isinstance(text, str) or not text:
            raise ValidationError("text", "must be a non-empty string", allowed="1+ characters")
        limit = self._settings.max_scratchpad_entry_bytes
        if len(text.encode()) > limit:
            raise ValidationError("text", "is too long", allowed=f"at most {limit} bytes")
        check_no_nul("text", text)  # entries become a session episode's actions
        now = self._clock.now()
        entry = ScratchpadEntry(id=new_id(), text=text, created_at=utc_from_timestamp(now))
        await self._store.append_scratchpad(
            self._ref, codec.encode_entry(entry), self._settings.max_scratchpad_entries, now
        )

    async def get_scratchpad(self) -> list[str]:
        return [e.text for e in await self.get_scratchpad_with_timestamps()]

    async def get_scratchpad_with_timestamps(self) -> list[ScratchpadEntry]:
        raw = await self._store.scratchpad(self._ref, self._clock.now())
        return [codec.decode_entry(text) for text in raw]

    async def clear_scratchpad(self) -> int:
        return await self._store.clear_scratchpad(self._ref, self._clock.now())

    # -- checkpoints -----------------------------------------------------------------------

    async def create_checkpoint(self, description: str = "") -> str:
        """Snapshot user keys (with their remaining TTLs), task state and scratchpad."""
        if not isinstance(description, str) or len(description) > MAX_CHECKPOINT_DESCRIPTION_CHARS:
            raise ValidationError(
                "description",
                "must be text",
                allowed=f"0..{MAX_CHECKPOINT_DESCRIPTION_CHARS} characters",
            )
        check_no_nul("description", description)
        now = self._clock.now()
        snapshot = await self._store.snapshot(self._ref, now)
        content = codec.encode_snapshot(snapshot, now)
        expires_at = now + self._settings.checkpoint_ttl_seconds
        info = CheckpointInfo(
            id=new_id(),
            description=description,
            created_at=utc_from_timestamp(now),
            expires_at=utc_from_timestamp(expires_at),
            keys=len(snapshot.values),
            scratchpad_entries=len(snapshot.scratchpad),
            has_task_state=snapshot.task is not None,
            size_bytes=len(content.encode()),
        )
        await self._store.put_checkpoint(
            self._ref, info.id, info.model_dump_json(), content, expires_at, now
        )
        return info.id

    async def restore_checkpoint(self, checkpoint_id: str) -> None:
        """Replace the live state with the checkpoint's, atomically; checkpoints stay."""
        now = self._clock.now()
        content = await self._checkpoint_content(checkpoint_id, now)
        await self._store.restore(self._ref, codec.decode_snapshot(content, now), now)

    async def fork(self, checkpoint_id: str, new_session: str) -> WorkingMemory:
        """A new session of the same scope that starts from this session's checkpoint."""
        scope = self._scope.with_session(new_session)
        if scope == self._scope:
            raise ValidationError(
                "new_session", "is the session being forked", allowed="another session id"
            )
        now = self._clock.now()
        content = await self._checkpoint_content(checkpoint_id, now)
        forked = WorkingMemory(
            self._store,
            scope,
            settings=self._settings,
            clock=self._clock,
            session_ttl_seconds=self._settings.session_ttl_seconds,
        )
        await self._store.restore(forked._ref, codec.decode_snapshot(content, now), now)
        return forked

    async def list_checkpoints(self) -> list[CheckpointInfo]:
        raw = await self._store.list_checkpoints(self._ref, self._clock.now())
        return [CheckpointInfo.model_validate_json(text) for text in raw]

    async def delete_checkpoint(self, checkpoint_id: str) -> None:
        self._check_checkpoint_id(checkpoint_id)
        if not await self._store.delete_checkpoint(self._ref, checkpoint_id, self._clock.now()):
            raise NotFound(f"checkpoint {checkpoint_id!r} does not exist in this session")

    async def _checkpoint_content(self, checkpoint_id: str, now: float) -> str:
        self._check_checkpoint_id(checkpoint_id)
        content = await self._store.get_checkpoint(self._ref, checkpoint_id, now)
        if content is None:
            raise NotFound(f"checkpoint {checkpoint_id!r} does not exist in this session")
        return content

    @staticmethod
    def _check_checkpoint_id(checkpoint_id: str) -> None:
        if not isinstance(checkpoint_id, str) or not 0 < len(checkpoint_id) <= 64:
            raise ValidationError("checkpoint_id", "must be an id", allowed="1..64 characters")

    # -- the session as a whole ------------------------------------------------------------

    async def get_stats(self) -> WorkingStats:
        counts = await self._store.counts(self._ref, self._clock.now())
        return WorkingStats(
            backend=self._store.name,
            using_fallback=self._store.using_fallback,
            keys=counts.keys,
            scratchpad_entries=counts.scratchpad_entries,
            checkpoints=counts.checkpoints,
            has_task_state=counts.has_task_state,
        )

    async def destroy(self) -> None:
        """Remove everything of the session, checkpoints included."""
        await self._store.drop_session(self._ref)

    async def is_healthy(self) -> bool:
        return await self._store.ping()

    def is_using_fallback(self) -> bool:
        return self._store.using_fallback

    async def close(self) -> None:
        """Release the store if this handle opened it; other handles are unaffected."""
        if self._owns_store:
            await self._store.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def check_session_ttl(ttl: float) -> None:
    """A session's own idle lifetime: above 0, at most a century."""
    if isinstance(ttl, bool) or not isinstance(ttl, int | float):
        raise ValidationError(
            "session_ttl_seconds",
            "must be a number",
            allowed=f"0 < ttl <= {KEPT_SESSION_TTL_SECONDS:g}",
        )
    if not 0 < ttl <= KEPT_SESSION_TTL_SECONDS:
        raise ValidationError(
            "session_ttl_seconds",
            f"{ttl:g} is out of range",
            allowed=f"0 < ttl <= {KEPT_SESSION_TTL_SECONDS:g} (a century: kept until deleted)",
        )
