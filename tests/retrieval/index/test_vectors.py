"""The vector matrix of an index: a saved (memory-mapped) part and appended rows."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from sedimem.retrieval.index import vectors
from sedimem.retrieval.index.vectors import VectorRows
from sedimem.storage.longterm.sqlite.indexfile import read_index_file, write_index_file


@pytest.mark.parametrize("mapped_max", [0, 1 << 30])  # rows read from the file, or the map
def test_saved_and_appended_rows_read_as_one_matrix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mapped_max: int
) -> None:
    monkeypatch.setattr(vectors, "MAPPED_READ_MAX", mapped_max)
    rng = np.random.default_rng(2)
    saved, added = rng.random((20, 4), np.float32), rng.random((7, 4), np.float32)
    write_index_file(tmp_path / "x.idx", {}, {"vectors": saved})
    _, arrays = read_index_file(tmp_path / "x.idx")
    rows = VectorRows.adopt(arrays["vectors"], arrays.rows("vectors"))
    whole = saved
    query = rng.random(4, np.float32)
    picked = np.array([19, 0, 3], dtype=np.int64)
    for block in (None, added[:3], added[3:]):  # nothing appended yet, then twice
        if block is not None:
            rows.extend(block)
            whole = np.concatenate([whole, block])
            picked = np.append(picked, len(whole) - 1)
        assert len(rows) == len(whole)
        np.testing.assert_array_equal(rows.whole(), whole)
        np.testing.assert_allclose(rows.dot(query), whole @ query, rtol=1e-6)
        for start in (0, 5, 20, len(whole)):
            np.testing.assert_array_equal(rows.since(start), whole[start:])
        for scattered in (False, True):  # through the map, or read from the file
            np.testing.assert_array_equal(rows.take(picked, scattered=scattered), whole[picked])
    assert not arrays["vectors"].flags.writeable  # the saved part was never copied over


def test_rows_without_a_file_gather_from_memory() -> None:
    rows = VectorRows(3)
    rows.extend(np.eye(3, dtype=np.float32))
    got = rows.take(np.array([2, 0], dtype=np.int64), scattered=True)
    np.testing.assert_array_equal(got, np.eye(3, dtype=np.float32)[[2, 0]])
    # Adopted without a file: scattered rows come from the array itself.
    adopted = VectorRows.adopt(np.ones((2, 3), np.float32), None)
    assert adopted.take(np.array([1], dtype=np.int64), scattered=True).tolist() == [[1, 1, 1]]


def test_rows_of_a_lazy_section_are_read_from_the_file_once_then_through_the_map(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lazily checked matrix small enough to map: its rows are read (and checked) from
    the file the first time, then gathered through the map; a section found damaged since
    is refused for rows checked before too."""
    from sedimem.storage.longterm.sqlite import indexfile

    rng = np.random.default_rng(4)
    saved = rng.random((3 * indexfile.BLOCK // 64 + 5, 16), np.float32)  # 3 blocks and a bit
    path = tmp_path / "x.idx"
    write_index_file(path, {}, {"vectors": saved})
    _, arrays = read_index_file(path, lazy={"vectors"})
    file = arrays.rows("vectors")
    assert file is not None
    rows = VectorRows.adopt(arrays["vectors"], file)
    reads: list[int] = []
    real_pread = os.pread

    def counted(fd: int, size: int, offset: int) -> bytes:
        reads.append(offset)
        return real_pread(fd, size, offset)

    monkeypatch.setattr(indexfile.os, "pread", counted)
    picked = np.array([5, 0, 1023], dtype=np.int64)  # all in the first block
    assert not file.passed(picked)
    np.testing.assert_array_equal(rows.take(picked, scattered=True), saved[picked])
    assert len(reads) == 3  # one pread per row, each row checked
    assert file.passed(picked)
    assert not file.passed(np.array([2048], dtype=np.int64))
    reads.clear()
    np.testing.assert_array_equal(rows.take(picked, scattered=True), saved[picked])
    assert reads == []  # checked rows: one gather through the map
    # damage the third block: reading it fails, and the section is refused from then on
    data = bytearray(path.read_bytes())
    offset = data.index(saved[2048].tobytes())
    data[offset] ^= 0xFF
    with path.open("r+b") as f:  # the same file (a save renames a new one over it)
        f.write(bytes(data))
    with pytest.raises(indexfile.IndexFileError, match="damaged"):
        rows.take(np.array([2048], dtype=np.int64), scattered=True)
    with pytest.raises(indexfile.IndexFileError, match="damaged"):
        rows.take(picked, scattered=True)
