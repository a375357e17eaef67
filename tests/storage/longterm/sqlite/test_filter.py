"""A record filter as SQL: what it selects, and how SQLite plans the provenance look-up."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sedimem.ids import handle, new_id
from sedimem.storage.longterm.base import RecordFilter, StoredRecord
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.storage.longterm.sqlite.filter import RANGE_ROWS, narrow_range, page_order, where
from sedimem.testing.longterm import make_record

T = "t"


def _plan(conn: sqlite3.Connection, flt: RecordFilter) -> list[str]:
    condition, params = where(T, flt)
    sql = f"SELECT r.id FROM lt_record r WHERE {condition}{page_order(conn, T, flt)} LIMIT 500"
    return [str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]


async def _found_and_planned(
    tmp_path: Path, records: list[StoredRecord], flt: RecordFilter, limit: int = 5
) -> tuple[list[StoredRecord], list[str]]:
    """What a store of ``records`` finds for ``flt``, and SQLite's plan for the read."""
    path = str(tmp_path / "m.db")
    store = await SqliteLongTermStore.open(path)
    try:
        await store.put(T, records)
        found = await store.find(T, flt, limit=limit)
    finally:
        await store.aclose()
    conn = sqlite3.connect(path)
    try:
        return found, _plan(conn, flt)
    finally:
        conn.close()


async def _newest_and_planned(
    tmp_path: Path, records: list[StoredRecord], filters: list[RecordFilter], limit: int
) -> list[tuple[list[str], list[str]]]:
    """For each of ``filters``: the texts of its newest page in a store of ``records``, and
    SQLite's plan for the read."""
    path = str(tmp_path / "m.db")
    store = await SqliteLongTermStore.open(path)
    try:
        await store.put(T, records)
        pages = [await store.find(T, flt, limit=limit, newest_first=True) for flt in filters]
    finally:
        await store.aclose()
    conn = sqlite3.connect(path)
    try:
        return [
            ([r.text for r in page], _plan(conn, flt))
            for page, flt in zip(pages, filters, strict=True)
        ]
    finally:
        conn.close()


async def test_facts_derived_from_some_episodes_are_read_by_provenance_not_by_kind(
    tmp_path: Path,
) -> None:
    """Finding the facts drawn from a few episodes reads those facts (provenance is
    indexed), not every fact of the tenant in id order: with 2,000 facts of which two cite
    the episodes asked, the plan starts from ``lt_source`` and reads rows by primary key."""
    path = str(tmp_path / "m.db")
    store = await SqliteLongTermStore.open(path)
    try:
        cited = [make_record(f"fact {i}", tenant=T, kind="fact", sources=("e1",)) for i in (1, 2)]
        other = [make_record(f"other {i}", tenant=T, kind="fact") for i in range(2000)]
        await store.put(T, cited + other + [make_record("e1", tenant=T, record_id="e1")])
        flt = RecordFilter(kind="fact", derived_from=("e1", "e9"))
        found = await store.find(T, flt, limit=500)
        assert sorted(r.id for r in found) == sorted(r.id for r in cited)
        # another tenant's facts citing the same id are never selected
        await store.put("u", [make_record("theirs", tenant="u", kind="fact", sources=("e1",))])
        assert len(await store.find(T, flt, limit=500)) == 2
    finally:
        await store.aclose()
    conn = sqlite3.connect(path)
    try:
        plan = _plan(conn, flt)
        assert any("INTEGER PRIMARY KEY" in step for step in plan), plan
        assert not any("lt_record_kind" in step for step in plan), plan
        assert any(
            "lt_source" in step or "PRIMARY KEY (tenant=? AND source=?)" in step for step in plan
        ), plan
        # without provenance the kind index still serves the ordered read
        assert any("lt_record_kind" in step for step in _plan(conn, RecordFilter(kind="fact")))
    finally:
        conn.close()


@pytest.mark.parametrize("by_names", [False, True])
async def test_a_records_name_is_read_through_its_index_not_by_kind(
    tmp_path: Path, by_names: bool
) -> None:
    """A session's episode is looked up by its unique name (``terminated:<scope>``) when the
    session ends: among 3,000 episodes, the name's index leads the plan, both for the
    unordered read-decide-write and for ``find``'s ordered page; walking the kind (its id
    or time index) read every episode of a long history for the one that has not been
    written yet."""
    rows = [make_record(f"turn {i}", tenant=T, occurred_at=1e9 + i) for i in range(3000)]
    rows.append(make_record("the session's end", tenant=T, name="terminated:abc"))
    flt = (
        RecordFilter(kind="episode", names=("terminated:abc", "terminated:none"))
        if by_names
        else RecordFilter(kind="episode", name="terminated:abc")
    )
    found, ordered = await _found_and_planned(tmp_path, rows, flt)
    assert [r.text for r in found] == ["the session's end"]
    conn = sqlite3.connect(tmp_path / "m.db")
    try:
        condition, params = where(T, flt)
        unordered = [
            str(row[3])
            for row in conn.execute(
                f"EXPLAIN QUERY PLAN SELECT r.id FROM lt_record r WHERE {condition}", params
            )
        ]
    finally:
        conn.close()
    for plan in (ordered, unordered):
        assert any("lt_record_name" in step for step in plan), plan
        assert not any("lt_record_kind" in s or "lt_record_time" in s for s in plan), plan


async def test_a_name_many_records_share_is_walked_in_id_order_not_sorted(
    tmp_path: Path,
) -> None:
    """A name may repeat (a consolidation job's run reports, one per run): the newest few of
    a name held by more than ``RANGE_ROWS`` records are met by walking the ids from the
    newest, not by reading all of them through the name's index and sorting them; a rare
    name is still read through its index."""
    runs = [
        make_record(f"run {i}", tenant=T, kind="run", name="facts") for i in range(RANGE_ROWS + 100)
    ]
    rare = [make_record(f"rare {i}", tenant=T, kind="run", name="decay") for i in range(3)]
    (common, common_plan), (rarely, rare_plan) = await _newest_and_planned(
        tmp_path,
        rare + runs,
        [RecordFilter(kind="run", name="facts"), RecordFilter(kind="run", name="decay")],
        limit=2,
    )
    assert common == [r.text for r in runs[::-1][:2]]
    assert rarely == [r.text for r in rare[::-1][:2]]
    assert not any("TEMP B-TREE" in step for step in common_plan), common_plan
    assert any("lt_record_name" in step for step in rare_plan), rare_plan


async def test_a_handle_is_read_through_its_index(tmp_path: Path) -> None:
    """A record named by its handle (a context's ``(id ...)``) is read through the index on
    the id's last characters, not by walking the tenant's records of its kind."""
    turns = [make_record(f"turn {i}", tenant=T, record_id=new_id()) for i in range(2000)]
    named = turns[1234]
    flt = RecordFilter(kind="episode", handle=handle(named.id))
    found, plan = await _found_and_planned(tmp_path, turns, flt)
    assert [r.id for r in found] == [named.id]
    assert any("lt_record_handle" in step for step in plan), plan
    assert not any("lt_record_kind" in step for step in plan), plan


@pytest.mark.parametrize("derived", [None, ("a",)])
def test_the_tenant_comes_first_and_from_the_caller(derived: tuple[str, ...] | None) -> None:
    condition, params = where(T, RecordFilter(kind="fact", derived_from=derived))
    assert condition.lstrip("+").startswith("r.tenant = ?")
    assert params[0] == T


async def test_a_sessions_time_range_is_read_by_session_and_time_not_by_kind(
    tmp_path: Path,
) -> None:
    """The turn after a chat turn (one session, a few hours after it: what ``assemble``
    asks for its best turns) is a range of the (tenant, session, time) index, not a walk
    of every episode of the tenant in id order until two match."""
    rows = [
        make_record(f"turn {i}", tenant=T, session=f"s{i // 100}", occurred_at=1e9 + 60 * i)
        for i in range(3000)
    ]
    # the turn after turn 2,950 of session s29 (created last: the id walk's worst case)
    flt = RecordFilter(
        kind="episode", session="s29", occurred_from=1e9 + 60 * 2950 + 1e-6,
        occurred_before=1e9 + 60 * 2950 + 6 * 3600,
    )  # fmt: skip
    found, plan = await _found_and_planned(tmp_path, rows, flt, limit=1)
    assert [r.text for r in found] == ["turn 2951"]
    assert any("lt_record_session_time" in step for step in plan), plan
    assert not any("lt_record_kind" in step for step in plan), plan


async def test_a_small_sessions_page_is_read_by_session_and_a_large_ones_by_id(
    tmp_path: Path,
) -> None:
    """A page of a session's episodes (its messages, the newest first): a session holding
    fewer than ``RANGE_ROWS`` of them is read through the session's index and sorted;
    walking every episode of the tenant in id order until a page matched read all of
    them when the session held less than a page. A session larger than that is walked in
    id order (a page of it is met soon; sorting all its rows would not be)."""
    big = RANGE_ROWS + 100
    rows = [
        make_record(f"turn {i}", tenant=T, session="long", occurred_at=1e9 + i) for i in range(big)
    ]
    small = [
        make_record(f"short {i}", tenant=T, session="short", occurred_at=2e9 + i) for i in range(3)
    ]
    (shorts, short), (longs, long) = await _newest_and_planned(
        tmp_path,
        small + rows,  # the short session's ids are the oldest
        [
            RecordFilter(kind="episode", session="short"),
            RecordFilter(kind="episode", session="long"),
        ],
        limit=50,
    )
    assert shorts == [r.text for r in small[::-1]]
    assert longs == [r.text for r in rows[::-1][:50]]
    assert any("lt_record_session_time" in step for step in short), short
    assert not any("lt_record_kind" in step for step in short), short
    assert any("lt_record_kind" in step for step in long), long


async def test_a_time_range_is_read_by_time_when_narrow_and_by_id_when_wide(
    tmp_path: Path,
) -> None:
    """A page of a time range: a narrow range (fewer than ``RANGE_ROWS`` records of the
    kind) is read from the (tenant, kind, time) index, so "this week" of a long history
    does not walk every earlier record; a range spanning most of the history walks the
    kind in id order, which meets a page of matches at once. Both pages are the records
    a plain filter gives, in id order."""
    path = str(tmp_path / "m.db")
    store = await SqliteLongTermStore.open(path)
    count = RANGE_ROWS + 1000
    rows = [make_record(f"e{i}", tenant=T, occurred_at=1e9 + 60 * i) for i in range(count)]
    try:
        await store.put(T, rows)
        narrow = RecordFilter(kind="episode", occurred_from=1e9 + 60 * (count - 30))
        wide = RecordFilter(kind="episode", occurred_from=1e9, occurred_before=2e9)
        for flt, expected in ((narrow, rows[-30:][:20]), (wide, rows[:20])):
            page = await store.find(T, flt, limit=20)
            assert [r.text for r in page] == [r.text for r in expected]
        # the next page of the narrow range, after the first one's last id
        rest = await store.find(T, narrow, limit=20, after=rows[-11].id)
        assert [r.text for r in rest] == [r.text for r in rows[-10:]]
    finally:
        await store.aclose()
    conn = sqlite3.connect(path)
    try:
        assert narrow_range(conn, T, narrow)
        assert not narrow_range(conn, T, wide)
        # a session, ids or provenance lead the plan: no counting
        assert narrow_range(conn, T, RecordFilter(kind="episode", session="s", occurred_from=0))
        # no kind or no range: nothing to decide
        assert narrow_range(conn, T, RecordFilter(occurred_from=0))
        assert narrow_range(conn, T, RecordFilter(kind="episode"))

        def plan(flt: RecordFilter) -> list[str]:
            condition, params = where(T, flt, ranged=narrow_range(conn, T, flt))
            sql = (
                f"SELECT r.id FROM lt_record r WHERE {condition}{page_order(conn, T, flt)} LIMIT 21"
            )
            return [str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {sql}", params)]

        assert any("lt_record_time" in step for step in plan(narrow)), plan(narrow)
        assert any("lt_record_kind" in step for step in plan(wide)), plan(wide)
        assert not any("TEMP B-TREE" in step for step in plan(wide)), plan(wide)
    finally:
        conn.close()
