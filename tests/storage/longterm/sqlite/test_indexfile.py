"""Index files: what is written comes back, and anything else is refused."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest
import xxhash

from sedimem.storage.longterm.sqlite.indexfile import (
    BLOCK,
    MAGIC,
    IndexFileError,
    index_file,
    pack_strings,
    read_index_file,
    remove_index_files,
    row_check,
    unpack_strings,
    write_index_file,
)


@pytest.mark.parametrize(
    "values",
    [
        [],
        [""],
        ["a", "", "b"],
        ["plain", "ünïcödé", "emoji 🦉"],
        ["line\nbreak", "nul\0inside", "\n", "end"],
        ["lone surrogate \udc80"],
    ],
)
def test_strings_round_trip(values: list[str]) -> None:
    blob, offsets = pack_strings(values)
    assert unpack_strings(blob, offsets) == values


def arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    return {
        "vectors": rng.random((37, 5), dtype=np.float32),
        "flags": rng.random(37) > 0.5,
        "empty": np.empty(0, dtype=np.int64),
        "codes": np.arange(3, dtype=np.int32),
    }


def test_a_written_file_reads_back_identical_and_read_only(tmp_path: Path) -> None:
    path = tmp_path / "d" / "x.idx"
    size = write_index_file(path, {"seq": 7, "name": "é"}, arrays())
    assert path.stat().st_size == size
    meta, got = read_index_file(path)
    assert meta == {"seq": 7, "name": "é"}
    for name, expected in arrays().items():
        assert got[name].dtype == expected.dtype
        np.testing.assert_array_equal(got[name], expected)
        assert not got[name].flags.writeable
    assert [p.name for p in path.parent.iterdir()] == ["x.idx"]  # no temporary file left


def test_rewriting_replaces_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "x.idx"
    write_index_file(path, {"seq": 1}, arrays())
    write_index_file(path, {"seq": 2}, {"only": np.ones(3)})
    meta, got = read_index_file(path)
    assert meta == {"seq": 2}
    assert list(got) == ["only"]


def forge(path: Path, header: dict[str, object], body: bytes = b"") -> None:
    raw = json.dumps(header).encode()
    prefix = struct.pack("<8sQQ", MAGIC, len(raw), xxhash.xxh3_64_intdigest(raw))
    start = -(-(len(prefix) + len(raw)) // 64) * 64
    path.write_bytes(prefix + raw + b"\0" * (start - len(prefix) - len(raw)) + body)


@pytest.mark.parametrize(
    "header",
    [
        {"meta": {}, "sections": [{"name": "a"}], "size": 0},  # a section without fields
        {"meta": {}, "size": 0},  # no sections
        {
            "meta": {},
            "sections": [
                {"name": "a", "dtype": "<f4", "shape": [4], "offset": 0, "nbytes": 64, "hash": ""}
            ],
            "size": 0,
        },  # a section past the end
        {
            "meta": {},
            "sections": [
                {"name": "a", "dtype": "<f4", "shape": [9], "offset": 0, "nbytes": 16, "hash": ""}
            ],
            "size": 64,
        },  # a wrong hash
    ],
)
def test_a_malformed_header_is_refused(tmp_path: Path, header: dict[str, object]) -> None:
    path = tmp_path / "x.idx"
    forge(path, header, b"\0" * int(header.get("size", 0)))  # type: ignore[call-overload]
    with pytest.raises(IndexFileError):
        read_index_file(path)


def test_a_missing_or_foreign_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(IndexFileError):
        read_index_file(tmp_path / "absent.idx")
    (tmp_path / "other.idx").write_bytes(b"PK\3\4" + b"\0" * 100)
    with pytest.raises(IndexFileError):
        read_index_file(tmp_path / "other.idx")


def test_files_are_named_per_tenant_and_removed_per_tenant(tmp_path: Path) -> None:
    a = index_file(tmp_path, "tenant/a", "episode")
    b = index_file(tmp_path, "tenant/a", "fact")
    c = index_file(tmp_path, "tenant-b", "episode")
    assert len({a, b, c}) == 3
    for path in (a, b, c):
        write_index_file(path, {}, {"x": np.zeros(1)})
    assert remove_index_files(tmp_path, "tenant/a") == 2
    assert [p.name for p in tmp_path.iterdir()] == [c.name]


def test_rows_of_a_matrix_are_read_from_the_file_that_was_checked(tmp_path: Path) -> None:
    path = tmp_path / "x.idx"
    expected = arrays()["vectors"]
    write_index_file(path, {"seq": 1}, arrays())
    _, got = read_index_file(path)
    rows = got.rows("vectors")
    assert rows is not None
    assert rows.shape == (37, 5)
    assert got.rows("flags") is None  # one-dimensional: nothing to take rows of
    picked = np.array([36, 0, 5, 5], dtype=np.int64)
    np.testing.assert_array_equal(rows.take(picked), expected[picked])
    # A file renamed over it later (another save) is not what these rows read.
    write_index_file(path, {"seq": 2}, {"vectors": np.zeros((37, 5), np.float32)})
    np.testing.assert_array_equal(rows.take(picked), expected[picked])
    with pytest.raises(IndexError, match="outside"):
        rows.take(np.array([37], dtype=np.int64))


def test_rows_of_a_file_cut_short_while_in_use_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.idx"
    write_index_file(path, {"seq": 1}, arrays())
    _, got = read_index_file(path)
    rows = got.rows("vectors")
    assert rows is not None
    os.truncate(path, 100)  # the same file, not a new one renamed over it
    with pytest.raises(IndexFileError, match="cut short"):
        rows.take(np.array([30], dtype=np.int64))


def big_arrays() -> dict[str, np.ndarray]:
    """A matrix of several hash blocks (BLOCK bytes each) and a small section."""
    rng = np.random.default_rng(2)
    rows = 3 * BLOCK // (4 * 16) + 5  # 3 blocks and a bit, 16 float32 per row
    return {"vectors": rng.random((rows, 16), dtype=np.float32), "codes": np.arange(9)}


def flip(path: Path, name: str, at: int) -> None:
    """Flip the byte ``at`` bytes into section ``name``."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[8:16], "little")
    header = json.loads(bytes(data[24 : 24 + length]))
    start = -(-(24 + length) // 64) * 64
    (section,) = [s for s in header["sections"] if s["name"] == name]
    data[start + section["offset"] + at] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_lazy_section_is_checked_row_by_row_as_its_rows_are_read(tmp_path: Path) -> None:
    path = tmp_path / "x.idx"
    expected = big_arrays()["vectors"]
    write_index_file(path, {"seq": 1}, big_arrays())
    flip(path, "vectors", 2 * BLOCK + 10)  # row 2048 (64 bytes a row), in the third block
    with pytest.raises(IndexFileError, match="vectors is damaged"):
        read_index_file(path)  # checked at open when not lazy
    _, got = read_index_file(path, lazy={"vectors"})  # not checked yet: opens
    rows = got.rows("vectors")
    assert rows is not None
    sound = np.array([0, 5, 1023, 1024, 2047, 3072], dtype=np.int64)
    np.testing.assert_array_equal(rows.take(sound), expected[sound])
    rows.check(sound)  # checked once: nothing read again
    with pytest.raises(IndexFileError, match="vectors is damaged") as caught:
        rows.take(np.array([1, 2048], dtype=np.int64))
    assert caught.value.path == path  # so that the caller can drop the file's index
    with pytest.raises(IndexFileError):  # and it stays refused
        rows.take(np.array([1], dtype=np.int64))
    with pytest.raises(IndexFileError):
        got.check("vectors")
    with pytest.raises(IndexFileError):
        got.check_later("vectors").result(timeout=30)


def test_a_sound_lazy_section_checks_whole_in_the_background(tmp_path: Path) -> None:
    path = tmp_path / "x.idx"
    write_index_file(path, {"seq": 1}, big_arrays())
    _, got = read_index_file(path, lazy={"vectors", "codes"})
    assert got.check_later("vectors").result(timeout=30) is None
    got.check("codes")
    got.check("absent")  # not lazy: checked at open, nothing to do
    assert got.check_later("vectors").result(timeout=1) is None  # done already
    np.testing.assert_array_equal(got["vectors"], big_arrays()["vectors"])


def test_a_lazy_section_cut_short_while_in_use_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.idx"
    write_index_file(path, {"seq": 1}, big_arrays())
    _, got = read_index_file(path, lazy={"vectors"})
    os.truncate(path, 2 * BLOCK)  # the same file, not a new one renamed over it
    rows = got.rows("vectors")
    assert rows is not None
    with pytest.raises(IndexFileError, match="cut short"):
        rows.check(np.array([3000], dtype=np.int64))


def test_a_lazy_section_without_rows_is_checked_from_the_open_on(tmp_path: Path) -> None:
    """A graph-like section (bytes, no rows) starts its check at the open, on a thread:
    a damaged one opens, and whatever waits for its check gets the error."""
    path = tmp_path / "x.idx"
    data = {"graph": np.arange(3 * BLOCK, dtype=np.uint8), "codes": np.arange(9)}
    write_index_file(path, {"seq": 1}, data)
    flip(path, "graph", BLOCK + 3)
    _, got = read_index_file(path, lazy={"graph"})
    checking = got.check_later("graph")
    assert got.check_later("graph") is checking  # the one started at the open
    with pytest.raises(IndexFileError, match="graph is damaged"):
        checking.result(timeout=30)
    with pytest.raises(IndexFileError):
        got.check("graph")


def test_a_row_range_check_reads_each_range_once_and_still_refuses_a_damaged_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "x.idx"
    write_index_file(path, {"seq": 1}, big_arrays())
    flip(path, "vectors", 2 * BLOCK + 10)  # row 2048 (64 bytes a row), in the third block
    _, got = read_index_file(path, lazy={"vectors"})
    section = got.lazy("vectors")
    assert section is not None
    asked: list[tuple[int, int]] = []
    real = section.check_bytes

    def counted(lo: int, hi: int) -> None:
        asked.append((lo, hi))
        real(lo, hi)

    section.check_bytes = counted  # type: ignore[method-assign]
    check = row_check(section, 64)
    for _ in range(3):
        check(0, 100)
        check(100, 100)  # empty: nothing to read
    assert asked == [(0, 100 * 64)]
    for _ in range(2):  # a damaged range is refused each time it is asked for
        with pytest.raises(IndexFileError, match="vectors is damaged"):
            check(2040, 2050)
