"""Saved indexes beside the SQLite file: loaded on open, caught up from the change log, and
never served when stale beyond the log, damaged, foreign or from another embedder."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.storage.longterm.base import LongTermStore, RecordFilter
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.storage.longterm.sqlite.indexes import BULK_ROWS
from sedimem.testing.longterm import make_record, unit_vector
from tests.storage.longterm.sqlite.test_store import FILTERS, WORDS, random_records

T = "t"


def engine(*, exact: bool = False) -> MemoryIndexEngine:
    # HNSW from the first vector, built inline and used for every search: the saved graph
    # is then part of what a reopened store serves. ``exact``: the graph is still built
    # and saved, but searches are exact (a graph a closing store built on every core is
    # not the one a single-threaded build makes, and approximate answers may differ).
    return MemoryIndexEngine(
        hnsw_threshold=1, hnsw_background=False, exact_limit=10**9 if exact else 0
    )


@pytest.fixture
def db_path(tmp_path: Path) -> str:
    return str(tmp_path / "sedimem.db")


def block_index_directory(db_path: str) -> None:
    Path(db_path + ".idx").write_text("a file where the directory belongs")


def index_files(db_path: str) -> list[Path]:
    return sorted(Path(db_path + ".idx").glob("*.idx"))


async def open_store(db_path: str, *, exact: bool = False) -> SqliteLongTermStore:
    s = await SqliteLongTermStore.open(db_path, index=engine(exact=exact))
    await s.bind_embedder("e", 8)
    return s


@pytest.fixture
async def saved(db_path: str) -> list[str]:
    """A file whose episode and fact indexes were saved when it was closed; yields the ids
    of its records."""
    s = await open_store(db_path)
    records = random_records(np.random.default_rng(5), 300)
    await s.put(T, records)
    await s.warm(T)
    await s.aclose()
    assert len(index_files(db_path)) == 2
    return [r.id for r in records]


async def reference(db_path: str, *, exact: bool = False) -> SqliteLongTermStore:
    """The same file with indexes built from its rows (nothing read from index files)."""
    return await SqliteLongTermStore.open(db_path, index=engine(exact=exact), save_indexes=False)


async def identical_answers(a: LongTermStore, b: LongTermStore) -> None:
    """The same ranked hits and scores for every filter, keyword and vector."""
    for flt in FILTERS:
        for terms in (["apple"], ["kiwi", "mango", "zzz"], WORDS[3:8]):
            hits_a = await a.keyword_search(T, flt, terms, 50)
            hits_b = await b.keyword_search(T, flt, terms, 50)
            assert [i for i, _ in hits_a] == [i for i, _ in hits_b]
            assert [s for _, s in hits_a] == pytest.approx([s for _, s in hits_b], rel=1e-6)
        for seed in range(3):
            hits_a = await a.vector_search(T, flt, unit_vector(seed), 7)
            hits_b = await b.vector_search(T, flt, unit_vector(seed), 7)
            assert [i for i, _ in hits_a] == [i for i, _ in hits_b]
            # Exact cosines either way (a saved matrix is read from its file, not its map).
            assert [s for _, s in hits_a] == pytest.approx([s for _, s in hits_b], abs=1e-6)


async def counts(s: SqliteLongTermStore) -> tuple[int, int]:
    """(indexes loaded from files, built from rows) so far, after a search."""
    await s.keyword_search(T, RecordFilter(kind="episode"), ["apple"], 5)
    info = await s.index_info(T, "episode")
    assert info is not None
    return info["loads"], info["builds"]


async def served_from_files(
    db_path: str, word: str | None = None, found: str = "", *, bulk: bool = False
) -> None:
    """The next handle loads every index from its file (builds none), finds ``found`` by
    ``word``, and answers exactly as one that built its indexes from the rows. ``bulk``:
    the files were written by a closing store after a bulk write (their graph covers every
    vector; searches compared exactly, see :func:`engine`)."""
    s = await open_store(db_path, exact=bulk)
    ref = await reference(db_path, exact=bulk)
    try:
        assert await counts(s) == (1, 0)
        if bulk:
            for kind in ("episode", "fact"):
                info = await s.index_info(T, kind)
                assert info is None or info["hnsw_covered"] == info["slots"] > 0
        if word is not None:
            hits = await s.keyword_search(T, RecordFilter(), [word], 5)
            assert [i for i, _ in hits] == [found]
        await identical_answers(s, ref)
    finally:
        await s.aclose()
        await ref.aclose()


async def test_a_reopened_store_serves_its_saved_indexes(db_path: str, saved: list[str]) -> None:
    s = await open_store(db_path)
    ref = await reference(db_path)
    try:
        assert await counts(s) == (1, 0)
        info = await s.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] == info["slots"] > 0  # the graph came with it
        await identical_answers(s, ref)
    finally:
        await s.aclose()
        await ref.aclose()


async def test_a_stale_stamp_catches_up_from_the_change_log(db_path: str, saved: list[str]) -> None:
    # Another handle without indexes writes and replaces: the saved files are now behind.
    plain = await SqliteLongTermStore.open(db_path)
    await plain.put(T, random_records(np.random.default_rng(6), 50))
    await plain.put(T, [make_record("apple", tenant=T, record_id=saved[0], vector=unit_vector(9))])
    await plain.aclose()
    await served_from_files(db_path)


async def test_a_stamp_behind_the_pruned_log_rebuilds(db_path: str, saved: list[str]) -> None:
    plain = await SqliteLongTermStore.open(db_path)
    await plain.put(T, [make_record("late apple", tenant=T, vector=unit_vector(3))])
    await plain.put(T, [make_record("later apple", tenant=T, vector=unit_vector(4))])
    await plain.aclose()
    with sqlite3.connect(db_path) as conn:  # as the store's own pruning would, much later
        conn.execute("DELETE FROM lt_change WHERE seq < (SELECT MAX(seq) FROM lt_change)")
    s = await open_store(db_path)
    ref = await reference(db_path)
    try:
        assert await counts(s) == (0, 1)
        await identical_answers(s, ref)
    finally:
        await s.aclose()
        await ref.aclose()


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "garbage"])
async def test_a_damaged_file_is_rebuilt_never_served(
    db_path: str, saved: list[str], damage: str
) -> None:
    plain = await SqliteLongTermStore.open(db_path)  # what a damaged file would not know:
    await plain.put(T, [make_record("xylophone", tenant=T, record_id=i) for i in saved[:5]])
    await plain.aclose()
    for path in index_files(db_path):
        data = path.read_bytes()
        if damage == "truncate":
            path.write_bytes(data[: len(data) - 100])
        elif damage == "flip":
            middle = len(data) // 2
            path.write_bytes(data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1 :])
        elif damage == "empty":
            path.write_bytes(b"")
        else:
            path.write_bytes(b"SDMIDX01" + b"\xff" * 200)
    s = await open_store(db_path)
    ref = await reference(db_path)
    try:
        assert await counts(s) == (0, 1)
        await identical_answers(s, ref)
        found = await s.keyword_search(T, RecordFilter(), ["xylophone"], 10)
        assert {i for i, _ in found} == set(saved[:5])
    finally:
        await s.aclose()
        await ref.aclose()
    # closing wrote whole files again: the next open loads them
    s = await open_store(db_path)
    try:
        assert await counts(s) == (1, 0)
    finally:
        await s.aclose()


async def test_files_of_another_database_or_embedder_are_not_used(
    db_path: str, saved: list[str], tmp_path: Path
) -> None:
    # A new database at the same path (same rows even) with the old index files beside it.
    shutil.copytree(db_path + ".idx", tmp_path / "kept.idx")
    os.unlink(db_path)
    s = await open_store(db_path)
    await s.put(T, random_records(np.random.default_rng(5), 300))
    await s.aclose()  # no index was built: nothing saved over the kept files
    shutil.rmtree(db_path + ".idx", ignore_errors=True)
    shutil.copytree(tmp_path / "kept.idx", db_path + ".idx")
    s = await open_store(db_path)
    try:
        assert await counts(s) == (0, 1)
    finally:
        await s.aclose()
    # Another embedder bound (vectors dropped): the saved files are not used either.
    s = await SqliteLongTermStore.open(db_path, index=engine())
    await s.bind_embedder("other", 8, replace=True)
    try:
        assert await counts(s) == (0, 1)
        assert await s.vector_search(T, RecordFilter(), unit_vector(1), 5) == []
    finally:
        await s.aclose()


async def test_rows_written_by_another_process_after_the_save(
    db_path: str, saved: list[str]
) -> None:
    script = f"""
import asyncio
import json
from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.testing.longterm import make_record, unit_vector

async def main():
    s = await SqliteLongTermStore.open({db_path!r}, index=MemoryIndexEngine(), save_indexes=False)
    await s.put("t", [make_record("quince apple", tenant="t", record_id="from-child",
                                  vector=unit_vector(77))])
    await s.put("t", [make_record("replaced", tenant="t", record_id=i) for i in {saved[:3]!r}])
    await s.aclose()

asyncio.run(main())
"""
    await run_child(script)
    await served_from_files(db_path, "quince", "from-child")


async def test_a_kill_between_the_row_commit_and_the_save(db_path: str) -> None:
    """A process saves its indexes, commits more rows, and is killed (SIGKILL) before it
    can save again: the next process loads the old files and catches up."""
    script = f"""
import asyncio, os, signal
import numpy as np
from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.storage.longterm.base import RecordFilter
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.testing.longterm import make_record, unit_vector
from tests.storage.longterm.sqlite.test_store import random_records

async def main():
    s = await SqliteLongTermStore.open({db_path!r}, index=MemoryIndexEngine(
        hnsw_threshold=1, hnsw_background=False, exact_limit=0))
    await s.bind_embedder("e", 8)
    records = random_records(np.random.default_rng(8), 200)
    await s.put("t", records)
    await s.warm("t")  # saves the indexes
    await s.put("t", [make_record("after the save", tenant="t", record_id="late",
                                  vector=unit_vector(5))])
    await s.delete("t", [r.id for r in records[:7]])
    await s.keyword_search("t", RecordFilter(), ["after"], 5)  # now in the index in memory
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""
    await run_child(script, killed=True)
    s = await open_store(db_path)
    ref = await reference(db_path)
    try:
        loads, builds = await counts(s)
        # The delete removed the files (erasure); the episodes' index may be rebuilt, but
        # whatever is served matches the rows.
        assert loads + builds == 1
        hits = await s.keyword_search(T, RecordFilter(), ["after"], 5)
        assert [i for i, _ in hits] == ["late"]
        await identical_answers(s, ref)
    finally:
        await s.aclose()
        await ref.aclose()


async def test_a_kill_after_writes_without_deletes_loads_and_catches_up(db_path: str) -> None:
    script = f"""
import asyncio, os, signal
import numpy as np
from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from sedimem.testing.longterm import make_record, unit_vector
from tests.storage.longterm.sqlite.test_store import random_records

async def main():
    s = await SqliteLongTermStore.open({db_path!r}, index=MemoryIndexEngine(
        hnsw_threshold=1, hnsw_background=False, exact_limit=0))
    await s.bind_embedder("e", 8)
    await s.put("t", random_records(np.random.default_rng(8), 200))
    await s.warm("t")
    await s.put("t", [make_record("after the save", tenant="t", record_id="late",
                                  vector=unit_vector(5))])
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""
    await run_child(script, killed=True)
    await served_from_files(db_path, "after", "late")


async def test_a_leftover_temporary_file_is_ignored(db_path: str, saved: list[str]) -> None:
    (Path(db_path + ".idx") / "whatever.idx.123.tmp").write_bytes(b"half written")
    s = await open_store(db_path)
    try:
        assert await counts(s) == (1, 0)
    finally:
        await s.aclose()


async def test_deleting_removes_the_saved_files_and_the_next_save_omits_the_rows(
    db_path: str,
) -> None:
    s = await open_store(db_path)
    await s.put(T, [make_record("zebrafinch nightingale", tenant=T, record_id="secret")])
    await s.put(T, [make_record(f"common words {i}", tenant=T) for i in range(20)])
    await s.warm(T)
    assert b"zebrafinch" in b"".join(p.read_bytes() for p in index_files(db_path))
    assert await s.delete(T, ["secret"]) == 1
    assert index_files(db_path) == []  # gone at once, not at the next save
    assert await s.save_indexes() == 1
    data = b"".join(p.read_bytes() for p in index_files(db_path))
    assert b"zebrafinch" not in data
    assert b"secret" not in data
    await s.aclose()
    s = await open_store(db_path)
    try:
        assert await counts(s) == (1, 0)
        assert await s.keyword_search(T, RecordFilter(), ["zebrafinch"], 5) == []
        assert len(await s.keyword_search(T, RecordFilter(), ["common"], 50)) == 20
    finally:
        await s.aclose()
    # another tenant's files are left alone
    s = await open_store(db_path)
    try:
        await s.put("other", [make_record("kept", tenant="other")])
        await s.warm("other")
        assert await s.drop_saved_indexes(T) == 1
        assert len(index_files(db_path)) == 1
    finally:
        await s.aclose()


async def test_without_a_file_path_nothing_is_saved(tmp_path: Path) -> None:
    s = await SqliteLongTermStore.open(":memory:", index=engine())
    try:
        await s.put(T, [make_record("apple", tenant=T)])
        await s.warm(T)
        assert await s.save_indexes() == 0
        assert await s.drop_saved_indexes(T) == 0
    finally:
        await s.aclose()
    assert os.listdir(tmp_path) == []


async def run_child(script: str, *, killed: bool = False) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stderr=asyncio.subprocess.PIPE
    )
    _, err = await proc.communicate()
    if killed:
        assert proc.returncode == -9, err.decode()
    else:
        assert proc.returncode == 0, err.decode()


async def test_a_delete_by_a_handle_that_saves_nothing_still_removes_the_files(
    db_path: str, saved: list[str]
) -> None:
    plain = await SqliteLongTermStore.open(db_path)  # no index engine at all
    try:
        assert await plain.delete(T, saved[:1]) == 1
        assert index_files(db_path) == []
    finally:
        await plain.aclose()


async def test_the_erasure_scrub_deletes_every_saved_file(db_path: str, saved: list[str]) -> None:
    s = await open_store(db_path)
    try:
        await s.put("other", [make_record("kept", tenant="other")])
        await s.warm("other")
        assert len(index_files(db_path)) == 3
        assert "3 saved index file(s) deleted" in await s.scrub()
        assert index_files(db_path) == []
        assert await counts(s) == (0, 2)  # rebuilt from the rows (the other tenant: 1)
    finally:
        await s.aclose()


async def test_an_unwritable_index_directory_costs_a_rebuild_only(
    db_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    block_index_directory(db_path)
    s = await open_store(db_path)
    try:
        await s.put(T, [make_record("apple", tenant=T)])
        await s.warm(T)
        assert await s.save_indexes() == 0
        assert len(await s.keyword_search(T, RecordFilter(), ["apple"], 5)) == 1
    finally:
        await s.aclose()
    assert "could not save the index" in caplog.text


async def test_searches_while_the_worker_saves_see_consistent_indexes(
    db_path: str, saved: list[str]
) -> None:
    def every(k: list[tuple[str, float]], v: list[tuple[str, float]], t: object) -> list[str]:
        return [i for i, _ in k + v]

    s = await open_store(db_path)
    try:
        flt = RecordFilter(kind="episode")
        await s.fused_search(T, flt, ["apple"], unit_vector(2), 20, every)  # index in memory
        await s.put(T, [make_record("apple pie", tenant=T, record_id="new", vector=unit_vector(2))])
        results = await asyncio.gather(
            s.save_indexes(),
            *(s.fused_search(T, flt, ["apple"], unit_vector(2), 20, every) for _ in range(20)),
        )
        assert results[0] == 1
        after = await s.fused_search(T, flt, ["apple"], unit_vector(2), 20, every)
        assert "new" in after
        for found in results[1:]:
            assert isinstance(found, dict)
            assert set(found) == set(after)  # whichever thread ran it
    finally:
        await s.aclose()


async def test_a_handle_that_only_writes_closes_with_current_files(db_path: str) -> None:
    """Records put in bulk and never searched (an ingest): closing saves their indexes, so
    the next handle's first search reads files instead of building from the rows."""
    s = await open_store(db_path)
    await s.put(T, random_records(np.random.default_rng(11), 2 * BULK_ROWS + 400))
    assert index_files(db_path) == []
    await s.aclose()
    assert len(index_files(db_path)) == 2  # episodes and facts, each past BULK_ROWS
    await served_from_files(db_path, bulk=True)


async def test_only_searches_that_need_the_graph_start_building_it(db_path: str) -> None:
    """A selective filter is searched exactly and starts no graph build (a process serving
    such searches never pays for one); a search over most rows builds it (inline here)."""
    s = await SqliteLongTermStore.open(
        db_path,
        index=MemoryIndexEngine(hnsw_threshold=50, hnsw_background=False, exact_limit=10),
        save_indexes=False,
    )
    try:
        await s.bind_embedder("e", 8)
        records = [
            make_record(f"r{i}", tenant=T, vector=unit_vector(i), session=f"s{i % 10}")
            for i in range(300)
        ]
        await s.put(T, records)
        hits = await s.vector_search(T, RecordFilter(session="s3"), unit_vector(3), 5)
        assert hits[0][0] == records[3].id
        info = await s.index_info(T, "episode")
        assert info is not None
        assert (info["slots"], info["hnsw_covered"]) == (300, 0)
        assert await s.vector_search(T, RecordFilter(), unit_vector(4), 5)
        info = await s.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] == 300
    finally:
        await s.aclose()


async def test_a_few_writes_leave_the_files_to_the_change_log(
    db_path: str, saved: list[str]
) -> None:
    """A handle that writes a few rows (a CLI command, say) and never searches closes at
    once: the files stay as they were and the next handle applies the log to them."""
    before = {p.name: p.read_bytes() for p in index_files(db_path)}
    s = await open_store(db_path)
    await s.put(T, [make_record("quince", tenant=T, record_id="late", vector=unit_vector(3))])
    await s.aclose()
    assert {p.name: p.read_bytes() for p in index_files(db_path)} == before
    await served_from_files(db_path, "quince", "late")


async def test_writes_past_saved_files_bring_them_up_to_date(
    db_path: str, saved: list[str]
) -> None:
    """A handle that writes many rows past existing files without searching: its close
    loads each file, applies the change log and saves it again; the next handle has
    nothing to apply."""
    before = {p.name: p.read_bytes() for p in index_files(db_path)}
    s = await open_store(db_path)
    await s.put(T, [make_record("quince", tenant=T, record_id="late", vector=unit_vector(3))])
    await s.put(T, [make_record(f"filler {i}", tenant=T) for i in range(BULK_ROWS)])
    assert await s.index_info(T, "episode") is None  # never searched here
    await s.aclose()
    after = {p.name: p.read_bytes() for p in index_files(db_path)}
    changed = [name for name in before if before[name] != after[name]]
    assert len(changed) == 1  # the episodes' file; the facts' was current already
    with sqlite3.connect(db_path) as conn:  # the entries up to the file's stamp are gone
        conn.execute("DELETE FROM lt_change WHERE seq < (SELECT MAX(seq) FROM lt_change)")
    await served_from_files(db_path, "quince", "late", bulk=True)


async def test_a_writer_process_leaves_files_another_process_reads(db_path: str) -> None:
    """Across processes: one records and exits; the next one's first search loads the
    files (the journey of a bulk load followed by a server)."""
    script = f"""
import asyncio
import json
import numpy as np
from sedimem.retrieval.index import MemoryIndexEngine
from sedimem.storage.longterm.sqlite import SqliteLongTermStore
from tests.storage.longterm.sqlite.test_store import random_records

async def main():
    s = await SqliteLongTermStore.open({db_path!r}, index=MemoryIndexEngine(
        hnsw_threshold=1, hnsw_background=False, exact_limit=0))
    await s.bind_embedder("e", 8)
    await s.put("t", random_records(np.random.default_rng(12), {2 * BULK_ROWS + 400}))
    await s.aclose()

asyncio.run(main())
"""
    await run_child(script)
    await served_from_files(db_path, bulk=True)


def damage_section(path: Path, name: str) -> None:
    """Flip every byte of section ``name`` of an index file (every row of a matrix is
    damaged, so whichever a search reads; the header, and so the file's size and every
    other section, still check)."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[8:16], "little")
    header = json.loads(bytes(data[24 : 24 + length]))
    start = -(-(24 + length) // 64) * 64
    (section,) = [s for s in header["sections"] if s["name"] == name]
    assert section["nbytes"] > 0
    lo = start + section["offset"]
    hi = lo + section["nbytes"]
    data[lo:hi] = bytes(b ^ 0xFF for b in data[lo:hi])
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("section", ["vectors", "hnsw"])
async def test_a_damaged_section_checked_lazily_is_found_and_rebuilt_never_served(
    db_path: str, saved: list[str], section: str
) -> None:
    """The vectors and the graph are not hashed before the first search (see indexfile):
    the damage is found when a search first reads them, that index is dropped with its
    file and built from the rows, and the search answers from the rebuilt index."""
    for path in index_files(db_path):
        damage_section(path, section)
    s = await open_store(db_path)
    ref = await reference(db_path)
    try:
        assert await counts(s) == (1, 0)  # loaded: its keyword half reads no damaged block
        hits = await s.vector_search(T, RecordFilter(kind="episode"), unit_vector(3), 7)
        assert hits == await ref.vector_search(T, RecordFilter(kind="episode"), unit_vector(3), 7)
        info = await s.index_info(T, "episode")
        assert info is not None
        assert info["builds"] == 1  # the damaged file was dropped: built from the rows
        await identical_answers(s, ref)
    finally:
        await s.aclose()
        await ref.aclose()
    s = await open_store(db_path)  # closing wrote whole files again: the next open loads
    ref = await reference(db_path)
    try:
        assert await counts(s) == (1, 0)
        await identical_answers(s, ref)
    finally:
        await s.aclose()
        await ref.aclose()


async def test_warm_with_wait_builds_the_whole_graph_then_saves_it(db_path: str) -> None:
    """With the graph left to the background thread (as in production), ``warm(wait=True)``
    builds it whole at once (on every core) before the save, so the file holds it."""
    s = await SqliteLongTermStore.open(db_path, index=MemoryIndexEngine(hnsw_threshold=50))
    try:
        await s.bind_embedder("e", 8)
        await s.put(T, [make_record(f"r{i}", tenant=T, vector=unit_vector(i)) for i in range(600)])
        await s.warm(T, "episode", wait=True)
        info = await s.index_info(T, "episode")
        assert info is not None
        assert info["hnsw_covered"] == info["slots"] == 600
    finally:
        await s.aclose()
    await served_from_files(db_path, bulk=True)
