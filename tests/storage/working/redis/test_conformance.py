"""The working-store conformance suite on a real redis-server, directly and via the fallback."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError

from sedimem.config import WorkingSettings
from sedimem.errors import ConfigurationError, LimitExceeded, StoreError, StoreUnavailable
from sedimem.scope import Scope
from sedimem.storage.working.base import SessionRef, Snapshot, StoredValue
from sedimem.storage.working.fallback import FallbackWorkingStore
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry
from sedimem.storage.working.redis import RedisWorkingStore, entry_stamp
from sedimem.storage.working.redis.scripts import FORGET_IDLE
from sedimem.storage.working.redis.version import HybridClock
from sedimem.testing import WorkingStoreConformance

pytestmark = pytest.mark.redis

_SUFFIXES = ("kv", "ex", "task", "sp", "vr", "tb", "cp", "cb", "cx", "at")


@pytest.mark.redis
class TestRedisStore(WorkingStoreConformance):
    @pytest.fixture
    async def store(self, redis_url: str) -> AsyncIterator[RedisWorkingStore]:
        store = RedisWorkingStore.from_url(redis_url)
        yield store
        await store.aclose()

    @pytest.fixture
    async def other_handle(self, redis_url: str) -> AsyncIterator[RedisWorkingStore]:
        store = RedisWorkingStore.from_url(redis_url)
        yield store
        await store.aclose()


@pytest.mark.redis
class TestRedisWithFallbackStore(WorkingStoreConformance):
    """The wrapper must be invisible while Redis is up: everything goes to Redis."""

    async def _open(self, url: str) -> FallbackWorkingStore:
        return await FallbackWorkingStore.start(
            RedisWorkingStore.from_url(url),
            InProcessWorkingStore(SessionRegistry()),
            settings=WorkingSettings(probe_interval_seconds=0.05),
        )

    @pytest.fixture
    async def store(self, redis_url: str) -> AsyncIterator[FallbackWorkingStore]:
        store = await self._open(redis_url)
        yield store
        assert not store.using_fallback
        await store.aclose()

    @pytest.fixture
    async def other_handle(self, redis_url: str) -> AsyncIterator[FallbackWorkingStore]:
        store = await self._open(redis_url)
        yield store
        await store.aclose()


@pytest.mark.redis
class TestRedisClusterStore(TestRedisStore):
    """The same suite on a real Redis Cluster (3 masters, 3 replicas) via redis+cluster://."""

    @pytest.fixture
    def redis_url(self, redis_cluster_url: str) -> str:
        return redis_cluster_url


@pytest.mark.redis
class TestRedisClusterWithFallbackStore(TestRedisWithFallbackStore):
    @pytest.fixture
    def redis_url(self, redis_cluster_url: str) -> str:
        return redis_cluster_url


def _ref(session: str = "s", tenant: str = "t", user: str | None = "u") -> SessionRef:
    scope = Scope(tenant=tenant, user=user, session=session)
    return SessionRef(scope.digest, tenant, user, ttl=3600)


def _scoped(session: str = "s", tenant: str = "t") -> SessionRef:
    scope = Scope(tenant=tenant, user="u", session=session)
    return SessionRef(scope.digest, tenant, "u", ttl=3600, scope=scope.canonical)


@pytest.fixture
async def redis_store(redis_url: str) -> AsyncIterator[RedisWorkingStore]:
    store = RedisWorkingStore.from_url(redis_url)
    yield store
    await store.aclose()


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[Redis]:
    raw = Redis.from_url(redis_url, decode_responses=True)
    yield raw
    await raw.aclose(close_connection_pool=True)


def entry(text: str, at: str, entry_id: str | None = None) -> str:
    return json.dumps({"id": entry_id or text, "text": text, "created_at": at})


@pytest.mark.redis
class TestRedisSpecifics:
    """What the conformance suite cannot see: layout, lifetimes, errors, merge, indexes."""

    async def test_a_session_is_a_few_keys_sharing_one_hash_tag(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        ref = _ref()
        await redis_store.set(ref, "k", "1", None, 0.0, 10)
        await redis_store.append_scratchpad(ref, "e", 10, 0.0)
        await redis_store.set_task(ref, {"task_id": '"t"'}, 0.0)
        await redis_store.put_checkpoint(ref, "c1", "{}", "{}", time.time() + 100, time.time())
        await redis_store.delete(ref, "gone", 0.0)  # a tombstone
        keys = await client.keys(f"sdm:{{{ref.digest}}}:*")
        suffixes = sorted(str(k).rsplit(":", 1)[1] for k in keys)
        assert suffixes == ["at", "cb", "cp", "cx", "kv", "sp", "task", "tb", "vr"]

    async def test_writes_renew_the_idle_lifetime_of_all_live_keys(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        ref = SessionRef(_ref().digest, "t", "u", ttl=100)
        now = time.time()
        await redis_store.set(ref, "k", "1", now + 50, now, 10)
        await redis_store.append_scratchpad(ref, "e", 10, now)
        await redis_store.set_task(ref, {"task_id": '"t"'}, now)
        await redis_store.delete(ref, "gone", now)
        await redis_store.put_checkpoint(ref, "c1", "{}", "{}", now + 1000, now)
        kv, ex, task, sp, vr, tb, cp, cb, cx, at = (f"sdm:{{{ref.digest}}}:{s}" for s in _SUFFIXES)
        for key in (kv, ex, task, sp, vr, tb, at):
            assert 90_000 < await client.pttl(key) <= 100_000
        for key in (cp, cb, cx):  # the checkpoint's own lifetime, not the session's
            assert 990_000 < await client.pttl(key) <= 1_001_000

    async def test_checkpoint_lifetime_is_relative_to_the_callers_clock(
        self, redis_store: RedisWorkingStore
    ) -> None:
        # A caller whose clock is far behind Redis's must not see its checkpoints vanish.
        ref, past = _ref(), 1_000_000_000.0
        await redis_store.put_checkpoint(ref, "c1", "info", "content", past + 60, past)
        assert await redis_store.get_checkpoint(ref, "c1", past + 1) == "content"
        assert await redis_store.get_checkpoint(ref, "c1", past + 61) is None
        assert await redis_store.list_checkpoints(ref, past + 1) == ["info"]

    async def test_expired_checkpoints_are_purged_by_the_next_one(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        ref, now = _ref(), 1_000_000_000.0
        await redis_store.put_checkpoint(ref, "old", "i1", "c1", now + 10, now)
        await redis_store.put_checkpoint(ref, "new", "i2", "c2", now + 100, now + 20)
        assert await client.hkeys(f"sdm:{{{ref.digest}}}:cb") == ["new"]
        assert await redis_store.delete_checkpoint(ref, "old", now + 20) is False
        assert await redis_store.delete_checkpoint(ref, "new", now + 20) is True

    async def test_key_limit_names_the_field_and_the_range_and_writes_nothing(
        self, redis_store: RedisWorkingStore
    ) -> None:
        ref = _ref()
        for key in ("a", "b"):
            await redis_store.set(ref, key, "1", None, 0.0, 2)
        with pytest.raises(LimitExceeded) as caught:
            await redis_store.set(ref, "c", "1", None, 0.0, 2)
        assert caught.value.field == "key"
        assert caught.value.allowed is not None
        assert "at most 2 keys" in caught.value.allowed
        assert set(await redis_store.items(ref, 0.0)) == {"a", "b"}

    async def test_expired_keys_are_purged_when_the_limit_is_reached(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        ref = _ref()
        await redis_store.set(ref, "short", "1", 10.0, 0.0, 2)
        await redis_store.set(ref, "long", "1", None, 0.0, 2)
        await redis_store.set(ref, "new", "1", None, 11.0, 2)
        assert sorted(await client.hkeys(f"sdm:{{{ref.digest}}}:kv")) == ["long", "new"]
        assert await client.zcard(f"sdm:{{{ref.digest}}}:ex") == 0
        assert await redis_store.delete(ref, "short", 11.0) is False
        counts = await redis_store.counts(ref, 11.0)
        assert counts.keys == 2

    async def test_a_flushed_script_cache_is_reloaded(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        ref = _ref()
        await redis_store.set(ref, "k", "1", None, 0.0, 10)
        await client.script_flush()
        assert await redis_store.get(ref, "k", 0.0) == "1"
        await client.script_flush()
        await redis_store.set(ref, "k", "2", None, 0.0, 10)
        assert await redis_store.get(ref, "k", 0.0) == "2"

    async def test_redis_errors_become_store_errors(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        ref = _ref()
        await client.set(f"sdm:{{{ref.digest}}}:kv", "not a hash")
        with pytest.raises(StoreError) as caught:
            await redis_store.set(ref, "k", "1", None, 0.0, 10)
        assert not isinstance(caught.value, StoreUnavailable)
        assert isinstance(caught.value.__cause__, RedisError)
        with pytest.raises(StoreError):
            await redis_store.items(ref, 0.0)
        with pytest.raises(StoreError):
            await redis_store.apply([("set", ref, "1:w", ("k", "1", None, 0.0, 10))])

    async def test_an_unreachable_server_is_store_unavailable(self) -> None:
        with socket.socket() as sock:  # a port nobody listens on
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        store = RedisWorkingStore.from_url(f"redis://127.0.0.1:{port}/0")
        ref = _ref()
        assert await store.ping() is False
        for call in (
            store.get(ref, "k", 0.0),
            store.set(ref, "k", "v", None, 0.0, 10),
            store.items(ref, 0.0),
            store.drop_sessions("t", None),
        ):
            with pytest.raises(StoreUnavailable) as caught:
                await call
            assert isinstance(caught.value.__cause__, RedisConnectionError)
        await store.aclose()

    def test_a_malformed_url_is_a_configuration_error(self) -> None:
        with pytest.raises(ConfigurationError, match="invalid Redis URL"):
            RedisWorkingStore.from_url("redis://127.0.0.1:not-a-port/0")

    async def test_drop_sessions_reads_its_index_not_the_keyspace(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        await client.config_resetstat()
        for i in range(30):
            await redis_store.set(
                _ref(f"s{i}", user="ana" if i % 3 else "bob"), "k", "1", None, 0, 9
            )
        assert await redis_store.drop_sessions("t", "ana") == 20
        assert await redis_store.drop_sessions("t", "ana") == 0  # nothing left to remove
        assert await redis_store.drop_sessions("t", None) == 10
        assert await redis_store.drop_sessions("nobody", None) == 0
        stats = await client.info("commandstats")
        assert not {"cmdstat_scan", "cmdstat_keys"} & set(stats)

    async def test_the_drop_index_forgets_sessions_whose_time_is_over(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        short = SessionRef(_ref("a").digest, "t", None, ttl=0.05)
        await redis_store.set(short, "k", "1", None, 0.0, 10)
        index = next(iter(await client.keys("sdm:ix:*")))
        assert await client.zrange(index, 0, -1) == [short.digest]
        # scores are server time + lifetime + two re-registration periods: never too early
        score = await client.zscore(index, short.digest)
        assert score is not None
        assert score > (time.time() + 2 * 3600) * 1000
        assert 0 < await client.pttl(index) <= (2 * 3600 + 1) * 1000

    async def test_merge_places_entries_by_time_and_skips_copies(
        self, redis_store: RedisWorkingStore
    ) -> None:
        ref = _ref()
        for text, at in (("a", "2024-01-01T00:00:01Z"), ("c", "2024-01-01T00:00:03.5Z")):
            await redis_store.append_scratchpad(ref, entry(text, at), 100, 0.0)
        merged = [
            entry("b", "2024-01-01T00:00:02.25Z"),
            entry("c", "2024-01-01T00:00:03.5Z"),  # already there (a lost reply)
            entry("d", "2024-01-01T00:00:04Z"),
            "not json",
        ]
        assert await redis_store.merge_scratchpad(ref, merged, 100, 0.0) == 3
        texts = [
            json.loads(e)["text"] if e[0] == "{" else e
            for e in await redis_store.scratchpad(ref, 0.0)
        ]
        assert texts == ["a", "b", "c", "d", "not json"]
        assert await redis_store.merge_scratchpad(ref, merged[:3], 100, 0.0) == 0
        assert await redis_store.merge_scratchpad(ref, merged, 3, 0.0) == 1  # "not json" again
        assert len(await redis_store.scratchpad(ref, 0.0)) == 3

    async def test_merge_reads_only_the_recent_tail(self, redis_store: RedisWorkingStore) -> None:
        ref = _ref()
        await redis_store.append_scratchpad(ref, entry("old", "2024-01-01T00:00:00Z", "x"), 9, 0.0)
        await redis_store.append_scratchpad(ref, entry("recent", "2024-01-01T01:00:00Z"), 9, 0.0)
        # id "x" is older than the window before the merged entry: not looked at, so kept
        late = entry("late", "2024-01-01T01:00:30Z", "x")
        assert await redis_store.merge_scratchpad(ref, [late], 9, 0.0) == 1
        assert len(await redis_store.scratchpad(ref, 0.0)) == 3

    def test_entry_stamps_are_normalised(self) -> None:
        assert entry_stamp(entry("a", "2024-01-01T00:00:01Z")) == (
            "2024-01-01T00:00:01.000000",
            "a",
        )
        assert (
            entry_stamp(entry("a", "2024-01-01T00:00:01.5+00:00"))[0]
            == "2024-01-01T00:00:01.500000"
        )
        assert entry_stamp("[1]") == ("", "")
        assert entry_stamp("{") == ("", "")
        assert entry_stamp(json.dumps({"id": 3, "created_at": "yesterday"})) == ("", "")

    async def test_apply_runs_writes_in_order_in_one_go(
        self, redis_store: RedisWorkingStore
    ) -> None:
        ref, other = _ref("a"), _ref("b")
        now = time.time()
        clock = HybridClock("journal")
        snapshot = Snapshot({"r": StoredValue("1", now + 50)}, {"task_id": '"t"'}, ["e0"])
        await redis_store.apply(
            [
                ("set", ref, clock.tick(now), ("k", "1", None, now, 1)),
                ("set", ref, clock.tick(now), ("k", "2", None, now, 1)),
                ("set", ref, clock.tick(now), ("more", "1", None, now, 1)),  # acknowledged
                ("restore", other, clock.tick(now), (snapshot, now)),
                ("append_scratchpad", other, clock.tick(now), ("e1", 10, now)),
                ("update_task", other, clock.tick(now), ({"status": '"done"'}, now)),
                (
                    "put_checkpoint",
                    other,
                    clock.tick(now),
                    ("c1", "info", "content", now + 10, now),
                ),
                ("delete", ref, clock.tick(now), ("missing", now)),
                ("clear_scratchpad", ref, clock.tick(now), (now,)),
            ]
        )
        assert await redis_store.items(ref, now) == {
            "k": StoredValue("2", None),
            "more": StoredValue("1", None),
        }
        assert await redis_store.items(other, now) == {"r": StoredValue("1", now + 50)}
        assert await redis_store.scratchpad(other, now) == ["e0", "e1"]
        assert await redis_store.get_task(other, now) == {"task_id": '"t"', "status": '"done"'}
        assert await redis_store.list_checkpoints(other, now) == ["info"]
        await redis_store.apply(
            [
                ("delete_checkpoint", other, clock.tick(now), ("c1", now)),
                ("drop_session", ref, clock.tick(now), ()),
                ("clear", other, clock.tick(now), (now,)),
            ]
        )
        assert (await redis_store.counts(other, now)).checkpoints == 0
        assert await redis_store.items(other, now) == {}
        assert await redis_store.items(ref, now) == {}


@pytest.mark.redis
class TestRedisIdleSessions:
    """The idle index: per tenant, Cluster-safe, a lower bound checked against exact stamps."""

    async def test_the_stamp_is_server_time_and_the_index_lives_in_the_tenants_slot(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        ref = _scoped()
        await redis_store.set(ref, "k", "1", None, 0.0, 10)  # the caller's clock says 1970
        seconds, micros = await client.time()
        stamp = await client.get(f"sdm:{{{ref.digest}}}:at")
        assert stamp is not None
        assert abs(int(stamp) - (seconds * 1000 + micros // 1000)) < 2000
        (index,) = await client.keys("sdm:ix:*:idle")
        tenant_index = next(k for k in await client.keys("sdm:ix:*") if not k.endswith("idle"))
        assert index.split("}")[0] == tenant_index.split("}")[0]  # one hash tag per tenant
        assert await client.zrange(index, 0, -1) == [f"{ref.digest}|{ref.scope}"]
        assert 0 < await client.pttl(index) <= (3600 + 20) * 1000

    async def test_writes_refresh_the_index_rarely_and_listing_never_scans(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        await client.config_resetstat()
        ref = _scoped()
        for i in range(50):
            await redis_store.set(ref, f"k{i}", "1", None, 0.0, 100)
        await redis_store.idle_sessions("t", 0.0, 0.0, 10, None)
        stats = await client.info("commandstats")
        assert stats["cmdstat_evalsha"]["calls"] == 50 + 2 + 1  # writes, register + mark, page
        assert not {"cmdstat_scan", "cmdstat_keys"} & set(stats)

    async def test_entries_of_gone_sessions_leave_and_busy_ones_move_up(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        gone, busy, idle = _scoped("gone"), _scoped("busy"), _scoped("idle")
        for ref in (gone, busy, idle):
            await redis_store.set(ref, "k", "1", None, 0.0, 10)
        (index,) = await client.keys("sdm:ix:*:idle")
        await asyncio.sleep(0.3)
        await redis_store.drop_session(gone)
        await redis_store.set(busy, "k", "2", None, 0.0, 10)  # no index refresh this soon
        before = await client.zscore(index, f"{busy.digest}|{busy.scope}")
        found = await redis_store.idle_sessions("t", 0.2, 0.0, 10, None)
        assert [s.digest for s in found] == [idle.digest]
        members = await client.zrange(index, 0, -1)
        assert f"{gone.digest}|{gone.scope}" not in members
        after = await client.zscore(index, f"{busy.digest}|{busy.scope}")
        assert before is not None
        assert after is not None
        assert after > before

    async def test_a_dropped_session_written_again_is_not_forgotten(
        self, redis_store: RedisWorkingStore, client: Redis
    ) -> None:
        ref = _scoped()
        await redis_store.set(ref, "k", "1", None, 0.0, 10)
        (index,) = await client.keys("sdm:ix:*:idle")
        member = f"{ref.digest}|{ref.scope}"
        score = await client.zscore(index, member)
        assert score is not None
        # the removal is conditional on the score seen: a refresh in between wins
        await client.zadd(index, {member: score + 5}, gt=True)
        await redis_store._run((b"EVALSHA", FORGET_IDLE.sha, b"1", index, member, str(int(score))))
        assert await client.zscore(index, member) == score + 5
        await redis_store._run(
            (b"EVALSHA", FORGET_IDLE.sha, b"1", index, member, str(int(score + 5)))
        )
        assert await client.zscore(index, member) is None
