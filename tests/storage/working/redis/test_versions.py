"""Versions on a real redis-server: a replayed (journaled) write never beats a newer one.

Two writers are simulated with two clocks: ``A`` journals its writes (as a process does during
an outage) and replays them with ``apply``; ``B`` writes live. Times are the callers' clocks.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis.asyncio import Redis

from sedimem.scope import Scope
from sedimem.storage.working.base import SessionRef, Snapshot, StoredValue
from sedimem.storage.working.redis import RedisWorkingStore
from sedimem.storage.working.redis.version import HybridClock, micros, stamp_of

pytestmark = pytest.mark.redis

_sessions = itertools.count()
T = 1_800_000_000.0  # the writers' clocks: T + seconds


def fresh_ref(ttl: float = 3600) -> SessionRef:
    scope = Scope(tenant="t", user="u", session=f"v{next(_sessions)}")
    return SessionRef(scope.digest, "t", "u", ttl=ttl)


def note(text: str, at: float) -> str:
    """A scratchpad entry as the service writes it."""
    return json.dumps({"id": text, "text": text, "created_at": stamp_of(f"{int(at * 1e6):016d}")})


@pytest.fixture
async def stores(redis_url: str) -> AsyncIterator[tuple[HybridClock, RedisWorkingStore]]:
    """(A's clock, B's live store)."""
    b = RedisWorkingStore.from_url(redis_url, clock=HybridClock("b"))
    yield HybridClock("a"), b
    await b.aclose()


async def replay(store: RedisWorkingStore, *writes: tuple[str, SessionRef, str, Any]) -> None:
    await store.apply(
        [(method, ref, version, tuple(args)) for method, ref, version, args in writes]
    )


def test_versions_grow_and_follow_what_they_observe() -> None:
    clock = HybridClock("w")
    first, second = clock.tick(T), clock.tick(T - 5)  # a clock going back: still later
    assert first < second
    assert micros(second) == micros(first) + 1
    clock.observe(f"{int((T + 60) * 1e6):016d}:other")
    clock.observe("not a version")
    assert micros(clock.tick(T)) == int((T + 60) * 1e6) + 1
    assert stamp_of(first) == "2027-01-15T08:00:00.000000"
    assert HybridClock().writer != HybridClock().writer


async def test_a_replayed_key_loses_to_a_later_live_write_and_beats_an_earlier_one(
    stores: tuple[HybridClock, RedisWorkingStore],
) -> None:
    a, b = stores
    ref = fresh_ref()
    older = a.tick(T + 1)
    await b.set(ref, "y", "B", None, T + 0, 10)
    await b.set(ref, "x", "B", None, T + 2, 10)
    await replay(b, ("set", ref, older, ("x", "A", None, T + 1, 10)))
    await replay(b, ("set", ref, a.tick(T + 1), ("y", "A", None, T + 1, 10)))
    assert await b.get(ref, "x", T) == "B"
    assert await b.get(ref, "y", T) == "A"
    # replaying the same entry again (a reply lost in the outage) changes nothing
    await replay(b, ("set", ref, older, ("x", "A", None, T + 1, 10)))
    assert await b.get(ref, "x", T) == "B"


async def test_a_live_write_always_lands_even_from_a_clock_behind(
    stores: tuple[HybridClock, RedisWorkingStore], redis_url: str
) -> None:
    a, b = stores
    ref = fresh_ref()
    ahead = RedisWorkingStore.from_url(redis_url, clock=HybridClock("ahead"))
    await ahead.set(ref, "x", "ahead", None, T + 100, 10)
    await b.set(ref, "x", "behind", None, T, 10)  # later in fact, earlier by its clock
    assert await b.get(ref, "x", T) == "behind"
    # its version was moved past the one it replaced, and B's clock has seen it
    await replay(b, ("set", ref, a.tick(T + 50), ("x", "A", None, T + 50, 10)))
    assert await b.get(ref, "x", T) == "behind"
    assert micros(b.clock.tick(T)) > int((T + 100) * 1e6)
    await ahead.aclose()


async def test_a_delete_beats_an_older_replayed_write_and_loses_to_a_newer_one(
    stores: tuple[HybridClock, RedisWorkingStore],
) -> None:
    a, b = stores
    ref = fresh_ref()
    older, newer = a.tick(T + 1), a.tick(T + 3)
    assert await b.delete(ref, "x", T + 2) is False  # a tombstone even for a missing key
    await replay(b, ("set", ref, older, ("x", "A", None, T + 1, 10)))
    assert await b.get(ref, "x", T) is None
    await replay(b, ("set", ref, newer, ("x", "A", None, T + 3, 10)))
    assert await b.get(ref, "x", T) == "A"
    # a replayed delete older than a live write leaves it
    await b.set(ref, "y", "B", None, T + 5, 10)
    await replay(b, ("delete", ref, a.tick(T + 4), ("y", T + 4)))
    assert await b.get(ref, "y", T) == "B"
    await replay(b, ("delete", ref, a.tick(T + 6), ("y", T + 6)))
    assert await b.get(ref, "y", T) is None


async def test_tombstones_are_pruned_past_the_session_lifetime(
    stores: tuple[HybridClock, RedisWorkingStore], client: Redis
) -> None:
    _, b = stores
    ref = fresh_ref(ttl=10)
    await b.delete(ref, "old", T)
    await b.delete(ref, "recent", T + 5)
    await b.delete(ref, "new", T + 12)  # "old" is more than 10 s older: forgotten
    assert await client.zrange(f"sdm:{{{ref.digest}}}:tb", 0, -1) == ["recent", "new"]
    await b.set(ref, "new", "back", None, T + 13, 10)  # a live write clears its tombstone
    assert await client.zrange(f"sdm:{{{ref.digest}}}:tb", 0, -1) == ["recent"]


async def test_clears_order_against_keys_both_ways(
    stores: tuple[HybridClock, RedisWorkingStore],
) -> None:
    a, b = stores
    ref = fresh_ref()
    await b.set(ref, "kept", "B", None, T + 1, 10)
    await b.clear(ref, T + 2)
    await b.set(ref, "after", "B", None, T + 3, 10)
    await replay(
        b,
        ("set", ref, a.tick(T + 1.5), ("x", "A", None, T + 1.5, 10)),  # before B's clear
        ("set", ref, a.tick(T + 2.5), ("y", "A", None, T + 2.5, 10)),  # after it
    )
    assert await b.items(ref, T) == {"after": StoredValue("B", None), "y": StoredValue("A", None)}
    # A's clear at T+2.8 removes what was written before it (its own "y"), not B's later keys
    await b.set(ref, "later", "B", None, T + 4, 10)
    await replay(b, ("clear", ref, a.tick(T + 2.8), (T,)))
    assert await b.items(ref, T) == {
        "after": StoredValue("B", None),
        "later": StoredValue("B", None),
    }


async def test_task_state_is_one_record_newest_write_wins(
    stores: tuple[HybridClock, RedisWorkingStore],
) -> None:
    a, b = stores
    ref = fresh_ref()
    await b.set_task(ref, {"task_id": '"b"', "current_step": "2"}, T + 2)
    await replay(
        b,
        ("update_task", ref, a.tick(T + 1), ({"current_step": "1"}, T + 1)),
        ("set_task", ref, a.tick(T + 1.5), ({"task_id": '"a"'}, T + 1.5)),
    )
    assert await b.get_task(ref, T) == {"task_id": '"b"', "current_step": "2"}
    await replay(b, ("update_task", ref, a.tick(T + 3), ({"current_step": "3"}, T + 3)))
    assert await b.get_task(ref, T) == {"task_id": '"b"', "current_step": "3"}
    assert await b.update_task(ref, {"status": '"done"'}, T + 2.5) is True  # live: lands
    assert (await b.get_task(ref, T) or {})["status"] == '"done"'


async def test_scratchpad_clears_and_appends_merge_by_time(
    stores: tuple[HybridClock, RedisWorkingStore],
) -> None:
    a, b = stores
    a2, a3 = HybridClock("a2"), HybridClock("a3")
    ref = fresh_ref()
    await b.append_scratchpad(ref, note("b0", T), 100, T)
    await b.clear_scratchpad(ref, T + 2)
    await b.append_scratchpad(ref, note("b3", T + 3), 100, T + 3)
    await replay(
        b,
        ("append_scratchpad", ref, a.tick(T + 1), (note("a1", T + 1), 100, T + 1)),
        ("append_scratchpad", ref, a.tick(T + 4), (note("a4", T + 4), 100, T + 4)),
    )
    texts = [json.loads(e)["text"] for e in await b.scratchpad(ref, T)]
    assert texts == ["b3", "a4"]  # a1 was written before B's clear
    # A's clear at T+3.5 keeps what was written after it
    await replay(b, ("clear_scratchpad", ref, a2.tick(T + 3.5), (T + 3.5,)))
    assert [json.loads(e)["text"] for e in await b.scratchpad(ref, T)] == ["a4"]
    # and an older clear than the newest one changes nothing
    await replay(b, ("clear_scratchpad", ref, a3.tick(T + 0.5), (T + 0.5,)))
    assert [json.loads(e)["text"] for e in await b.scratchpad(ref, T)] == ["a4"]


async def test_a_replayed_restore_keeps_what_was_written_after_it(
    stores: tuple[HybridClock, RedisWorkingStore],
) -> None:
    a, b = stores
    ref = fresh_ref()
    await b.set(ref, "old", "B", None, T, 10)
    await b.append_scratchpad(ref, note("b0", T), 100, T)
    await b.set(ref, "x", "B", None, T + 2, 10)
    await b.append_scratchpad(ref, note("b2", T + 2), 100, T + 2)
    values = {"x": StoredValue("A", None), "r": StoredValue("A", None)}
    snapshot = Snapshot(values, {"task_id": '"a"'}, [note("s0", T - 10)])
    await replay(b, ("restore", ref, a.tick(T + 1), (snapshot, T + 1)))
    assert await b.items(ref, T) == {"x": StoredValue("B", None), "r": StoredValue("A", None)}
    assert await b.get_task(ref, T) == {"task_id": '"a"'}
    assert [json.loads(e)["text"] for e in await b.scratchpad(ref, T)] == ["s0", "b2"]
    # a restore without task state removes an older one, not a newer one
    await b.set_task(ref, {"task_id": '"b"'}, T + 5)
    await replay(b, ("restore", ref, a.tick(T + 4), (Snapshot({}, None, []), T + 4)))
    assert await b.get_task(ref, T) == {"task_id": '"b"'}
    await replay(b, ("restore", ref, a.tick(T + 6), (Snapshot({}, None, []), T + 6)))
    assert await b.get_task(ref, T) is None


async def test_a_dropped_session_is_not_revived_by_an_older_replay(
    stores: tuple[HybridClock, RedisWorkingStore], client: Redis
) -> None:
    a, b = stores
    ref = fresh_ref()
    t = time.time() - 60  # a minute ago: before the drop, which is stamped with the time now
    older = a.tick(t)  # stamped then, replayed after the drop
    await b.set(ref, "x", "B", None, t, 10)
    await b.drop_session(ref)
    left = await client.keys(f"sdm:{{{ref.digest}}}:*")
    assert left == [f"sdm:{{{ref.digest}}}:vr"]  # versions only, no data
    assert await client.pttl(left[0]) > 3_000_000
    await replay(
        b,
        ("set", ref, older, ("x", "A", None, t, 10)),
        ("set_task", ref, a.tick(t), ({"task_id": '"a"'}, t)),
        ("append_scratchpad", ref, a.tick(t), (note("a", t), 100, t)),
        ("put_checkpoint", ref, a.tick(t), ("c1", "info", "body", t + 3600, t)),
    )
    counts = await b.counts(ref, t)
    assert (counts.keys, counts.scratchpad_entries, counts.checkpoints) == (0, 0, 0)
    assert not counts.has_task_state
    assert await client.keys(f"sdm:{{{ref.digest}}}:*") == left  # no data, no stamp


async def test_a_session_dropped_as_idle_keeps_its_versions_too(
    stores: tuple[HybridClock, RedisWorkingStore], client: Redis
) -> None:
    a, b = stores
    ref = fresh_ref()
    t = time.time() - 60
    older = a.tick(t)
    await b.set(ref, "x", "B", None, t, 10)
    stamp = await client.get(f"sdm:{{{ref.digest}}}:at")
    assert stamp is not None
    assert await b.drop_idle_session(ref, int(stamp) / 1000)  # as consolidation does
    assert await client.keys(f"sdm:{{{ref.digest}}}:*") == [f"sdm:{{{ref.digest}}}:vr"]
    await replay(b, ("set", ref, older, ("x", "A", None, t, 10)))
    assert await b.get(ref, "x", t) is None
    assert not await b.drop_idle_session(ref, int(stamp) / 1000)  # gone already


async def test_a_replayed_drop_removes_only_what_came_before_it(
    stores: tuple[HybridClock, RedisWorkingStore],
) -> None:
    a, b = stores
    ref = fresh_ref()
    drop = a.tick(T + 1)
    await b.set(ref, "before", "B", None, T, 10)
    await b.set_task(ref, {"task_id": '"b"'}, T)
    await b.append_scratchpad(ref, note("b0", T), 100, T)
    # a checkpoint id made long ago (UUIDv7 time: 1 ms after the epoch) and one made later
    old_id = "00000000-0001-7000-8000-000000000000"
    await b.put_checkpoint(ref, old_id, "old", "body", 4e9, T)
    await b.put_checkpoint(ref, "ffffffff-ffff-7000-8000-000000000000", "new", "body", 4e9, T)
    await b.set(ref, "after", "B", None, T + 2, 10)
    await b.append_scratchpad(ref, note("b2", T + 2), 100, T + 2)
    await replay(b, ("drop_session", ref, drop, ()))
    assert await b.items(ref, T) == {"after": StoredValue("B", None)}
    assert await b.get_task(ref, T) is None
    assert [json.loads(e)["text"] for e in await b.scratchpad(ref, T)] == ["b2"]
    assert await b.list_checkpoints(ref, T) == ["new"]


OPS = st.lists(
    st.tuples(
        st.sampled_from("AB"),  # who: A journals (replayed at the end), B writes live
        st.sampled_from(["set", "delete", "clear"]),
        st.sampled_from(["x", "y"]),
        st.integers(0, 20),  # the writer's clock: T + this
    ),
    min_size=1,
    max_size=14,
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(OPS)
async def test_property_after_replay_each_key_holds_its_newest_write(
    redis_url: str, ops: list[tuple[str, str, str, int]]
) -> None:
    """Whatever the interleaving: the key holds the write (set, delete or clear) with the
    highest version, where B's live writes all reach Redis before A's journal is replayed."""
    b = RedisWorkingStore.from_url(redis_url, clock=HybridClock("b"))
    a, model_b = HybridClock("a"), HybridClock("b")  # model_b ticks as B's store does
    ref = fresh_ref()
    journal: list[tuple[str, SessionRef, str, tuple[Any, ...]]] = []
    latest: dict[str, tuple[str, str | None]] = {}  # key -> (version, value or None)

    def record(key: str, version: str, value: str | None) -> None:
        if key not in latest or version > latest[key][0]:
            latest[key] = (version, value)

    for i, (who, kind, key, t) in enumerate(ops):
        now, value = T + t, f"{who}{i}"
        if who == "B":
            # B's versions as Redis will store them: its clock, moved past what it replaced
            version = model_b.tick(now)
            if kind == "set":
                await b.set(ref, key, value, None, now, 100)
            elif kind == "delete":
                await b.delete(ref, key, now)
            else:
                await b.clear(ref, now)
        else:
            version = a.tick(now)
            args: tuple[Any, ...] = {
                "set": (key, value, None, now, 100),
                "delete": (key, now),
                "clear": (now,),
            }[kind]
            journal.append((kind, ref, version, args))
        for k in ("x", "y") if kind == "clear" else (key,):
            record(k, version, value if kind == "set" else None)
    await b.apply(journal)
    expected = {k: StoredValue(v, None) for k, (_, v) in latest.items() if v is not None}
    assert await b.items(ref, T) == expected
    await b.aclose()


@pytest.fixture
async def client(redis_url: str) -> AsyncIterator[Redis]:
    raw = Redis.from_url(redis_url, decode_responses=True)
    yield raw
    await raw.aclose(close_connection_pool=True)


async def test_entries_of_an_earlier_release_read_and_are_overwritten(
    stores: tuple[HybridClock, RedisWorkingStore], client: Redis
) -> None:
    a, b = stores
    ref = fresh_ref()
    kv = f"sdm:{{{ref.digest}}}:kv"
    await client.hset(kv, mapping={"plain": '|{"n": 1}', "piped": '|"a|b"', "ttl": f"{T + 9}|1"})
    assert await b.get(ref, "plain", T) == '{"n": 1}'
    assert await b.get(ref, "piped", T) == '"a|b"'
    assert await b.items(ref, T) == {
        "plain": StoredValue('{"n": 1}', None),
        "piped": StoredValue('"a|b"', None),
        "ttl": StoredValue("1", T + 9),
    }
    await replay(b, ("set", ref, a.tick(T), ("plain", "2", None, T, 10)))  # no version: lands
    await b.set(ref, "piped", "3", None, T, 10)
    assert await b.get(ref, "plain", T) == "2"
    assert await b.get(ref, "piped", T) == "3"
