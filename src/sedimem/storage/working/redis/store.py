"""The Redis working store: every write is one Lua script, every multi-key read one MULTI.

Layout: all keys of a session share the hash tag ``{<digest>}`` (so they live in one slot
on Redis Cluster):

- ``sdm:{d}:kv``   hash   user key -> ``"<expiry>|<version>|<value>"`` (expiry in epoch
  seconds, or empty; version: see ``version.py``): a read is one plain HGET, and a key whose
  expiry is <= now is absent at once
- ``sdm:{d}:ex``   zset   user key -> expiry, for the keys with one: counts live keys and finds
  expired ones to purge (lazily, when the key limit is reached); always a subset of ``kv``
- ``sdm:{d}:task`` hash   task field -> value
- ``sdm:{d}:sp``   list   scratchpad entries, capped with LTRIM
- ``sdm:{d}:vr``   hash   versions of whole-session writes: ``a`` keys cleared, ``t`` task
  state, ``s`` / ``sx`` scratchpad cleared (version / entry stamp), ``c`` checkpoints dropped
- ``sdm:{d}:tb``   zset   tombstones: deleted user key -> microseconds of its version, pruned
  past the session's idle lifetime (``vr`` and ``tb`` live one idle lifetime after their
  latest write)
- ``sdm:{d}:cp`` / ``sdm:{d}:cb`` / ``sdm:{d}:cx``: checkpoint info / content / expiry (zset)
- ``sdm:{d}:at``   string server time (ms) of the latest write: what consolidation calls idle

Every write carries a version (a hybrid logical clock with the writer's id). A live write
always lands, with a version above the one it replaces; a write replayed from an outage's
journal (``apply``) is a compare-and-set that never overwrites a newer one. A dropped
session keeps only ``vr`` (for its idle lifetime), so an older replay cannot revive it.

Every write renews the idle lifetime (PEXPIRE) of the four live keys in the same script, and
stamps ``at`` with the same lifetime, so they all die together; checkpoint keys expire with
their latest checkpoint. Expiry times are the caller's clock (``now``), while physical
lifetimes are relative (PEXPIRE), so a clock skew between client and server never shortens
anything.

``drop_sessions`` reads two small indexes (per tenant, per tenant and user): sorted sets of
session digests scored by the server time until which the session may hold data.
``idle_sessions`` reads a third one per tenant, of sessions scored by a recent write (see
:mod:`.scripts`); writers refresh it at most every ``_MARK_EVERY`` seconds per session, so
its scores are lower bounds and each candidate is checked against its exact ``at`` stamp.
Every index key carries the tenant's hash tag, never a session's: a write script touches only
its session's slot (Cluster-safe), and index upkeep is a separate command.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Self

from redis.asyncio import Redis, RedisCluster
from redis.exceptions import NoScriptError, RedisError

from sedimem.errors import LimitExceeded, StoreError, StoreUnavailable
from sedimem.storage.working.base import (
    IdleSession,
    SessionCounts,
    SessionRef,
    Snapshot,
    StoredValue,
)
from sedimem.storage.working.redis import commands as cmd
from sedimem.storage.working.redis.client import (
    CLUSTER_SCHEMES,
    UNAVAILABLE,
    connect,
    executor,
    named,
    torn_down,
)
from sedimem.storage.working.redis.commands import AT, CB, CP, CX, EX, KV, SP, TASK, entry_stamp
from sedimem.storage.working.redis.scripts import (
    ALL,
    FORGET_IDLE,
    IDLE_PAGE,
    MARK_ACTIVE,
    REGISTER,
)
from sedimem.storage.working.redis.version import PROCESS_CLOCK, HybridClock

__all__ = ["CLUSTER_SCHEMES", "RedisWorkingStore", "entry_stamp"]

# Re-register a session in the drop indexes this often (seconds, per process).
_REGISTER_EVERY = 3600.0
# Refresh a session's entry in the idle index this often (seconds, per process): an idle
# threshold well above it finds idle sessions without false candidates.
_MARK_EVERY = 10.0
_IDLE_PAGE = 200  # index entries examined per round trip by idle_sessions
_MAX_CACHED_SESSIONS = 50_000


class RedisWorkingStore:
    """Working memory in Redis 7 (standalone, or Cluster-compatible key layout)."""

    def __init__(
        self,
        client: Redis | RedisCluster,
        *,
        location: str = "redis",
        clock: HybridClock | None = None,
    ) -> None:
        self._client = client
        self._cluster = isinstance(client, RedisCluster)
        self._loading = asyncio.Lock()
        self.clock = clock or PROCESS_CLOCK  # versions of this store's writes
        self._execute: Callable[..., Awaitable[Any]] = executor(client)
        self._location = location
        self._keys: dict[str, cmd.Keys] = {}
        # digest -> monotonic time until which this process need not register it again
        self._registered: dict[str, float] = {}
        # digest -> monotonic time until which its idle-index entry is fresh enough
        self._marked: dict[str, float] = {}

    @classmethod
    def from_url(cls, url: str, *, clock: HybridClock | None = None) -> Self:
        """A store over :func:`~sedimem.storage.working.redis.client.connect`'s client
        (``redis://``, ``rediss://``, ``unix://``, ``redis+cluster://``)."""
        return cls(connect(url), location=url, clock=clock)

    @property
    def name(self) -> str:
        return "redis"

    @property
    def using_fallback(self) -> bool:
        return False

    @property
    def location(self) -> str:
        """The URL this store was opened with (identifies the server)."""
        return self._location

    def _session(self, digest: str) -> cmd.Keys:
        keys = self._keys.get(digest)
        if keys is None:
            if len(self._keys) >= _MAX_CACHED_SESSIONS:
                self._keys.clear()
            keys = self._keys[digest] = cmd.session_keys(digest)
        return keys

    # -- the wire ------------------------------------------------------------------------

    async def _run(self, command: cmd.Command) -> Any:
        """Run one command; a script the server does not know (yet) is sent whole once.

        EVAL runs the script and caches it on the node that runs it, which is the node the
        key's slot lives on now: after a Cluster failover, a promoted replica has an empty
        script cache, and loading scripts "into every master" by a client whose slot map is
        stale would miss it.
        """
        try:
            try:
                return await self._execute(*command)
            except NoScriptError:
                return await self._execute(cmd.EVAL, ALL[command[1]].source, *command[2:])
        except UNAVAILABLE as exc:
            raise await self._unavailable(exc) from exc
        except RedisError as exc:
            raise StoreError(f"Redis failed: {exc}") from exc
        except AttributeError as exc:
            if self._cluster and torn_down(exc):
                raise await self._unavailable(exc) from exc
            raise

    async def _load(self, sources: Sequence[str]) -> None:
        """Load scripts: on a Cluster into every master (a script cache is per node)."""
        for source in sources:
            if isinstance(self._client, RedisCluster):
                async with self._loading:  # one loader at a time, not one per caller
                    await self._client.script_load(source)  # into every master
            else:
                await self._execute("SCRIPT", "LOAD", source)

    async def _pipeline(self, commands: list[cmd.Command], *, transaction: bool) -> list[Any]:
        """Several commands in one round trip; a MULTI/EXEC when ``transaction``.

        On a Cluster the commands are grouped per node (one round trip each; a transaction
        must stay in one slot), and SCRIPT LOAD, which a pipeline cannot route, runs first
        on every master, its reply dropped.
        """
        try:
            if self._cluster:
                loads = [c[2] for c in commands if c[:2] == ("SCRIPT", "LOAD")]
                if loads:
                    await self._load(loads)
                    rest = iter(
                        await self._pipeline(
                            [c for c in commands if c[:2] != ("SCRIPT", "LOAD")],
                            transaction=transaction,
                        )
                    )
                    return [None if c[:2] == ("SCRIPT", "LOAD") else next(rest) for c in commands]
            if isinstance(self._client, RedisCluster):
                await self._client.initialize()
            async with self._client.pipeline(transaction=transaction) as pipe:
                for command in commands:
                    pipe.execute_command(*named(command) if self._cluster else command)
                result: list[Any] = await pipe.execute()
                return result
        except UNAVAILABLE as exc:
            raise await self._unavailable(exc) from exc
        except RedisError as exc:
            raise StoreError(f"Redis failed: {exc}") from exc
        except AttributeError as exc:
            if self._cluster and torn_down(exc):
                raise await self._unavailable(exc) from exc
            raise

    async def _unavailable(self, exc: Exception) -> StoreUnavailable:
        # The server may have restarted without its data: register sessions again.
        self._registered.clear()
        self._marked.clear()
        # Idle pooled connections to a dead server are not always noticed when they are
        # taken from the pool (a reset socket looks idle): drop them all now.
        with contextlib.suppress(Exception):
            await self.drop_idle_connections()
        return StoreUnavailable(f"Redis at {self._location} is unreachable: {exc}")

    def _registration(self, ref: SessionRef, keep_seconds: float) -> cmd.Command:
        tenant_key, user_key = cmd.index_keys(ref.tenant, ref.user)
        keys = (tenant_key,) if user_key is None else (tenant_key, user_key)
        keep_ms = int((keep_seconds + 2 * _REGISTER_EVERY) * 1000)
        return (cmd.EVALSHA, REGISTER.sha, len(keys), *keys, ref.digest, keep_ms)

    def _registered_now(self, ref: SessionRef) -> None:
        if len(self._registered) >= _MAX_CACHED_SESSIONS:
            self._registered.clear()
        self._registered[ref.digest] = time.monotonic() + _REGISTER_EVERY

    def _mark(self, ref: SessionRef) -> cmd.Command:
        """Refresh the session's idle-index entry (its score: the server time now)."""
        member = f"{ref.digest}|{ref.scope}"
        keep_ms = int((ref.ttl + 2 * _MARK_EVERY) * 1000)
        return (cmd.EVALSHA, MARK_ACTIVE.sha, b"1", cmd.idle_key(ref.tenant), member, keep_ms)

    def _marked_now(self, ref: SessionRef) -> None:
        if len(self._marked) >= _MAX_CACHED_SESSIONS:
            self._marked.clear()
        self._marked[ref.digest] = time.monotonic() + _MARK_EVERY

    async def _mark_if_due(self, ref: SessionRef) -> None:
        # before the write, so the entry's score never exceeds the write's stamp
        if ref.scope is not None and self._marked.get(ref.digest, 0.0) < time.monotonic():
            await self._run(self._mark(ref))
            self._marked_now(ref)

    async def _write(self, ref: SessionRef, build: Callable[..., cmd.Command], *args: Any) -> Any:
        """Run one write of the session, after the index upkeep that is due (rarely any)."""
        if self._registered.get(ref.digest, 0.0) < time.monotonic():
            await self._run(self._registration(ref, ref.ttl))
            self._registered_now(ref)
        await self._mark_if_due(ref)
        return await self._run(build(self._session(ref.digest), ref, *args))

    async def apply(self, writes: Sequence[tuple[str, SessionRef, str, tuple[Any, ...]]]) -> None:
        """Replay writes made elsewhere, in order and in one round trip, as compare-and-sets.

        Each is ``(method, ref, version, args)``, named like this store's write methods with
        the arguments after ``ref``, plus ``merge_scratchpad`` (whose version is unused). A
        write lands only if Redis holds nothing newer (``commands.replay``); a ``set``
        is not refused for the key limit. Results are not reported.
        """
        if not writes:
            return
        # after a restart the server knows no script: load them all in the same round trip
        commands: list[cmd.Command] = [("SCRIPT", "LOAD", s.source) for s in ALL.values()]
        registered: dict[str, SessionRef] = {}
        for method, ref, version, args in writes:
            if method == "put_checkpoint":
                expires_at, now = args[3], args[4]
                commands.append(self._registration(ref, max(ref.ttl, expires_at - now)))
            elif ref.digest not in registered and method not in _NO_REGISTRATION:
                commands.append(self._registration(ref, ref.ttl))
                registered[ref.digest] = ref
                if ref.scope is not None:
                    commands.append(self._mark(ref))
            k = self._session(ref.digest)
            if method == "merge_scratchpad":
                commands.append(cmd.merge(k, ref, *args))
            else:
                commands.extend(cmd.replay(k, ref, method, version, args))
        await self._pipeline(commands, transaction=False)
        for ref in registered.values():
            self._registered_now(ref)
            if ref.scope is not None:
                self._marked_now(ref)

    def _versioned(self, reply: Any) -> int:
        """The count of a ``{count, version}`` reply, after noting the version."""
        if len(reply) > 1:
            self.clock.observe(reply[1])
        return int(reply[0])

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
        version = self.clock.tick(now)
        written = await self._write(
            ref, cmd.set_value, version, False, key, value, expires_at, now, max_keys
        )
        if written == 1:
            raise LimitExceeded(
                "key",
                f"the session already holds {max_keys} keys",
                allowed=f"at most {max_keys} keys per session (overwrite or delete one first)",
            )
        self.clock.observe(written)

    async def get(self, ref: SessionRef, key: str, now: float) -> str | None:
        k = self._keys.get(ref.digest) or self._session(ref.digest)
        stored: str | None = await self._run((cmd.HGET, k[KV], key))
        if stored is None:
            return None
        expiry, _, rest = stored.partition("|")
        if expiry and float(expiry) <= now:
            return None
        version, sep, value = rest.partition("|")
        # an entry of an earlier release has no version ("<expiry>|<value>")
        return value if sep and version[16:17] == ":" else rest

    async def delete(self, ref: SessionRef, key: str, now: float) -> bool:
        version = self.clock.tick(now)
        return bool(
            self._versioned(await self._write(ref, cmd.delete_value, version, False, key, now))
        )

    async def items(self, ref: SessionRef, now: float) -> dict[str, StoredValue]:
        stored: dict[str, str] = await self._run(("HGETALL", self._session(ref.digest)[KV]))
        return cmd.live_values(stored, now)

    async def clear(self, ref: SessionRef, now: float) -> int:
        version = self.clock.tick(now)
        return self._versioned(await self._write(ref, cmd.clear_values, version, False, now))

    # -- task state ----------------------------------------------------------------------

    async def set_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> None:
        version = self.clock.tick(now)
        self._versioned(await self._write(ref, cmd.task, version, False, "0", fields))

    async def update_task(self, ref: SessionRef, fields: dict[str, str], now: float) -> bool:
        version = self.clock.tick(now)
        return bool(self._versioned(await self._write(ref, cmd.task, version, False, "1", fields)))

    async def get_task(self, ref: SessionRef, now: float) -> dict[str, str] | None:
        fields: dict[str, str] = await self._run(("HGETALL", self._session(ref.digest)[TASK]))
        return fields or None

    # -- scratchpad ----------------------------------------------------------------------

    async def append_scratchpad(
        self, ref: SessionRef, entry: str, max_entries: int, now: float
    ) -> None:
        await self._write(ref, cmd.append, entry, max_entries, now)

    async def scratchpad(self, ref: SessionRef, now: float) -> list[str]:
        entries: list[str] = await self._run(("LRANGE", self._session(ref.digest)[SP], 0, -1))
        return entries

    async def clear_scratchpad(self, ref: SessionRef, now: float) -> int:
        version = self.clock.tick(now)
        return self._versioned(await self._write(ref, cmd.clear_scratchpad, version, False))

    async def merge_scratchpad(
        self, ref: SessionRef, entries: list[str], max_entries: int, now: float
    ) -> int:
        """Add entries written elsewhere, skipping ids already present, in time order.

        Entries are the service's JSON (``id``, ``created_at``); returns how many were new.
        Entries stamped before the scratchpad's latest clear are skipped too.
        """
        return int(await self._write(ref, cmd.merge, entries, max_entries, now))

    # -- checkpoints ---------------------------------------------------------------------

    async def snapshot(self, ref: SessionRef, now: float) -> Snapshot:
        k = self._session(ref.digest)
        stored, task, pad = await self._pipeline(
            [("HGETALL", k[KV]), ("HGETALL", k[TASK]), ("LRANGE", k[SP], 0, -1)],
            transaction=True,
        )
        return Snapshot(cmd.live_values(stored, now), task or None, pad)

    async def restore(self, ref: SessionRef, snapshot: Snapshot, now: float) -> None:
        version = self.clock.tick(now)
        self.clock.observe(await self._write(ref, cmd.restore, version, snapshot))

    async def put_checkpoint(
        self,
        ref: SessionRef,
        checkpoint_id: str,
        info: str,
        content: str,
        expires_at: float,
        now: float,
    ) -> None:
        # Always registered: the checkpoint may outlive the session's registration.
        await self._run(self._registration(ref, max(ref.ttl, expires_at - now)))
        await self._mark_if_due(ref)
        k = self._session(ref.digest)
        version = self.clock.tick(now)
        await self._run(
            cmd.put_checkpoint(
                k, ref, version, False, checkpoint_id, info, content, expires_at, now
            )
        )

    async def get_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> str | None:
        k = self._session(ref.digest)
        expiry, content = await self._pipeline(
            [("ZSCORE", k[CX], checkpoint_id), ("HGET", k[CB], checkpoint_id)], transaction=True
        )
        if expiry is None or float(expiry) <= now:
            return None
        found: str | None = content
        return found

    async def list_checkpoints(self, ref: SessionRef, now: float) -> list[str]:
        k = self._session(ref.digest)
        infos, expiries = await self._pipeline(
            [("HGETALL", k[CP]), ("ZRANGE", k[CX], 0, -1, "WITHSCORES")], transaction=True
        )
        live = {cid for cid, expiry in cmd.pairs(expiries) if expiry > now}
        # ids are UUIDv7: sorted ids are creation order
        return [infos[cid] for cid in sorted(live) if cid in infos]

    async def delete_checkpoint(self, ref: SessionRef, checkpoint_id: str, now: float) -> bool:
        k = self._session(ref.digest)
        return bool(await self._run(cmd.delete_checkpoint(k, ref, checkpoint_id, now)))

    # -- whole sessions ------------------------------------------------------------------

    async def counts(self, ref: SessionRef, now: float) -> SessionCounts:
        k = self._session(ref.digest)
        keys, expired, entries, checkpoints, task = await self._pipeline(
            [
                ("HLEN", k[KV]),
                ("ZCOUNT", k[EX], "-inf", now),
                ("LLEN", k[SP]),
                ("ZCOUNT", k[CX], f"({now!r}", "+inf"),
                ("EXISTS", k[TASK]),
            ],
            transaction=True,
        )
        return SessionCounts(int(keys) - int(expired), int(entries), int(checkpoints), bool(task))

    async def drop_session(self, ref: SessionRef) -> None:
        """Remove the session's data; its versions stay for its idle lifetime (``vr``)."""
        version = self.clock.tick(time.time())
        self.clock.observe(
            await self._run(cmd.drop_session(self._session(ref.digest), ref, version))
        )

    async def drop_sessions(self, tenant: str, user: str | None) -> int:
        tenant_key, user_key = cmd.index_keys(tenant, user)
        digests: list[str] = await self._run(("ZRANGE", user_key or tenant_key, 0, -1))
        if not digests:
            return 0
        removed = await self._pipeline(
            [("DEL", *cmd.session_keys(digest)) for digest in digests], transaction=False
        )
        # Index entries stay until their score passes: other processes rely on them.
        return sum(1 for n in removed if n)

    # -- idle sessions -------------------------------------------------------------------

    async def idle_sessions(
        self, tenant: str, idle_seconds: float, now: float, limit: int, after: str | None
    ) -> list[IdleSession]:
        """Candidates from the idle index, each checked against its session's exact stamp.

        Idleness is measured on the server's clock (``now`` is not used). A candidate whose
        session is gone leaves the index; one written meanwhile gets its true score, so the
        next call does not look at it again: the index only shrinks towards the idle ones.
        """
        key = cmd.idle_key(tenant)
        idle_ms = max(0, int(idle_seconds * 1000))
        position = ("", "") if after is None else _split_cursor(after)
        found: list[IdleSession] = []
        while len(found) < limit:
            reply = await self._run(
                (cmd.EVALSHA, IDLE_PAGE.sha, b"1", key, idle_ms, _IDLE_PAGE, *position)
            )
            cutoff, flat = int(reply[0]), reply[1:]
            pairs = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
            if not pairs:
                break
            stamps = await self._pipeline(
                [("GET", cmd.session_keys(m.partition("|")[0])[AT]) for m, _ in pairs],
                transaction=False,
            )
            upkeep: list[cmd.Command] = []
            for (member, score), stamp in zip(pairs, stamps, strict=True):
                digest, _, scope = member.partition("|")
                if stamp is None:  # expired or dropped
                    upkeep.append((cmd.EVALSHA, FORGET_IDLE.sha, b"1", key, member, score))
                elif int(stamp) > cutoff:  # written since its entry was refreshed
                    upkeep.append(("ZADD", key, "GT", "XX", stamp, member))
                elif len(found) < limit:
                    cursor = f"{score}|{member}"
                    found.append(IdleSession(digest, scope, int(stamp) / 1000, cursor))
                position = (score, member)
            if upkeep:
                # the server may not know the script yet (a pipeline cannot load it on demand)
                load: cmd.Command = ("SCRIPT", "LOAD", FORGET_IDLE.source)
                await self._pipeline([load, *upkeep], transaction=False)
            if len(pairs) < _IDLE_PAGE:
                break
        return found

    async def drop_idle_session(self, ref: SessionRef, touched: float) -> bool:
        k = self._session(ref.digest)
        touched_ms = round(touched * 1000)
        version = self.clock.tick(time.time())  # versions stay: no older replay revives it
        return bool(await self._run(cmd.drop_idle(k, ref, touched_ms, version)))

    async def ping(self) -> bool:
        """True when Redis answers; on a Cluster, every master, with all slots served."""
        answered = await self._answers()
        if not answered and self._cluster:
            # A killed master stays in the client's node list (and is asked again on every
            # ping) until the client reads the slot map again, which names its replica.
            with contextlib.suppress(Exception):
                await self.drop_idle_connections()
        return answered

    async def _answers(self) -> bool:
        try:
            if not isinstance(self._client, RedisCluster):
                return bool(await self._run(("PING",)))
            await self._client.initialize()
            for node in self._client.get_primaries():
                info = await node.execute_command("CLUSTER", "INFO")
                if "cluster_state:ok" not in str(info):
                    return False
            return True
        except UNAVAILABLE:
            return False
        except (StoreError, RedisError):
            return False
        except AttributeError as exc:
            if torn_down(exc):
                return False
            raise

    async def drop_idle_connections(self) -> None:
        """Close the pooled connections not in use (made before a restart, say).

        A Cluster client closes all its connections and reads the slot map again on its
        next command (a failover may have moved masters).
        """
        if isinstance(self._client, RedisCluster):
            await self._client.aclose()
        else:
            await self._client.connection_pool.disconnect(inuse_connections=False)

    async def aclose(self) -> None:
        if isinstance(self._client, RedisCluster):
            await self._client.aclose()
        else:
            await self._client.aclose(close_connection_pool=True)


_NO_REGISTRATION = frozenset({"delete_checkpoint", "drop_session"})


def _split_cursor(cursor: str) -> tuple[str, str]:
    """(score, member) of an ``idle_sessions`` cursor."""
    score, _, member = cursor.partition("|")
    return score, member
