"""Index files: a saved in-memory index beside the SQLite file, safe to trust or detect.

One file per (tenant, kind) in ``<db>.idx/``. Layout::

    MAGIC (8) | header length (u64) | header hash (u64) | header (JSON) | pad | sections

The header holds the caller's metadata (the ``lt_change`` sequence the index reflects, the
file's instance token, the embedder) and, per section (a named numpy array), its dtype,
shape, offset, length and the xxh3 hash of each 64 KiB block of it. A file is written to a
temporary name, flushed to disk and renamed over the old one, so a reader sees a whole old
file or a whole new one; a truncated or damaged file (a disk that lost writes, a copy cut
short) fails the size or hash checks and is refused (:class:`IndexFileError`), never served.

Reading maps the file and checks the hashes of every section in place, dropping each page
from this process once hashed (the page cache keeps it), except the sections the caller
names ``lazy``: those are checked block by block when first read (:class:`FileRows` checks
each row it reads against the row's own hash: a 2-d section comes with a companion of one
hash per row, checked at open) or as a whole before any other use
(:meth:`IndexSections.check`, which may run on a background thread from the open on). At a
million records the vectors and the HNSW graph are 2 GB of a 2.4 GB file: hashing them all
before the first search took a second; a search reads a few hundred of their blocks. The
arrays returned are read-only views of the mapping, so the large ones only occupy the
process's memory as searches touch them.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import mmap
import os
import struct
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import xxhash

__all__ = [
    "BLOCK",
    "FileRows",
    "IndexFileError",
    "IndexSections",
    "LazySection",
    "index_file",
    "pack_strings",
    "read_index_file",
    "remove_index_files",
    "row_check",
    "unpack_strings",
    "write_index_file",
]

MAGIC = b"SDMIDX02"  # 02: hashes per block (01: one per section; read as foreign, rebuilt)
_PREFIX = struct.Struct("<8sQQ")
_ALIGN = 64  # sections start on cache-line boundaries (numpy views of them are aligned)
_CHUNK = 1 << 24  # bytes read (or dropped from the mapping) at a time while checking
# Bytes per hash: a lazily checked section's rows cost a search the blocks they sit in (a
# 384-d float32 vector is 1.5 KiB of its 64 KiB block), and a 2 GB section has 32k hashes.
BLOCK = 1 << 16
# Bytes read per call while checking a section whole: small enough that the buffer never
# raises glibc's mmap threshold (a 16 MB one did: it then stayed on the heap, +29 MB of RSS
# serving a 100k store), large enough that 540 MB takes a few hundred calls.
_READ = 1 << 20
# Threads that check a section whole side by side (a 540 MB graph at 1M: the first vector
# search waits for it; one thread checks it at ~2 GB/s here).
_CHECK_THREADS = 2
_ROW_HASHES = "#rows"  # suffix of a 2-d section's companion: one xxh3 per row (internal)


class IndexFileError(Exception):
    """An index file that must not be used (missing, truncated, damaged, foreign).
    ``path``: the file, when known (a search that finds a damaged block names it, so that
    its index can be dropped and built from the rows)."""

    def __init__(self, message: str, path: Path | None = None) -> None:
        super().__init__(message)
        self.path = path


class LazySection:
    """The block hashes of a section not checked at open: each block is read (``pread``)
    and checked the first time something asks for it, once. Thread-safe: a background
    check and the searches may ask at once."""

    def __init__(
        self, path: Path, fd: int, name: str, offset: int, nbytes: int, hashes: list[int]
    ) -> None:
        self._path = path
        self._fd = fd
        self._name = name
        self._offset = offset
        self._nbytes = nbytes
        self._hashes = hashes
        self._done = np.zeros(len(hashes), dtype=np.bool_)
        self._left = len(hashes)
        self._failed = False
        self._lock = threading.Lock()
        weakref.finalize(self, os.close, fd)

    @property
    def checked(self) -> bool:
        return self._left == 0

    def check_all(self, part: int = 0, parts: int = 1) -> None:
        """Check every block not checked yet (reads of ``_READ`` bytes: no page of it is
        mapped into this process); with ``parts``, only the ``part``-th of them (threads
        check the parts side by side)."""
        self.refuse_if_failed()
        per_read = _READ // BLOCK
        count = len(self._hashes)
        lo, hi = count * part // parts, count * (part + 1) // parts
        for first in range(lo, hi, per_read):
            if self._left == 0:
                break
            self.check_blocks(range(first, min(first + per_read, hi)))

    def check_blocks(self, blocks: range) -> None:
        """Check these (consecutive) blocks, those not checked yet, from one read (outside
        the lock: threads checking other parts read and hash side by side)."""
        self.refuse_if_failed()
        wanted = [b for b in blocks if not self._done[b]]
        if not wanted:
            return
        lo, hi = wanted[0] * BLOCK, min((wanted[-1] + 1) * BLOCK, self._nbytes)
        data = memoryview(os.pread(self._fd, hi - lo, self._offset + lo))
        if len(data) != hi - lo:
            self._failed = True
            raise IndexFileError(
                f"{self._path.name}: an index file was cut short while in use", self._path
            )
        for block in wanted:
            start, end = block * BLOCK - lo, min((block + 1) * BLOCK, self._nbytes) - lo
            if xxhash.xxh3_64_intdigest(data[start:end]) != self._hashes[block]:
                raise self.fail()
        with self._lock:
            for block in wanted:
                if not self._done[block]:
                    self._done[block] = True
                    self._left -= 1

    def check_bytes(self, lo: int, hi: int) -> None:
        """Check the blocks holding bytes ``[lo, hi)`` of the section (reads of at most
        ``_READ`` bytes)."""
        per_read = _READ // BLOCK
        last = min(-(-hi // BLOCK), len(self._hashes))
        for first in range(lo // BLOCK, last, per_read):
            self.check_blocks(range(first, min(first + per_read, last)))

    def refuse_if_failed(self) -> None:
        if self._failed:
            raise self._error()

    def fail(self) -> IndexFileError:
        """The error of a damaged row found by a reader (the section is refused from now)."""
        self._failed = True
        return self._error()

    def _error(self) -> IndexFileError:
        return IndexFileError(f"{self._path.name}: section {self._name} is damaged", self._path)


class FileRows:
    """Rows of a saved 2-d section read with ``pread``, not through the mapping.

    A search that reads a few scattered rows through the memory map makes the kernel map
    whole page-cache folios around each one into the process (about 1.5 MB per touched
    row measured here), so after some hundreds of searches all of a large matrix counts in
    the process's memory. Reading them with ``pread`` copies just the rows; the page cache
    still holds the file. The descriptor is the one the file was checked through (a file
    renamed over it later is not read) and closes with this object.
    """

    def __init__(
        self,
        fd: int,
        offset: int,
        dtype: np.dtype[Any],
        shape: tuple[int, int],
        lazy: LazySection | None = None,
    ) -> None:
        self._fd = fd
        self._offset = offset
        self._dtype = dtype
        self._shape = shape
        self._row = dtype.itemsize * shape[1]
        self._lazy = lazy
        # With a lazily checked section: each row's hash, and which rows passed already.
        self._hashes: npt.NDArray[np.uint64] | None = None
        self._passed: npt.NDArray[np.bool_] | None = None
        weakref.finalize(self, os.close, fd)

    @property
    def lazy(self) -> bool:
        """Rows must be checked before use through the mapping (:meth:`take` checks its)."""
        return self._lazy is not None

    def _expect(self, hashes: npt.NDArray[np.uint64]) -> None:
        self._hashes = hashes
        self._passed = np.zeros(self._shape[0], dtype=np.bool_)

    def check(self, rows: npt.NDArray[np.int64]) -> None:
        """Check these rows, when the section is checked lazily (before the rows are used
        through the mapping; :meth:`take` checks the rows it reads)."""
        if self._lazy is None:
            return
        if self._passed is None:  # no row hashes (a file without them): check it whole
            self._lazy.check_all()
            return
        unchecked = rows[~self._passed[rows]]
        if unchecked.size:
            self._take(unchecked)

    def check_all(self) -> None:
        """Check the whole section (before it is used whole through the mapping)."""
        if self._lazy is not None:
            self._lazy.check_all()

    def passed(self, rows: npt.NDArray[np.int64]) -> bool:
        """Whether these rows need no check any more (the section is not checked lazily,
        is checked whole, or each of them passed its row check): they may then be read
        through the mapping. A section found damaged is refused, as :meth:`take` does."""
        lazy = self._lazy
        if lazy is None:
            return True
        lazy.refuse_if_failed()
        if lazy.checked:
            return True
        passed = self._passed
        return passed is not None and bool(passed[rows].all())

    @property
    def shape(self) -> tuple[int, int]:
        return self._shape

    def take(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
        """The given rows, in order, as a new array."""
        if rows.size and not 0 <= int(rows.min()) <= int(rows.max()) < self._shape[0]:
            raise IndexError(f"rows outside 0..{self._shape[0] - 1}")
        if self._lazy is not None and self._passed is None:
            self.check(rows)
        return self._take(rows)

    def _take(self, rows: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
        if self._lazy is not None:
            self._lazy.refuse_if_failed()
        size, count = self._row, rows.shape[0]
        # map() keeps the per-row work in C: one pread per row is what remains (~1 us).
        parts = list(
            map(
                os.pread,
                itertools.repeat(self._fd, count),
                itertools.repeat(size, count),
                (self._offset + rows * size).tolist(),
            )
        )
        data = b"".join(parts)
        if len(data) != size * count:
            raise IndexFileError("an index file was cut short while in use")
        if self._passed is not None and self._hashes is not None and self._lazy is not None:
            passed, hashes = self._passed, self._hashes
            if not self._lazy.checked:  # (a whole check, when done, covers every row)
                digests = np.fromiter(map(xxhash.xxh3_64_intdigest, parts), np.uint64, count)
                if (digests != hashes[rows]).any():
                    raise self._lazy.fail()
                passed[rows] = True
        return np.frombuffer(data, dtype=self._dtype).reshape(rows.shape[0], self._shape[1])


class IndexSections(dict[str, npt.NDArray[Any]]):
    """The arrays of an index file (read-only views of its mapping) and, for 2-d
    sections, a way to read rows without the mapping (:class:`FileRows`). A section read
    ``lazy`` must be checked (:meth:`check`, or its rows through :meth:`rows`) before use."""

    def __init__(self) -> None:
        super().__init__()
        self._rows: dict[str, FileRows] = {}
        self._lazy: dict[str, LazySection] = {}
        self._checking: dict[str, Future[None]] = {}  # checks started at the open

    def rows(self, name: str) -> FileRows | None:
        return self._rows.get(name)

    def check(self, name: str) -> None:
        """Check the whole section now (nothing to do when it was checked at open);
        :class:`IndexFileError` when damaged."""
        lazy = self._lazy.get(name)
        if lazy is not None:
            lazy.check_all()

    def lazy(self, name: str) -> LazySection | None:
        """The block checks of a section read ``lazy`` (``None``: checked at open)."""
        return self._lazy.get(name)

    def check_later(self, name: str) -> Future[None]:
        """:meth:`check` on threads of its own, started now or, for a section without
        rows, at the open (reading and hashing release the GIL): what uses the section
        waits for the result (the error, when damaged)."""
        started = self._checking.get(name)
        if started is not None:
            return started
        done: Future[None] = Future()
        lazy = self._lazy.get(name)
        if lazy is None or lazy.checked:
            done.set_result(None)
            return done

        parts = min(_CHECK_THREADS, os.cpu_count() or 1)
        left = [parts]
        lock = threading.Lock()

        def run(part: int) -> None:
            try:
                lazy.check_all(part, parts)
            except BaseException as exc:  # handed to whoever waits for it
                with lock:
                    if not done.done():
                        done.set_exception(exc)
                return
            with lock:
                left[0] -= 1
                if not left[0] and not done.done():
                    done.set_result(None)

        for part in range(parts):
            threading.Thread(
                target=run, args=(part,), name="sedimem-index-check", daemon=True
            ).start()
        return done


def row_check(section: LazySection, width: int) -> Callable[[int, int], None]:
    """A check of rows ``[lo, hi)`` of a lazily read 2-d section of ``width`` bytes a row
    (an int8 matrix's columns): their blocks are checked when first asked for."""

    passed: set[tuple[int, int]] = set()  # ranges checked already: asked for every search

    def check(lo: int, hi: int) -> None:
        if lo < hi and (lo, hi) not in passed:
            section.check_bytes(lo * width, hi * width)
            passed.add((lo, hi))

    return check


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def index_file(directory: Path, tenant: str, kind: str) -> Path:
    """The file of (tenant, kind): hashed names (any text is a valid tenant or kind), the
    tenant's part first so that all of a tenant's files can be found by prefix."""
    return directory / f"{_digest(tenant)}-{_digest(kind)}.idx"


def remove_index_files(directory: Path, tenant: str | None = None) -> int:
    """Delete every index file of ``tenant`` (every tenant's when ``None``), stray temporary
    ones included; return how many."""
    removed = 0
    pattern = "*.idx*" if tenant is None else f"{_digest(tenant)}-*"
    for path in directory.glob(pattern):
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed += 1
    return removed


def pack_strings(values: Sequence[str]) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """Strings as one UTF-8 blob, joined by newlines, and where each starts (characters):
    any text round-trips (newline and NUL included); without newlines in them, one
    ``split`` takes them back."""
    joined = "\n".join(values)
    offsets = np.zeros(len(values) + 1, dtype=np.int64)
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values)) + 1
    np.cumsum(lengths, out=offsets[1:])
    blob = np.frombuffer(joined.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    return blob, offsets


def unpack_strings(blob: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> list[str]:
    joined = blob.tobytes().decode("utf-8", "surrogatepass")
    count = offsets.shape[0] - 1
    if count <= 0:
        return []
    parts = joined.split("\n")
    if len(parts) == count:  # no string held a newline
        return parts
    bounds = offsets.tolist()
    return [joined[a : b - 1] for a, b in itertools.pairwise(bounds)]


def write_index_file(path: Path, meta: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> int:
    """Write atomically (temporary file, fsync, rename); return the file's size."""
    sections: list[dict[str, Any]] = []
    offset = 0
    arrays = dict(arrays)
    for name, array in list(arrays.items()):
        if array.ndim == 2 and array.shape[0] and array.shape[1]:
            rows = np.ascontiguousarray(array).view(np.uint8).reshape(array.shape[0], -1)
            arrays[name + _ROW_HASHES] = np.fromiter(
                (xxhash.xxh3_64_intdigest(row.data) for row in rows),
                dtype=np.uint64,
                count=rows.shape[0],
            )
    for name, array in arrays.items():
        data = np.ascontiguousarray(array)
        raw = _raw(data)
        sections.append(
            {
                "name": name,
                "dtype": data.dtype.str,
                "shape": list(data.shape),
                "offset": offset,
                "nbytes": int(data.nbytes),
                "hashes": [
                    xxhash.xxh3_64_intdigest(raw[at : at + BLOCK])
                    for at in range(0, len(raw), BLOCK)
                ],
            }
        )
        offset += -(-int(data.nbytes) // _ALIGN) * _ALIGN
    header = json.dumps({"meta": meta, "sections": sections, "size": offset}).encode()
    start = -(-(_PREFIX.size + len(header)) // _ALIGN) * _ALIGN
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(_PREFIX.pack(MAGIC, len(header), xxhash.xxh3_64_intdigest(header)))
            out.write(header)
            out.write(b"\0" * (start - _PREFIX.size - len(header)))
            for section, array in zip(sections, arrays.values(), strict=True):
                out.write(_raw(array))
                out.write(b"\0" * (-section["nbytes"] % _ALIGN))
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _sync_directory(path.parent)
    return start + offset


def _raw(array: npt.NDArray[Any]) -> memoryview:
    """The bytes of an array (any dtype, bool included), without a copy when contiguous."""
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8).data


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable (POSIX: fsync the directory)."""
    with contextlib.suppress(OSError):  # not every platform lets a directory be opened
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def read_index_file(path: Path, lazy: Iterable[str] = ()) -> tuple[dict[str, Any], IndexSections]:
    """The metadata and arrays of a whole file, else :class:`IndexFileError`. Every
    section is checked now but those named in ``lazy``, which the caller checks before use
    (see :class:`IndexSections`)."""
    later = set(lazy)
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            prefix = f.read(_PREFIX.size)
            if len(prefix) < _PREFIX.size:
                raise IndexFileError(f"{path.name}: shorter than its prefix")
            magic, length, header_hash = _PREFIX.unpack(prefix)
            if magic != MAGIC or length > size:
                raise IndexFileError(f"{path.name}: not an index file of this version")
            header = f.read(length)
            if len(header) != length or xxhash.xxh3_64_intdigest(header) != header_hash:
                raise IndexFileError(f"{path.name}: damaged header")
            parsed = json.loads(header)
            start = -(-(_PREFIX.size + length) // _ALIGN) * _ALIGN
            expected = start + int(parsed["size"])
            if size != expected:
                raise IndexFileError(f"{path.name}: {size} bytes, expected {expected}")
            sections: list[dict[str, Any]] = parsed["sections"]
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            fd = os.dup(f.fileno())  # for FileRows: the very file that was checked
    except OSError as exc:
        raise IndexFileError(f"{path.name}: {exc}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        raise IndexFileError(f"{path.name}: malformed header ({exc})") from exc
    try:
        arrays = IndexSections()
        # A lazy section without rows (the graph) can only be checked whole: that starts
        # now, on its own thread, beside the check of the other sections below.
        rowless = {s["name"] for s in sections if s["name"] in later and len(s["shape"]) != 2}
        for section in sections:
            if section["name"] in rowless:
                _lazy_section(arrays, path, fd, start, section)
                arrays._checking[section["name"]] = arrays.check_later(section["name"])
        _check_hashes(mapped, start, [s for s in sections if s["name"] not in later], path)
        for section in sections:
            name = section["name"]
            dtype = np.dtype(section["dtype"])
            count = section["nbytes"] // dtype.itemsize if dtype.itemsize else 0
            offset = start + section["offset"]
            if offset + int(section["nbytes"]) > len(mapped):
                raise IndexFileError(f"{path.name}: section {name} cut short")
            flat = np.frombuffer(mapped, dtype=dtype, count=count, offset=offset)
            shape = tuple(section["shape"])
            arrays[name] = flat.reshape(shape)
            lazy_section = arrays._lazy.get(name)
            if name in later and lazy_section is None:
                lazy_section = _lazy_section(arrays, path, fd, start, section)
            if len(shape) == 2 and count:
                rows = FileRows(
                    os.dup(fd), offset, dtype, (int(shape[0]), int(shape[1])), lazy_section
                )
                arrays._rows[name] = rows
        for name in [n for n in arrays if n.endswith(_ROW_HASHES)]:
            row_hashes = arrays.pop(name)
            rows_of = arrays._rows.get(name[: -len(_ROW_HASHES)])
            if name[: -len(_ROW_HASHES)] in later:
                if rows_of is None or row_hashes.shape != (rows_of.shape[0],):
                    raise IndexFileError(f"{path.name}: section {name} does not match")
                rows_of._expect(row_hashes)
    except (ValueError, KeyError, TypeError) as exc:
        raise IndexFileError(f"{path.name}: malformed section ({exc})") from exc
    finally:
        os.close(fd)
    return parsed["meta"], arrays


def _lazy_section(
    arrays: IndexSections, path: Path, fd: int, start: int, section: dict[str, Any]
) -> LazySection:
    name, nbytes = section["name"], int(section["nbytes"])
    hashes = [int(h) for h in section["hashes"]]
    if len(hashes) != -(-nbytes // BLOCK):
        raise IndexFileError(f"{path.name}: section {name} is damaged")
    lazy = LazySection(path, os.dup(fd), name, start + int(section["offset"]), nbytes, hashes)
    arrays._lazy[name] = lazy
    return lazy


def _check_hashes(
    mapped: mmap.mmap, start: int, sections: Iterable[dict[str, Any]], path: Path
) -> None:
    """Hash every section in place. Pages are dropped from this process once hashed
    (they stay in the page cache), so checking a file does not make it resident."""
    with contextlib.suppress(AttributeError, OSError):  # advice only
        mapped.madvise(mmap.MADV_SEQUENTIAL)
    view = memoryview(mapped)
    try:
        for section in sections:
            lo = start + int(section["offset"])
            hi = lo + int(section["nbytes"])
            if hi > len(mapped):
                raise IndexFileError(f"{path.name}: section {section['name']} cut short")
            hashes = section["hashes"]
            if len(hashes) != -(-(hi - lo) // BLOCK):
                raise IndexFileError(f"{path.name}: section {section['name']} is damaged")
            for at in range(lo, hi, _CHUNK):  # whole blocks: _CHUNK is a multiple of BLOCK
                end = min(at + _CHUNK, hi)
                for block in range(at, end, BLOCK):
                    digest = xxhash.xxh3_64_intdigest(view[block : min(block + BLOCK, end)])
                    if digest != hashes[(block - lo) // BLOCK]:
                        raise IndexFileError(
                            f"{path.name}: section {section['name']} is damaged", path
                        )
                _drop(mapped, at, end)
    finally:
        view.release()
    # Searches read a few scattered rows: no read-ahead, or each touch maps whole runs of
    # vectors into the process.
    with contextlib.suppress(AttributeError, OSError):
        mapped.madvise(mmap.MADV_RANDOM)


def _drop(mapped: mmap.mmap, lo: int, hi: int) -> None:
    page = mmap.PAGESIZE
    first = lo // page * page
    with contextlib.suppress(AttributeError, OSError, ValueError):
        mapped.madvise(mmap.MADV_DONTNEED, first, hi - first)
