"""An HNSW graph (usearch) over the first ``covered`` slots of an in-memory index.

Building a graph is slow (on a loaded 2-core machine ~1-2k vectors/s), so it is never done
in a query's path: a job on a background thread builds a new graph, or extends a copy of
the current one with the slots written since, and the next query swaps it in. Queries meanwhile
search the graph they have plus the uncovered tail exactly. usearch indexes are not safe to
use from two threads at once (unum-cloud/usearch#441), so a job only ever touches an index
no query can see: the foreground copies the current graph before handing it over.

What the graph holds is not the vectors but each vector minus a centre (the mean of the
vectors of its first build), in int8 cells compared by cosine; queries are moved alike.
The default embedder's vectors share one dominant direction (their mean has norm ~0.96):
usearch keeps a vector as ``round(127 x)`` of its unit-length components, so the raw
vectors' cells spent their few levels on what they all share, and the graph's neighbours
were poor. At 100k LoCoMo episodes (top 52 of a beam of 256, re-scored exactly), the share
of the exact top 10 found: raw, expansion 128 (before) 0.88, expansion 64 0.83; centred,
expansion 64 0.96, expansion 32 0.93 (kept: 37 s of CPU to build against 86 s); at 300k
raw 128 0.84, centred 32 0.84 at a third of its CPU, centred 64 0.92 (docs/benchmarks.md).
The graph only proposes candidates (cosine to the centre is not the caller's score): the
caller re-scores them exactly.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib.util
import logging
import threading
from concurrent.futures import Executor, Future
from pathlib import Path

import numpy as np
import numpy.typing as npt

from sedimem.retrieval.index.building import Built

__all__ = ["HnswGraph", "centered", "hnsw_available"]

log = logging.getLogger(__name__)


def _load_onnxruntime_first() -> None:
    """Load onnxruntime's extension (if installed) before usearch's.

    usearch's extension carries its own copy of libstdc++; onnxruntime's (1.28 to 1.32 at
    least) crashes the process (SIGSEGV in its static initialisers) when it is loaded after
    that one, which is the order a quality embedder (``sedimem[quality]``) would otherwise
    see. Loaded first, both work. Mapping the library without importing onnxruntime's Python
    package takes a few milliseconds; the later ``import onnxruntime`` reuses it.
    """
    try:
        spec = importlib.util.find_spec("onnxruntime")
    except (ImportError, ValueError):  # pragma: no cover - a broken installation
        return
    if spec is None or spec.origin is None:
        return
    capi = Path(spec.origin).parent / "capi"
    for library in sorted(capi.glob("onnxruntime_pybind11_state*")):
        # not loadable here: `import onnxruntime` reports it when the embedder loads
        with contextlib.suppress(OSError):
            ctypes.CDLL(str(library))
        return


_load_onnxruntime_first()

try:
    from usearch.index import Index

    _AVAILABLE = True
except ImportError:  # pragma: no cover - usearch is optional: exact search still works
    _AVAILABLE = False

_BEAM = 256
_CONNECTIVITY = 16
# Candidates kept while linking a new vector (usearch's default: 128). Centred, 32 builds
# at 0.44 of the CPU of 128 on raw vectors and finds more of the exact top 10 (module
# docstring); 64 finds more still (0.96) at 0.9 of the CPU.
_EXPANSION_ADD = 32
_CHUNK = 1024  # vectors per add() call: bounds how long a cancelled job keeps running
# Per add() call on every core: usearch starts its threads per call, and a bulk load's
# graph (1M vectors) is built in hundreds of calls rather than a thousand.
_BULK_CHUNK = 16384


def hnsw_available() -> bool:
    return _AVAILABLE


def centered(
    rows: npt.NDArray[np.float32], center: npt.NDArray[np.float32]
) -> npt.NDArray[np.float32]:
    """Rows minus the graph's ``center`` (see the module docstring)."""
    moved: npt.NDArray[np.float32] = (rows - center).astype(np.float32, copy=False)
    return moved


Center = npt.NDArray[np.float32]


class HnswGraph(Built[tuple["Index | None", "Center | None"], tuple["Index", int, Center]]):
    """Owned by one in-memory index; every method runs on that index's (worker) thread.
    How it grows (a job extends a copy) is :class:`~sedimem.retrieval.index.building.Built`."""

    what = "HNSW graph"

    def __init__(self, dimension: int, executor: Executor | None) -> None:
        super().__init__(executor)
        self._dimension = dimension
        self._index: Index | None = None
        self._cancel = threading.Event()
        self._covered = 0
        self._viewed: npt.NDArray[np.uint8] | None = None
        # A saved graph's check (see view()): waited for before the graph is first used.
        self._checking: Future[None] | None = None
        # Subtracted from every vector and query (see the module docstring): the mean of
        # the first build's vectors, or the saved graph's; never changed for one graph.
        self.center: Center | None = None

    @property
    def ready(self) -> bool:
        return self._index is not None or self._checking is not None

    @property
    def covered(self) -> int:
        return self._covered

    def _base(self) -> tuple[Index | None, Center | None]:
        self._checked()  # a saved graph is extended only once its check has passed
        return (None if self._index is None else self._index.copy(), self.center)

    def _adopt(self, made: tuple[Index, int, Center]) -> None:
        self._index, self._covered, self.center = made

    def _extend(
        self,
        base: tuple[Index | None, Center | None],
        tail: npt.NDArray[np.float32],
        start: int,
        now: bool,
    ) -> tuple[Index, int, Center]:
        """The graph of ``base`` (or a new one) extended by ``tail`` (slots from
        ``start``), its covered count and its centre (``base``'s, or for a new graph the
        mean of ``tail``). ``now``: every core, in bigger steps."""
        if tail.ndim != 2 or tail.shape[1] != self._dimension:
            raise ValueError(
                f"vectors of {tail.shape[-1]} dimensions for a graph of {self._dimension}"
            )
        index, center = base
        if center is None:
            center = tail.mean(axis=0, dtype=np.float64).astype(np.float32)
        index = index or self._new_index()
        step = _BULK_CHUNK if now else _CHUNK
        for lo in range(0, tail.shape[0], step):
            if self._cancel.is_set():
                raise RuntimeError("cancelled")
            chunk = centered(tail[lo : lo + step], center)
            keys = np.arange(start + lo, start + lo + chunk.shape[0], dtype=np.uint64)
            index.add(keys, chunk, threads=0 if now else 1)  # 0: every core
        return index, start + tail.shape[0], center

    def saved(self) -> npt.NDArray[np.uint8] | None:
        """The graph as bytes (what :meth:`view` takes back), ``None`` when none is ready."""
        self._checked()
        if self._index is None:
            return None
        data = self._index.save()
        assert data is not None  # saved to a buffer (no path given)
        return np.frombuffer(data, dtype=np.uint8)

    def _new_index(self) -> Index:
        # int8 cells: ~3x faster to build than float32 at the same recall here, because
        # the caller re-scores every candidate exactly against its float32 vectors.
        return Index(
            ndim=self._dimension,
            metric="cos",
            dtype="i8",
            connectivity=_CONNECTIVITY,
            expansion_add=_EXPANSION_ADD,
        )

    def view(
        self,
        data: npt.NDArray[np.uint8],
        covered: int,
        center: npt.NDArray[np.float32],
        checked: Future[None] | None = None,
    ) -> None:
        """Serve a saved graph in place (memory-mapped, not copied); a later extension
        works on a copy, as every extension does. ``checked``: the check of ``data``'s
        hashes, running meanwhile: the graph is opened and used only once it has passed
        (its error, an :class:`~sedimem.storage.longterm.sqlite.indexfile.IndexFileError`,
        is raised to the search that waits for it), so a damaged graph never reaches usearch.
        """
        self._viewed = data  # the mapping must outlive the index that reads it
        self._checking = checked
        self.center = np.array(center, dtype=np.float32)  # small: copied out of the map
        self._covered = covered
        self._index = None if checked is not None else self._open(data)

    def _open(self, data: npt.NDArray[np.uint8]) -> Index:
        index = self._new_index()
        index.view(data.data)
        return index

    def _checked(self) -> None:
        """Wait for a saved graph's check, then open it (raises when it is damaged)."""
        checking = self._checking
        if checking is None:
            return
        checking.result()
        assert self._viewed is not None
        self._index = self._open(self._viewed)
        self._checking = None

    def search(self, query: npt.NDArray[np.float32], count: int) -> npt.NDArray[np.int64]:
        """Slots of about the ``count`` nearest covered vectors (approximate)."""
        self._checked()
        assert self._index is not None
        assert self.center is not None
        count = min(count, self.covered)
        # A beam of 256 keeps recall@10 >= 0.9 even on isotropic random vectors (64 gave
        # 0.1 at 100k x 256); wider when the caller oversamples past it.
        self._index.expansion_search = max(_BEAM, count)  # type: ignore[misc]  # has a setter
        matches = self._index.search(centered(query[None], self.center)[0], count, threads=1)
        slots = np.asarray(matches.keys, dtype=np.int64)
        return slots[(slots >= 0) & (slots < self.covered)]  # (a short answer pads keys)

    def close(self) -> None:
        """Stop a running job at its next chunk; drop the graph."""
        self._cancel.set()
        self._index = None
        self._checking = None
        self._job = None
