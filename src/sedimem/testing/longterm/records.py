"""Conformance: records, pagination, provenance, filters and tenant isolation."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from sedimem.errors import ValidationError
from sedimem.ids import HANDLE_LENGTH, handle
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.testing.longterm.helpers import (
    A,
    B,
    ConformanceBase,
    hit_ids,
    ids_of,
    make_record,
    new_record_id,
    unit_vector,
)

__all__ = ["RecordConformance"]


class RecordConformance(ConformanceBase):
    """What is stored comes back, filtered and scoped exactly, and only to its tenant."""

    # -- records ---------------------------------------------------------------------------

    async def test_put_get_round_trip_keeps_every_field(self, store: LongTermStore) -> None:
        await self.bind(store)
        record = make_record(
            "Ana moved to Porto — café",
            kind="fact",
            vector=unit_vector(3),
            project="p",
            user="u",
            agent_type="coder",
            agent="a1",
            session="s1",
            occurred_at=1_712_345_678.25,
            importance=0.875,
            body='{"statement": "Ana lives in Porto", "n": [1, 2]}',
            outcome="success",
            task_type="move",
            subject="ana",
            predicate="lives_in",
            name="relocation",
            valid_from=1_700_000_000.5,
            valid_to=1_800_000_000.0,
            recorded_at=1_700_000_100.0,
            invalidated_at=1_750_000_000.0,
            sources=("src-2", "src-1", "src-3"),
        )
        await store.put(A, [record])
        (got,) = await store.get(A, [record.id])
        assert got == dataclasses.replace(record, vector=None)
        assert (await store.find(A, RecordFilter(), limit=10)) == [got]

    async def test_unset_optional_fields_come_back_unset(self, store: LongTermStore) -> None:
        record = make_record("bare")
        await store.put(A, [record])
        assert await store.get(A, [record.id]) == [record]

    async def test_put_replaces_by_id(self, store: LongTermStore) -> None:
        await self.bind(store)
        first = make_record("obsolete wording", vector=unit_vector([1.0]))
        await store.put(A, [first])
        second = dataclasses.replace(
            first, text="fresh wording", body='{"n": 2}', vector=unit_vector([0.0, 1.0])
        )
        await store.put(A, [second])
        assert await store.get(A, [first.id]) == [dataclasses.replace(second, vector=None)]
        assert await store.count(A, RecordFilter()) == 1
        assert await store.keyword_search(A, RecordFilter(), ["obsolete"], 5) == []
        assert hit_ids(await store.keyword_search(A, RecordFilter(), ["fresh"], 5)) == [first.id]
        (hit,) = await store.vector_search(A, RecordFilter(), unit_vector([0.0, 1.0]), 5)
        assert hit[0] == first.id
        assert hit[1] == pytest.approx(1.0, abs=1e-4)

    async def test_last_copy_of_an_id_in_one_batch_wins(self, store: LongTermStore) -> None:
        record = make_record("one")
        await store.put(A, [record, dataclasses.replace(record, text="two")])
        assert [r.text for r in await store.get(A, [record.id])] == ["two"]

    async def test_get_ignores_missing_and_repeatedids_of(self, store: LongTermStore) -> None:
        record = make_record()
        await store.put(A, [record])
        assert await store.get(A, [new_record_id()]) == []
        assert await store.get(A, []) == []
        assert ids_of(await store.get(A, [record.id, record.id])) == [record.id]

    async def test_find_pages_by_id_without_gaps_or_duplicates(self, store: LongTermStore) -> None:
        records = [make_record(f"record {i}") for i in range(23)]
        await store.put(A, records[::-1])  # write order must not matter
        ids = sorted(ids_of(records))
        for newest_first, expected in ((False, ids), (True, ids[::-1])):
            seen: list[str] = []
            after: str | None = None
            while True:
                page = await store.find(
                    A, RecordFilter(), limit=5, after=after, newest_first=newest_first
                )
                if not page:
                    break
                assert len(page) <= 5
                seen += ids_of(page)
                after = page[-1].id
            assert seen == expected
        assert await store.find(A, RecordFilter(), limit=0) == []
        assert ids_of(await store.find(A, RecordFilter(), limit=3, after=ids[-3])) == ids[-2:]

    async def test_delete_removes_the_record_everywhere(self, store: LongTermStore) -> None:
        await self.bind(store)
        source = new_record_id()
        keep = make_record("kept platypus", vector=unit_vector(1), sources=(source,))
        gone = make_record("deleted platypus", vector=unit_vector(1), sources=(source,))
        await store.put(A, [keep, gone])
        assert await store.delete(A, [gone.id, new_record_id()]) == 1
        assert await store.delete(A, [gone.id]) == 0
        assert await store.delete(A, []) == 0
        assert await store.get(A, [gone.id]) == []
        assert ids_of(await store.find(A, RecordFilter(), limit=10)) == [keep.id]
        assert hit_ids(await store.keyword_search(A, RecordFilter(), ["platypus"], 10)) == [keep.id]
        assert hit_ids(await store.vector_search(A, RecordFilter(), unit_vector(1), 10)) == [
            keep.id
        ]
        derived = await store.find(A, RecordFilter(derived_from=(source,)), limit=10)
        assert ids_of(derived) == [keep.id]

    async def test_derived_from_finds_records_by_provenance(self, store: LongTermStore) -> None:
        e1, e2, e3 = new_record_id(), new_record_id(), new_record_id()
        f1 = make_record("from e1", kind="fact", sources=(e1,))
        f12 = make_record("from e1 and e2", kind="fact", sources=(e2, e1))
        f3 = make_record("from e3", kind="fact", sources=(e3,))
        plain = make_record("from nothing", kind="fact")
        await store.put(A, [f1, f12, f3, plain])

        async def derived(*sources: str) -> list[str]:
            return ids_of(await store.find(A, RecordFilter(derived_from=sources), limit=10))

        assert await derived(e1) == sorted([f1.id, f12.id])
        assert await derived(e2) == [f12.id]
        assert await derived(e2, e3) == sorted([f12.id, f3.id])
        assert await derived(new_record_id()) == []
        assert await derived() == []
        assert await store.count(A, RecordFilter(derived_from=(e1,))) == 2
        assert [r.sources for r in await store.get(A, [f12.id])] == [(e2, e1)]

    # -- filters ---------------------------------------------------------------------------

    async def test_every_filter_field_applies_to_find_count_and_searches(
        self, store: LongTermStore
    ) -> None:
        await self.bind(store)
        src1, src2 = new_record_id(), new_record_id()
        r: dict[str, StoredRecord] = {}

        def add(key: str, **fields: Any) -> None:
            r[key] = make_record(f"wombat {key}", vector=unit_vector(len(r) + 2), **fields)

        add("ep_ok", outcome="success", task_type="deploy", importance=0.9, occurred_at=100.0)
        add("ep_fail", outcome="failure", task_type="deploy", importance=0.2, occurred_at=200.0)
        add("ep_debug", outcome="success", task_type="debug", importance=0.7, occurred_at=300.0)
        add("ep_user", user="u1", session="s1", occurred_at=400.0, sources=(src1,))
        add("ep_sess", session="s1", occurred_at=500.0, sources=(src1, src2))
        # facts: world validity [valid_from, valid_to), belief [recorded_at, invalidated_at)
        fact = {"kind": "fact", "subject": "ana", "predicate": "lives_in"}
        add("f_old", **fact, valid_from=10.0, valid_to=20.0, recorded_at=10.0, invalidated_at=20.0)
        add("f_now", **fact, valid_from=20.0, recorded_at=20.0)
        add("f_later", **fact, valid_from=30.0, recorded_at=30.0, sources=(src2,))
        add("f_other", kind="fact", subject="bo", predicate="likes", valid_from=5.0)
        add("f_untimed", kind="fact", subject="ana", predicate="likes")
        add("proc", kind="procedure", name="deploy-service", importance=0.95)
        await store.put(A, list(r.values()))
        # Another tenant's matching rows must never show up.
        await store.put(B, [make_record("wombat", tenant=B, outcome="success", kind="fact")])

        def ids(*keys: str) -> list[str]:
            return [r[k].id for k in keys]

        cases: list[tuple[RecordFilter, list[str]]] = [
            (RecordFilter(), list(r)),
            (RecordFilter(kind="fact"), ["f_old", "f_now", "f_later", "f_other", "f_untimed"]),
            (RecordFilter(kind="procedure"), ["proc"]),
            (RecordFilter(kind="block"), []),
            (RecordFilter(user="u1"), ["ep_user"]),
            (RecordFilter(session="s1"), ["ep_user", "ep_sess"]),
            (RecordFilter(ids=(r["f_now"].id, r["proc"].id, new_record_id())), ["f_now", "proc"]),
            (RecordFilter(ids=()), []),
            (RecordFilter(handle=handle(r["f_now"].id)), ["f_now"]),
            (RecordFilter(handle="f" * HANDLE_LENGTH), []),
            (
                RecordFilter(occurred_from=200.0, kind="episode"),
                ["ep_fail", "ep_debug", "ep_user", "ep_sess"],
            ),
            (RecordFilter(occurred_from=200.0, occurred_before=400.0), ["ep_fail", "ep_debug"]),
            (RecordFilter(occurred_before=200.0, kind="episode"), ["ep_ok"]),
            (RecordFilter(outcome="failure"), ["ep_fail"]),
            (RecordFilter(task_type="deploy"), ["ep_ok", "ep_fail"]),
            (RecordFilter(min_importance=0.7), ["ep_ok", "ep_debug", "proc"]),
            (RecordFilter(subject="ana"), ["f_old", "f_now", "f_later", "f_untimed"]),
            (RecordFilter(subject="ana", predicate="lives_in"), ["f_old", "f_now", "f_later"]),
            (RecordFilter(predicate="likes"), ["f_other", "f_untimed"]),
            (RecordFilter(predicates=("likes", "works_at")), ["f_other", "f_untimed"]),
            (RecordFilter(subject="ana", predicates=("lives_in",)), ["f_old", "f_now", "f_later"]),
            (RecordFilter(predicates=()), []),
            (RecordFilter(name="deploy-service"), ["proc"]),
            (RecordFilter(name="deploy"), []),
            (RecordFilter(names=("deploy", "deploy-service")), ["proc"]),
            (RecordFilter(names=()), []),
            # valid_from <= t and (valid_to is null or valid_to > t); unset valid_from: never
            (RecordFilter(valid_at=15.0), ["f_old", "f_other"]),
            (RecordFilter(valid_at=20.0), ["f_now", "f_other"]),
            (RecordFilter(valid_at=35.0), ["f_now", "f_later", "f_other"]),
            (RecordFilter(valid_at=1.0), []),
            # recorded_at <= t and (invalidated_at is null or invalidated_at > t)
            (RecordFilter(known_at=12.0), ["f_old"]),
            (RecordFilter(known_at=25.0), ["f_now"]),
            (RecordFilter(known_at=30.0), ["f_now", "f_later"]),
            (RecordFilter(current=True, kind="fact"), ["f_now", "f_later", "f_other", "f_untimed"]),
            (RecordFilter(derived_from=(src1,)), ["ep_user", "ep_sess"]),
            (RecordFilter(derived_from=(src2,)), ["ep_sess", "f_later"]),
            (RecordFilter(derived_from=(src1, src2), kind="fact"), ["f_later"]),
            (RecordFilter(derived_from=()), []),
            (
                RecordFilter(kind="episode", outcome="success", min_importance=0.8),
                ["ep_ok"],
            ),
        ]
        for flt, keys in cases:
            await self.agree(store, flt, ids(*keys), "wombat")

    # -- tenant isolation ------------------------------------------------------------------

    async def test_another_tenant_sees_and_touches_nothing(self, store: LongTermStore) -> None:
        await self.bind(store)
        source = new_record_id()
        mine = [
            make_record("secret kangaroo", vector=unit_vector(i), sources=(source,), user="u")
            for i in range(5)
        ]
        await store.put(A, mine)
        ids = ids_of(mine)
        everything = RecordFilter()
        assert await store.get(B, ids) == []
        assert await store.find(B, everything, limit=100) == []
        assert await store.find(B, RecordFilter(ids=tuple(ids)), limit=100) == []
        assert await store.find(B, RecordFilter(derived_from=(source,)), limit=100) == []
        assert await store.count(B, everything) == 0
        assert await store.keyword_search(B, everything, ["kangaroo", "secret"], 10) == []
        assert await store.vector_search(B, everything, unit_vector(0), 10) == []
        # A filter naming tenant A's scope cannot widen a query made as tenant B.
        a_scope = RecordFilter(visible_to=Scope(tenant=A, user="u"))
        assert await store.find(B, a_scope, limit=100) == []
        assert await store.keyword_search(B, a_scope, ["kangaroo"], 10) == []
        assert await store.vector_search(B, a_scope, unit_vector(0), 10) == []
        seen: list[StoredRecord] = []

        def decide(current: list[StoredRecord]) -> list[StoredRecord]:
            seen.extend(current)
            return []

        assert await store.update_locked(B, "k", RecordFilter(ids=tuple(ids)), decide) == []
        assert seen == []
        assert await store.delete(B, ids) == 0
        assert await store.count(A, everything) == 5

    async def test_a_record_of_another_tenant_is_refused_whole_batch(
        self, store: LongTermStore
    ) -> None:
        good = make_record("fine")
        foreign = make_record("foreign", tenant=B)
        with pytest.raises(ValidationError) as info:
            await store.put(A, [good, foreign])
        assert info.value.field == "tenant"
        assert await store.count(A, RecordFilter()) == 0
        assert await store.count(B, RecordFilter()) == 0

        def decide(current: list[StoredRecord]) -> list[StoredRecord]:
            return [make_record("written by a decision", tenant=B)]

        with pytest.raises(ValidationError):
            await store.update_locked(A, "k", RecordFilter(), decide)
        assert await store.count(B, RecordFilter()) == 0

    async def test_ids_are_scoped_per_tenant(self, store: LongTermStore) -> None:
        record = make_record("tenant a's text")
        await store.put(A, [record])
        theirs = dataclasses.replace(record, tenant=B, text="tenant b's text")
        await store.put(B, [theirs])
        assert await store.get(A, [record.id]) == [record]
        assert await store.get(B, [record.id]) == [theirs]
        assert await store.delete(B, [record.id]) == 1
        assert await store.get(A, [record.id]) == [record]

    async def test_a_handle_names_a_made_id_of_its_own_tenant(self, store: LongTermStore) -> None:
        tail = "0a1b2c3d4e"
        made = make_record("a turn", record_id=f"01a22222-aaaa-7bbb-8ccc-dd{tail}")
        given = make_record("a caller's id", record_id=tail)  # too short to have a handle
        longer = make_record("longer", record_id=f"order-{'0' * 30}{tail}")  # 46 characters
        theirs = dataclasses.replace(made, tenant=B)
        await store.put(A, [made, given, longer])
        await store.put(B, [theirs])
        assert handle(made.id) == tail
        assert ids_of(await store.find(A, RecordFilter(handle=tail), limit=5)) == [made.id]
        assert await store.count(A, RecordFilter(handle=tail, kind="fact")) == 0
        assert ids_of(await store.find(B, RecordFilter(handle=tail), limit=5)) == [made.id]
        assert await store.find(A, RecordFilter(handle=tail[1:]), limit=5) == []

    async def test_tenants_lists_who_has_records(self, store: LongTermStore) -> None:
        assert await store.tenants() == []
        mine, theirs = make_record(tenant=A), make_record(tenant=B)
        await store.put(B, [theirs])
        await store.put(A, [mine])
        assert await store.tenants() == sorted([A, B])
        await store.delete(B, [theirs.id])
        assert await store.tenants() == [A]
