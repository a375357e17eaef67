"""Redis with an in-process fallback: an outage degrades service, it never loses a write.

While Redis answers, every call goes to it. When a call finds Redis unreachable (or Redis is
down when the store starts), the store turns *degraded*: from then on every call is served by
the in-process store and every write is also appended, in order, to a journal. A background
probe pings Redis every ``probe_interval_seconds``; once it answers, the journal is replayed
to Redis in pipelined chunks (calls keep going to the fallback and the journal meanwhile, and
wait only while the last few entries are replayed, or when they outpace the replay), then the
store switches back and forgets the sessions it held for the outage.

Every journaled write carries a version (``redis/version.py``: the process's hybrid logical clock,
with its writer id), and replay is a compare-and-set per write: it lands only if Redis holds
nothing newer for what it writes (a key, the task state; a delete's tombstone and a clear
count as writes). So when another process wrote the same key after the outage (its write
acknowledged by Redis while this one still held its journal), that later write survives the
replay. Scratchpad appends are merged by entry id in ``created_at`` order, skipping entries
older than the scratchpad's latest clear. Replay is idempotent, so an entry may safely be
applied twice (a reply lost in the outage), and the key limit is not enforced again (the
write was acknowledged).

The journal is bounded (``max_journal_entries``): past the bound a write raises
:class:`~sedimem.errors.OutageJournalFull` and changes nothing, rather than being dropped
silently. The journal lives in this process's memory, and with ``journal_dir`` set also in a
file fsynced before each write is acknowledged (``journal.py``): then a process that dies
during an outage loses nothing it acknowledged, since the next process to open the store
writes its journal back. Without it, such a process loses the writes it made since the
outage began; see docs/working-memory.md.

The degraded flag and the journal are shared by every wrapper over the same Redis location and
the same fallback registry, so two handles in one process agree during an outage and
replay one history.

What an outage cannot offer: state written before it lives only in Redis, so during the outage
reads see only what was written since (a session reads as empty, ``update_task`` finds no task
state), and counts returned by writes (``clear``, ``drop_sessions``) are the fallback's.
For the same reason consolidation leaves sessions alone during an outage: ``idle_sessions``
lists none and ``drop_idle_session`` removes nothing (the fallback holds only a part of each
session, and Redis's stamps cannot be checked); the next run after recovery catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Self
from weakref import WeakKeyDictionary

from sedimem.config import WorkingSettings
from sedimem.errors import OutageJournalFull, StoreUnavailable
from sedimem.storage.working.base import (
    IdleSession,
    SessionCounts,
    SessionRef,
    Snapshot,
    StoredValue,
)
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry
from sedimem.storage.working.journal import Adopted, DiskJournal, Entry
from sedimem.storage.working.redis import RedisWorkingStore

__all__ = ["FallbackWorkingStore"]

logger = logging.getLogger("sedimem.working.fallback")

_CHUNK = 1000  # journal entries replayed per round trip ...
_CHUNK_BYTES = 8 * 1024 * 1024  # ... and at most about this much data
_GATE_AT = 64  # hold new calls while the last this-many entries are replayed
_TOUCH_SCRATCHPAD = frozenset({"clear_scratchpad", "restore", "drop_session"})


class _Outage:
    """What the wrappers over one (Redis location, fallback registry) pair share."""

    def __init__(self) -> None:
        self.degraded = False
        self.journal: deque[Entry] = deque()
        self.touched: dict[str, SessionRef] = {}  # sessions the fallback holds
        self.draining = False
        self.gate: asyncio.Event | None = None  # set while the journal's tail is replayed
        self.writers = 0  # fallback writes not yet journaled
        self.disk: DiskJournal | None = None  # the journal's copy on disk (journal_dir)
        self.adopted: list[Adopted] = []  # journals of dead processes, replayed with ours


def _weight(entry: Entry) -> int:
    """Roughly how many bytes an entry sends."""
    total = 64
    for arg in entry.args:
        if isinstance(arg, str):
            total += len(arg)
        elif isinstance(arg, dict):
            total += sum(len(k) + len(v) for k, v in arg.items())
        elif isinstance(arg, Snapshot):
            total += sum(len(k) + len(v.value) for k, v in arg.values.items())
            total += sum(len(e) for e in arg.scratchpad)
            total += sum(len(k) + len(v) for k, v in (arg.task or {}).items())
    return total


def _next_chunk(journal: deque[Entry]) -> list[Entry]:
    """The oldest entries, bounded in number and size (at least one)."""
    chunk: list[Entry] = []
    size = 0
    for entry in journal:
        size += _weight(entry)
        if chunk and (len(chunk) >= _CHUNK or size > _CHUNK_BYTES):
            break
        chunk.append(entry)
    return chunk


_OUTAGES: WeakKeyDictionary[SessionRegistry, dict[str, _Outage]] = WeakKeyDictionary()


def _shared_outage(registry: SessionRegistry, location: str) -> _Outage:
    return _OUTAGES.setdefault(registry, {}).setdefault(location, _Outage())


class FallbackWorkingStore:
    """A :class:`RedisWorkingStore` that degrades to an in-process store and back."""

    def __init__(
        self,
        primary: RedisWorkingStore,
        fallback: InProcessWorkingStore,
        *,
        settings: WorkingSettings | None = None,
    ) -> None:
        self._primary = primary
        self._fallback = fallback
        self._settings = settings or WorkingSettings()
        self._outage = _shared_outage(fallback.registry, primary.location)
        if self._settings.journal_dir is not None and self._outage.disk is None:
            self._outage.disk = DiskJournal(self._settings.journal_dir, primary.location)
        self._probe: asyncio.Task[None] | None = None

    @classmethod
    async def start(
        cls,
        primary: RedisWorkingStore,
        fallback: InProcessWorkingStore,
        *,
        settings: WorkingSettings | None = None,
    ) -> Self:
        """Ping Redis once (degrading at once if it is down), write back the journals that
        dead processes left on disk, and start the probe."""
        store = cls(primary, fallback, settings=settings)
        outage = store._outage
        if not outage.degraded and not await primary.ping():
            store._degrade(f"Redis at {primary.location} did not answer PING at start")
        if outage.disk is not None:
            entries, adopted = outage.disk.adopt()
            if entries and not outage.degraded:
                try:
                    while entries:
                        chunk = _next_chunk(deque(entries))
                        await store._replay(chunk)
                        del entries[: len(chunk)]
                except StoreUnavailable as exc:
                    store._degrade(exc)
            if entries:  # Redis is down: they go first when this process writes back
                outage.journal.extendleft(reversed(entries))
                outage.adopted.extend(adopted)
            else:
                DiskJournal.release(adopted)
        store._probe = asyncio.create_task(store._probe_forever(), name="sedimem-redis-probe")
        return store

    @property
    def name(self) -> str:
        return "redis"

    @property
    def using_fallback(self) -> bool:
        return self._outage.degraded

    @property
    def pending_writes(self) -> int:
        """Writes made during an outage and not yet written back to Redis."""
        return len(self._outage.journal)

    # -- routing -------------------------------------------------------------------------

    def _degrade(self, reason: object) -> None:
        outage = self._outage
        if not outage.degraded:
            outage.degraded = True
            logger.warning(
                "working memory is served from the in-process fallback until Redis answers "
                "again: %s",
                reason,
            )

    async def _read(self, method: str, *args: Any) -> Any:
        outage = self._outage
        if outage.gate is not None:
            await outage.gate.wait()
        if not outage.degraded:
            try:
                return await getattr(self._primary, method)(*args)
            except StoreUnavailable as exc:
                self._degrade(exc)
        return await getattr(self._fallback, method)(*args)

    async def _write(
        self,
        method: str,
        ref: SessionRef | None,
        *args: Any,
        now: float | None = None,
        journal_if: object = None,
    ) -> Any:
        """Write to Redis, or to the fallback and the journal; ``now``: the write's time (its
        version's); ``journal_if``: only on that result (e.g. ``True`` for update_task, which
        writes nothing when there is no task)."""
        outage = self._outage
        if outage.gate is not None:
            await outage.gate.wait()
        call_args = args if ref is None else (ref, *args)
        if not outage.degraded:
            try:
                return await getattr(self._primary, method)(*call_args)
            except StoreUnavailable as exc:
                self._degrade(exc)
        bound = self._settings.max_journal_entries
        if len(outage.journal) >= bound:
            raise OutageJournalFull(
                f"Redis at {self._primary.location} is unreachable and the outage journal "
                f"holds {bound} writes, its bound (max_journal_entries, "
                f"SEDIMEM_WORKING__MAX_JOURNAL_ENTRIES): this {method} was refused and "
                "nothing was written",
                bound=bound,
            )
        outage.writers += 1
        try:
            result = await getattr(self._fallback, method)(*call_args)
            if journal_if is None or result == journal_if:
                when = time.time() if now is None else now
                version = "" if ref is None else self._primary.clock.tick(when)
                entry = Entry(method, ref, args, version)
                if outage.disk is not None:
                    outage.disk.append(entry)  # durable before it is acknowledged
                outage.journal.append(entry)
                if ref is not None:
                    outage.touched[ref.digest] = ref
            return result
        finally:
            outage.writers -= 1

    # -- user keys -----------------------------------------------------------------------

    async def set(
        self,
        ref: SessionRef,
        key: str,
        value: str,
        expires_at: float | None,
        now: float,
        max_keys: int,
    ) -> None:
        await self._write("set", ref, key, value, expires_at, now, max_keys, now=now)

    async def get(self, ref: SessionRef, key: str, now: float) -> str | None:
        value: str | None = await self._read("get", ref, key, now)
        return value

    async def delete(self, ref: SessionRef, key: str, now: float) -> bool:
        return bool(await self._write("delete", ref, key, now, now=now))

    async def items(self, ref: SessionRef, now: float) -> dict[str, StoredValue]:
        items: dict[str, StoredValue] = await self._read("items", ref, now)
        return items

    async def clear(self, ref: SessionRef, now: float) -> int:
        return int(await self._write("clear", ref, now, now=now))

    # -- task state ----------------------------------------------------------------------

    async def set_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> None:
        await self._write("set_task", ref, dict(fields), now, now=now)

    async def update_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> bool:
        update = await self._write("update_task", ref, dict(fields), now, now=now, journal_if=True)
        return bool(update)

    async def get_task(self, ref: SessionRef, now: float) -> dict[str, str] | None:
        task: dict[str, str] | None = await self._read("get_task", ref, now)
        return task

    # -- scratchpad ----------------------------------------------------------------------

    async def append_scratchpad(
        self, ref: SessionRef, entry: str, max_entries: int, now: float
    ) -> None:
        await self._write("append_scratchpad", ref, entry, max_entries, now, now=now)

    async def scratchpad(self, ref: SessionRef, now: float) -> list[str]:
        entries: list[str] = await self._read("scratchpad", ref, now)
        return entries

    async def clear_scratchpad(self, ref: SessionRef, now: float) -> int:
        return int(await self._write("clear_scratchpad", ref, now, now=now))

    # -- checkpoints ---------------------------------------------------------------------

    async def snapshot(self, ref: SessionRef, now: float) -> Snapshot:
        snapshot: Snapshot = await self._read("snapshot", ref, now)
        return snapshot

    async def restore(self, ref: SessionRef, snapshot: Snapshot, now: float) -> None:
        await self._write("restore", ref, snapshot, now, now=now)

    async def put_checkpoint(
        self,
        ref: SessionRef,
        checkpoint_id: str,
        info: str,
        content: str,
        expires_at: float,
        now: float,
    ) -> None:
        await self._write(
            "put_checkpoint", ref, checkpoint_id, info, content, expires_at, now, now=now
        )

    async def get_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> str | None:
        content: str | None = await self._read("get_checkpoint", ref, checkpoint_id, now)
        return content

    async def list_checkpoints(self, ref: SessionRef, now: float) -> list[str]:
        infos: list[str] = await self._read("list_checkpoints", ref, now)
        return infos

    async def delete_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> bool:
        return bool(await self._write("delete_checkpoint", ref, checkpoint_id, now, now=now))

    # -- whole sessions ------------------------------------------------------------------

    async def counts(self, ref: SessionRef, now: float) -> SessionCounts:
        counts: SessionCounts = await self._read("counts", ref, now)
        return counts

    async def drop_session(self, ref: SessionRef) -> None:
        await self._write("drop_session", ref)
        self._purge_journal("drop_session", lambda r: r.digest == ref.digest)

    async def drop_sessions(self, tenant: str, user: str | None) -> int:
        dropped = int(await self._write("drop_sessions", None, tenant, user))
        self._purge_journal(
            "drop_sessions", lambda r: r.tenant == tenant and (user is None or r.user == user)
        )
        return dropped

    def _purge_journal(self, method: str, erased: Callable[[SessionRef], bool]) -> None:
        """Erasure reaches the journal: the entries of erased sessions journaled before the
        drop (the drop, replayed, removes them from Redis anyway) leave this process's
        memory and its journal file now. Entries after the drop (later writes) stay; so
        does the drop itself, for what Redis held from before the outage. Not while the
        journal is being replayed: the replay removes entries by position (they leave with
        it, moments later)."""
        outage = self._outage
        if outage.draining or not outage.journal:
            return
        entries = list(outage.journal)
        drops = [i for i, e in enumerate(entries) if e.method == method]
        if not drops:
            return
        cut = drops[-1]
        kept = [e for i, e in enumerate(entries) if i >= cut or e.ref is None or not erased(e.ref)]
        if len(kept) == len(entries):
            return
        if outage.disk is not None:
            outage.disk.rewrite(kept)  # first: on failure, both copies still agree
        outage.journal.clear()
        outage.journal.extend(kept)

    # -- idle sessions (consolidation): Redis only, never the fallback ----------------------

    async def idle_sessions(
        self, tenant: str, idle_seconds: float, now: float, limit: int, after: str | None
    ) -> list[IdleSession]:
        if self._outage.gate is not None:
            await self._outage.gate.wait()
        if not self._outage.degraded:
            try:
                return await self._primary.idle_sessions(tenant, idle_seconds, now, limit, after)
            except StoreUnavailable as exc:
                self._degrade(exc)
        return []

    async def drop_idle_session(self, ref: SessionRef, touched: float) -> bool:
        if self._outage.gate is not None:
            await self._outage.gate.wait()
        if not self._outage.degraded:
            try:
                return await self._primary.drop_idle_session(ref, touched)
            except StoreUnavailable as exc:
                self._degrade(exc)
        return False

    async def ping(self) -> bool:
        """True while calls are served: by Redis, or by the fallback during an outage."""
        if not self._outage.degraded:
            if await self._primary.ping():
                return True
            self._degrade(f"Redis at {self._primary.location} did not answer PING")
        return await self._fallback.ping()

    # -- recovery ------------------------------------------------------------------------

    async def _probe_forever(self) -> None:
        while True:
            await asyncio.sleep(self._settings.probe_interval_seconds)
            if self._outage.degraded:
                try:
                    await self.recover()
                except Exception:  # the probe must outlive any one failure
                    logger.exception("writing back to Redis failed; staying on the fallback")

    async def recover(self) -> bool:
        """Write the journal back and switch to Redis if it answers; True when on Redis."""
        outage = self._outage
        if not outage.degraded or outage.draining:
            return not outage.degraded
        if not await self._primary.ping():
            return False
        # connections made before the outage may point at the dead server: start afresh
        await self._primary.drop_idle_connections()
        outage.draining = True
        written = 0
        try:
            shrinking = True
            while True:
                # Hold new calls for the journal's tail, or as soon as writers outpace the
                # replay; until then they keep going to the fallback and the journal.
                if outage.gate is None and (len(outage.journal) <= _GATE_AT or not shrinking):
                    outage.gate = asyncio.Event()
                if not outage.journal:
                    if outage.gate is not None and outage.writers == 0:
                        break
                    await asyncio.sleep(0)  # let an in-flight fallback write journal itself
                    continue
                length = len(outage.journal)
                chunk = _next_chunk(outage.journal)
                await self._replay(chunk)
                for _ in chunk:
                    outage.journal.popleft()
                written += len(chunk)
                shrinking = len(outage.journal) < length
            outage.degraded = False
        except StoreUnavailable as exc:
            logger.debug("Redis failed again while writing back (%s); staying on the fallback", exc)
            return False
        finally:
            outage.draining = False
            gate, outage.gate = outage.gate, None
            if gate is not None:
                gate.set()
        if outage.disk is not None:
            outage.disk.clear()
        adopted, outage.adopted = outage.adopted, []
        DiskJournal.release(adopted)
        touched, outage.touched = outage.touched, {}
        for ref in touched.values():
            if ref.digest not in outage.touched:  # not written again by a new outage
                await self._fallback.drop_session(ref)
        logger.info(
            "Redis at %s is back: %d writes made during the outage were written back",
            self._primary.location,
            written,
        )
        return True

    async def _replay(self, entries: list[Entry]) -> None:
        """Apply journal entries to Redis in order, pipelined, each a compare-and-set.

        A run of appends to one session becomes one merge, placed before the next entry that
        touches that scratchpad (appends commute with every other kind of write).
        ``drop_sessions`` spans sessions, so everything before it lands first.
        """
        writes: list[tuple[str, SessionRef, str, tuple[Any, ...]]] = []
        appends: dict[str, tuple[SessionRef, list[tuple[Any, ...]]]] = {}

        def merge(digest: str) -> None:
            if digest in appends:
                ref, run = appends.pop(digest)
                _, max_entries, now = run[-1]
                entries = [a[0] for a in run]
                writes.append(("merge_scratchpad", ref, "", (entries, max_entries, now)))

        for entry in entries:
            if entry.ref is None:
                for digest in list(appends):
                    merge(digest)
                await self._primary.apply(writes)
                writes = []
                await self._primary.drop_sessions(*entry.args)
            elif entry.method == "append_scratchpad":
                appends.setdefault(entry.ref.digest, (entry.ref, []))[1].append(entry.args)
            else:
                if entry.method in _TOUCH_SCRATCHPAD:
                    merge(entry.ref.digest)
                writes.append((entry.method, entry.ref, entry.version, entry.args))
        for digest in list(appends):
            merge(digest)
        await self._primary.apply(writes)

    async def aclose(self) -> None:
        """Stop the probe (writing back once more if it can) and close both stores."""
        if self._probe is not None:
            self._probe.cancel()
            await asyncio.wait({self._probe})  # without swallowing a cancellation of ours
            self._probe = None
        if self._outage.degraded:
            with contextlib.suppress(Exception):
                await self.recover()
            if self._outage.journal:
                disk = self._outage.disk
                logger.warning(
                    "closing while Redis at %s is unreachable: %d writes of the outage "
                    "are kept in %s",
                    self._primary.location,
                    len(self._outage.journal),
                    "this process only" if disk is None else f"this process and {disk.path}",
                )
        await self._primary.aclose()
        await self._fallback.aclose()
