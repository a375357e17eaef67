"""The working-memory conformance suite, identical for every store.

Subclass :class:`WorkingStoreConformance` and provide two async fixtures:

- ``store``: a fresh, empty :class:`~sedimem.storage.working.base.WorkingStore`;
- ``other_handle``: a second, independently opened store on the same backend as ``store``
  (another connection / client), used to prove that two handles see the same sessions.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any

import pytest

from sedimem.config import WorkingSettings
from sedimem.errors import LimitExceeded, NotFound
from sedimem.scope import Scope
from sedimem.storage.working.base import IdleSession, SessionRef, WorkingStore
from sedimem.testing.clock import ManualClock
from sedimem.types.working import TaskState, TaskStatus
from sedimem.working.memory import WorkingMemory

__all__ = ["WorkingStoreConformance"]

_counter = itertools.count()


def _scope(**fields: Any) -> Scope:
    base: dict[str, Any] = {"tenant": "t", "user": "u", "session": f"s{next(_counter)}"}
    base.update(fields)
    return Scope(**base)


class WorkingStoreConformance:
    """Every rule of :mod:`sedimem.storage.working.base`, tested through WorkingMemory."""

    settings = WorkingSettings(max_scratchpad_entries=20_000)

    def wm(
        self,
        store: WorkingStore,
        scope: Scope | None = None,
        *,
        clock: ManualClock | None = None,
        settings: WorkingSettings | None = None,
    ) -> WorkingMemory:
        return WorkingMemory(
            store, scope or _scope(), settings=settings or self.settings, clock=clock
        )

    # -- key-value ---------------------------------------------------------------------------

    async def test_set_get_roundtrip_of_json_values(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        values: list[Any] = [1, 2.5, "text", None, True, [1, "a"], {"n": {"deep": [1, 2]}}, "é✓"]
        for i, v in enumerate(values):
            await wm.set(f"k{i}", v)
        assert [await wm.get(f"k{i}") for i in range(len(values))] == values
        assert await wm.get("missing", "dflt") == "dflt"

    async def test_overwrite_delete_exists(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("a", 1)
        await wm.set("a", 2)
        assert await wm.get("a") == 2
        assert await wm.exists("a")
        assert await wm.delete("a") is True
        assert await wm.delete("a") is False
        assert not await wm.exists("a")

    async def test_list_keys_and_get_all(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        for key in ("user:1", "user:2", "doc"):
            await wm.set(key, key.upper())
        assert await wm.list_keys() == ["doc", "user:1", "user:2"]
        assert await wm.list_keys("user:*") == ["user:1", "user:2"]
        assert await wm.get_all() == {"doc": "DOC", "user:1": "USER:1", "user:2": "USER:2"}

    async def test_sessions_are_separate(self, store: WorkingStore) -> None:
        a, b = self.wm(store), self.wm(store)
        await a.set("k", "a")
        assert await b.get("k") is None
        other_tenant = self.wm(store, a.scope.model_copy(update={"tenant": "other"}))
        assert await other_tenant.get("k") is None
        assert await other_tenant.list_keys() == []

    async def test_two_handles_see_the_same_session(
        self, store: WorkingStore, other_handle: WorkingStore
    ) -> None:
        scope = _scope()
        one, two = self.wm(store, scope), self.wm(other_handle, scope)
        await one.set("k", {"v": 1})
        await one.append_scratchpad("step")
        assert await two.get("k") == {"v": 1}
        assert await two.get_scratchpad() == ["step"]
        await two.set("k", 2)
        assert await one.get("k") == 2

    async def test_key_ttl_expires_in_real_time(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.get("warm-up")  # the first call may open connections (a cluster: several)
        # margins wide enough for a loaded machine: a stall of a few tenths of a second
        # between two calls is common there, and must not read as an expiry
        await wm.set("short", 1, ttl_seconds=1.0)
        await wm.set("long", 2)
        assert await wm.get("short") == 1
        await asyncio.sleep(1.3)
        assert await wm.get("short") is None
        assert not await wm.exists("short")
        assert await wm.list_keys() == ["long"]

    async def test_session_idle_ttl_removes_everything_but_checkpoints(
        self, store: WorkingStore
    ) -> None:
        settings = WorkingSettings(session_ttl_seconds=0.5)
        wm = self.wm(store, settings=settings)
        await wm.set("k", 1)
        await wm.set_task_state(TaskState(task_id="t"))
        await wm.append_scratchpad("note")
        cp = await wm.create_checkpoint()
        await asyncio.sleep(0.8)
        assert await wm.get("k") is None
        assert await wm.get_task_state() is None
        assert await wm.get_scratchpad() == []
        stats = await wm.get_stats()
        assert (stats.keys, stats.scratchpad_entries, stats.has_task_state) == (0, 0, False)
        # A new write starts from nothing: nothing of the expired state comes back.
        await wm.set("fresh", 1)
        assert await wm.list_keys() == ["fresh"]
        assert await wm.get_task_state() is None
        # The checkpoint outlives the idle session and can bring it back.
        await wm.restore_checkpoint(cp)
        assert await wm.get("k") == 1

    async def test_writes_renew_the_session(self, store: WorkingStore) -> None:
        wm = self.wm(store, settings=WorkingSettings(session_ttl_seconds=0.6))
        await wm.set("k", 1)
        for _ in range(3):
            await asyncio.sleep(0.3)
            await wm.set("other", 1)
        assert await wm.get("k") == 1

    async def test_clear_removes_user_keys_only(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("a", 1)
        await wm.set("b", 2)
        await wm.set_task_state(TaskState(task_id="t"))
        await wm.append_scratchpad("x")
        cp = await wm.create_checkpoint()
        assert await wm.clear() == 2
        assert await wm.list_keys() == []
        assert (await wm.get_task_state()) is not None
        assert await wm.get_scratchpad() == ["x"]
        assert [c.id for c in await wm.list_checkpoints()] == [cp]
        assert await wm.clear() == 0

    async def test_key_limit_refuses_new_keys_and_writes_nothing(self, store: WorkingStore) -> None:
        wm = self.wm(store, settings=WorkingSettings(max_keys_per_session=3))
        for key in "abc":
            await wm.set(key, 1)
        with pytest.raises(LimitExceeded, match="key"):
            await wm.set("d", 1)
        await wm.set("a", 2)  # overwriting an existing key is still allowed
        assert await wm.list_keys() == ["a", "b", "c"]
        assert await wm.get("a") == 2

    async def test_expired_keys_do_not_count_against_the_limit(self, store: WorkingStore) -> None:
        clock = ManualClock()
        wm = self.wm(store, clock=clock, settings=WorkingSettings(max_keys_per_session=2))
        await wm.set("a", 1, ttl_seconds=10)
        await wm.set("b", 1, ttl_seconds=10)
        clock.advance(11)
        await wm.set("c", 1)
        assert await wm.list_keys() == ["c"]

    # -- task state --------------------------------------------------------------------------

    async def test_task_state_roundtrip_and_progress(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        assert await wm.get_task_state() is None
        with pytest.raises(NotFound):
            await wm.update_task_progress(current_step=1)
        await wm.set_task_state(TaskState(task_id="t1", total_steps=4, metadata={"m": [1]}))
        state = await wm.update_task_progress(
            current_step=2, progress_percent=50, status=TaskStatus.IN_PROGRESS
        )
        assert (state.task_id, state.current_step, state.progress_percent) == ("t1", 2, 50.0)
        assert state.status is TaskStatus.IN_PROGRESS
        assert state.total_steps == 4
        assert state.metadata == {"m": [1]}
        assert state.started_at is not None
        assert state.updated_at is not None
        assert state.updated_at >= state.started_at
        assert await wm.get_task_state() == state

    async def test_concurrent_progress_updates_leave_a_valid_state(
        self, store: WorkingStore
    ) -> None:
        wm = self.wm(store)
        await wm.set_task_state(TaskState(task_id="t", total_steps=50))

        async def update(i: int) -> None:
            await wm.update_task_progress(current_step=i, progress_percent=i * 2)

        await asyncio.gather(*(update(i) for i in range(1, 51)))
        state = await wm.get_task_state()
        assert state is not None
        assert state.task_id == "t"
        assert state.total_steps == 50
        assert 1 <= state.current_step <= 50
        assert 2 <= state.progress_percent <= 100

    # -- scratchpad --------------------------------------------------------------------------

    async def test_scratchpad_order_timestamps_and_cap(self, store: WorkingStore) -> None:
        wm = self.wm(store, settings=WorkingSettings(max_scratchpad_entries=5))
        for i in range(8):
            await wm.append_scratchpad(f"e{i}")
        assert await wm.get_scratchpad() == [f"e{i}" for i in range(3, 8)]
        entries = await wm.get_scratchpad_with_timestamps()
        stamps = [e.created_at for e in entries]
        assert stamps == sorted(stamps)
        assert all(e.created_at.tzinfo is not None for e in entries)
        assert await wm.clear_scratchpad() == 5
        assert await wm.get_scratchpad() == []

    async def test_concurrent_appends_lose_nothing(self, store: WorkingStore) -> None:
        wm = self.wm(store)

        async def writer(i: int) -> None:
            for j in range(200):
                await wm.append_scratchpad(f"{i}:{j}")

        await asyncio.gather(*(writer(i) for i in range(50)))
        entries = await wm.get_scratchpad()
        assert len(entries) == 10_000
        per_task: dict[str, list[int]] = {}
        for entry in entries:
            task, seq = entry.split(":")
            per_task.setdefault(task, []).append(int(seq))
        assert len(per_task) == 50
        assert all(seqs == list(range(200)) for seqs in per_task.values())

    # -- checkpoints -------------------------------------------------------------------------

    async def test_checkpoint_roundtrip_with_remaining_ttls(self, store: WorkingStore) -> None:
        clock = ManualClock()
        wm = self.wm(store, clock=clock)
        await wm.set("ttl", "v", ttl_seconds=100)
        await wm.set("forever", [1, 2])
        await wm.set_task_state(TaskState(task_id="t", current_step=1))
        await wm.append_scratchpad("one")
        clock.advance(40)
        cp = await wm.create_checkpoint("before change")
        await wm.set("ttl", "changed")
        await wm.set("new", 1)
        await wm.update_task_progress(current_step=3)
        await wm.append_scratchpad("two")
        clock.advance(50)
        await wm.restore_checkpoint(cp)
        assert await wm.get_all() == {"ttl": "v", "forever": [1, 2]}
        state = await wm.get_task_state()
        assert state is not None
        assert state.current_step == 1
        assert await wm.get_scratchpad() == ["one"]
        # 60 s were left when the checkpoint was taken: counted again from the restore.
        clock.advance(59)
        assert await wm.get("ttl") == "v"
        clock.advance(2)
        assert await wm.get("ttl") is None
        assert await wm.get("forever") == [1, 2]

    async def test_checkpoint_info_and_listing(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("a", 1)
        await wm.append_scratchpad("x")
        first = await wm.create_checkpoint("first")
        second = await wm.create_checkpoint("second")
        infos = await wm.list_checkpoints()
        assert [i.id for i in infos] == [first, second]
        assert [i.description for i in infos] == ["first", "second"]
        assert (infos[0].keys, infos[0].scratchpad_entries, infos[0].has_task_state) == (
            1,
            1,
            False,
        )
        assert infos[0].expires_at > infos[0].created_at

    async def test_restore_keeps_later_checkpoints(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("v", 1)
        cp1 = await wm.create_checkpoint()
        await wm.set("v", 2)
        cp2 = await wm.create_checkpoint()
        await wm.restore_checkpoint(cp1)
        assert await wm.get("v") == 1
        assert [c.id for c in await wm.list_checkpoints()] == [cp1, cp2]
        await wm.restore_checkpoint(cp2)
        assert await wm.get("v") == 2

    async def test_checkpoints_never_contain_checkpoints(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        for i in range(10):
            await wm.set(f"k{i}", "x" * 50)
        await wm.append_scratchpad("thinking")
        for _ in range(50):
            await wm.create_checkpoint()
        sizes = {c.size_bytes for c in await wm.list_checkpoints()}
        assert len(sizes) == 1

    async def test_unknown_checkpoint_is_not_found(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("k", 1)
        with pytest.raises(NotFound):
            await wm.restore_checkpoint("0192e4f0-0000-7000-8000-000000000000")
        with pytest.raises(NotFound):
            await wm.delete_checkpoint("nope")
        with pytest.raises(NotFound):
            await wm.fork("nope", "elsewhere")
        assert await wm.get("k") == 1

    async def test_delete_checkpoint(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        cp = await wm.create_checkpoint()
        await wm.delete_checkpoint(cp)
        assert await wm.list_checkpoints() == []
        with pytest.raises(NotFound):
            await wm.restore_checkpoint(cp)

    async def test_checkpoints_expire(self, store: WorkingStore) -> None:
        clock = ManualClock()
        wm = self.wm(store, clock=clock, settings=WorkingSettings(checkpoint_ttl_seconds=10))
        cp = await wm.create_checkpoint()
        clock.advance(11)
        assert await wm.list_checkpoints() == []
        with pytest.raises(NotFound):
            await wm.restore_checkpoint(cp)

    async def test_restore_is_atomic_for_concurrent_readers(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        for i in range(20):
            await wm.set(f"k{i}", "A")
        cp_a = await wm.create_checkpoint()
        for i in range(20):
            await wm.set(f"k{i}", "B")
        cp_b = await wm.create_checkpoint()
        seen: set[str] = set()

        async def restorer() -> None:
            for _ in range(15):
                await wm.restore_checkpoint(cp_a)
                await wm.restore_checkpoint(cp_b)

        async def reader() -> None:
            for _ in range(150):
                values = await wm.get_all()
                assert len(values) == 20
                assert len(set(values.values())) == 1
                seen.update(values.values())
                await asyncio.sleep(0)

        await asyncio.gather(restorer(), reader(), reader())
        assert seen <= {"A", "B"}

    async def test_fork_starts_a_new_session_from_a_checkpoint(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("k", "original")
        await wm.set_task_state(TaskState(task_id="t", current_step=2))
        cp = await wm.create_checkpoint()
        await wm.set("k", "later")
        forked = await wm.fork(cp, "forked-session")
        assert forked.scope.session == "forked-session"
        assert forked.scope.tenant == wm.scope.tenant
        assert await forked.get("k") == "original"
        state = await forked.get_task_state()
        assert state is not None
        assert state.current_step == 2
        await forked.set("k", "fork-only")
        assert await wm.get("k") == "later"

    # -- whole sessions ----------------------------------------------------------------------

    async def test_stats_count_the_session(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("a", 1)
        await wm.set("b", 1)
        await wm.append_scratchpad("x")
        await wm.create_checkpoint()
        stats = await wm.get_stats()
        assert (stats.keys, stats.scratchpad_entries, stats.checkpoints) == (2, 1, 1)
        assert stats.has_task_state is False
        assert stats.backend == store.name
        assert await wm.is_healthy()

    async def test_destroy_removes_everything(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("a", 1)
        await wm.set_task_state(TaskState(task_id="t"))
        await wm.create_checkpoint()
        await wm.destroy()
        stats = await wm.get_stats()
        assert (stats.keys, stats.checkpoints, stats.has_task_state) == (0, 0, False)

    async def test_drop_sessions_of_a_user(self, store: WorkingStore) -> None:
        ana_1 = self.wm(store, _scope(tenant="gdpr", user="ana"))
        ana_2 = self.wm(store, _scope(tenant="gdpr", user="ana", project="p"))
        bob = self.wm(store, _scope(tenant="gdpr", user="bob"))
        other_tenant = self.wm(store, _scope(tenant="else", user="ana"))
        for wm in (ana_1, ana_2, bob, other_tenant):
            await wm.set("k", 1)
            await wm.create_checkpoint()
        assert await store.drop_sessions("gdpr", "ana") == 2
        assert await ana_1.get("k") is None
        assert await ana_2.list_checkpoints() == []
        assert await bob.get("k") == 1
        assert await other_tenant.get("k") == 1
        assert await store.drop_sessions("gdpr", None) == 1
        assert await bob.list_checkpoints() == []

    async def test_listing_ignores_other_sessions(self, store: WorkingStore) -> None:
        wm = self.wm(store)
        await wm.set("mine", 1)
        for i in range(100):
            await self.wm(store).set(f"k{i}", i)
        assert await wm.list_keys() == ["mine"]
        assert await wm.list_checkpoints() == []

    # -- idle sessions (consolidation) -------------------------------------------------------
    # Real time, not a ManualClock: a store may measure idleness on its own clock (Redis).

    # seconds without a write that make a session idle in these tests; the waits are IDLE
    # plus a margin a loaded machine's stalls stay within
    IDLE = 0.6
    WAIT = IDLE + 0.4

    async def _idle(self, store: WorkingStore, tenant: str, limit: int = 100) -> list[IdleSession]:
        return await store.idle_sessions(tenant, self.IDLE, time.time(), limit, None)

    async def test_idle_sessions_lists_sessions_left_idle_with_their_scope(
        self, store: WorkingStore, other_handle: WorkingStore
    ) -> None:
        tenant = f"idle{next(_counter)}"
        left = self.wm(store, _scope(tenant=tenant, project="p", agent="a"))
        await left.set("k", 1)
        await left.append_scratchpad("note")
        before = time.time()
        await asyncio.sleep(self.WAIT)
        busy = self.wm(store, _scope(tenant=tenant))
        await busy.set("k", 1)
        found = await self._idle(other_handle, tenant)  # any handle sees every session
        assert [(s.digest, s.scope) for s in found] == [(left.scope.digest, left.scope.canonical)]
        # the store's clock (Redis's own) may differ from ours a little, not by seconds
        assert before - 5 < found[0].touched < time.time() + 5

    async def test_a_write_makes_an_idle_session_busy_again(self, store: WorkingStore) -> None:
        tenant = f"idle{next(_counter)}"
        wm = self.wm(store, _scope(tenant=tenant))
        await wm.set("k", 1)
        await asyncio.sleep(self.WAIT)
        assert len(await self._idle(store, tenant)) == 1
        await wm.append_scratchpad("back")
        assert await self._idle(store, tenant) == []
        await wm.get("k")  # a read is not a write: it does not keep a session busy
        await asyncio.sleep(self.WAIT)
        assert len(await self._idle(store, tenant)) == 1

    async def test_idle_sessions_page_oldest_first_and_stay_in_their_tenant(
        self, store: WorkingStore
    ) -> None:
        tenant, other = f"idle{next(_counter)}", f"idle{next(_counter)}"
        written = []
        for _ in range(5):
            wm = self.wm(store, _scope(tenant=tenant))
            await wm.set("k", 1)
            written.append(wm.scope.digest)
            await asyncio.sleep(0.02)  # distinct write times, even on a millisecond clock
        await self.wm(store, _scope(tenant=other)).set("k", 1)
        await asyncio.sleep(self.WAIT)
        pages: list[list[str]] = []
        after = None
        while True:
            page = await store.idle_sessions(tenant, self.IDLE, time.time(), 2, after)
            if not page:
                break
            pages.append([s.digest for s in page])
            after = page[-1].cursor
        assert pages == [written[:2], written[2:4], written[4:]]
        assert len(await self._idle(store, other)) == 1
        assert await self._idle(store, "nobody") == []

    async def test_expired_and_unscoped_sessions_are_never_idle(self, store: WorkingStore) -> None:
        tenant = f"idle{next(_counter)}"
        short = self.wm(
            store, _scope(tenant=tenant), settings=WorkingSettings(session_ttl_seconds=0.2)
        )
        await short.set("k", 1)
        # a ref without its scope (a caller that does not give one) cannot be consolidated
        bare = SessionRef(_scope(tenant=tenant).digest, tenant, None, 3600.0)
        await store.set(bare, "k", "1", None, time.time(), 10)
        await asyncio.sleep(self.WAIT)
        assert await self._idle(store, tenant) == []

    async def test_drop_idle_session_removes_it_unless_written_since(
        self, store: WorkingStore
    ) -> None:
        tenant = f"idle{next(_counter)}"
        gone, kept = self.wm(store, _scope(tenant=tenant)), self.wm(store, _scope(tenant=tenant))
        for wm in (gone, kept):
            await wm.set("k", 1)
            await wm.set_task_state(TaskState(task_id="t"))
            await wm.create_checkpoint()
        await asyncio.sleep(self.WAIT)
        found = {s.digest: s for s in await self._idle(store, tenant)}
        assert set(found) == {gone.scope.digest, kept.scope.digest}
        await asyncio.sleep(0.01)
        await kept.append_scratchpad("came back")  # after it was listed
        assert await store.drop_idle_session(_ref(gone), found[gone.scope.digest].touched)
        assert not await store.drop_idle_session(_ref(kept), found[kept.scope.digest].touched)
        stats = await gone.get_stats()
        assert (stats.keys, stats.checkpoints, stats.has_task_state) == (0, 0, False)
        assert await kept.get("k") == 1
        assert len(await kept.list_checkpoints()) == 1
        # gone is gone: dropping again does nothing, and it is listed no more
        assert not await store.drop_idle_session(_ref(gone), found[gone.scope.digest].touched)
        assert [s.digest for s in await self._idle(store, tenant)] == []


def _ref(wm: WorkingMemory) -> SessionRef:
    scope = wm.scope
    return SessionRef(scope.digest, scope.tenant, scope.user, 3600.0, scope.canonical)
