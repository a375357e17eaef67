"""The IVF partition (:mod:`~sedimem.retrieval.index.ivf`) as an in-memory index's
approximate structure: what :class:`~sedimem.retrieval.index.hnsw.HnswGraph` is below the
size past which a bulk-built index is partitioned instead (``IndexOptions.ivf_threshold``).

Like the graph, it covers slots ``[0, covered)``; queries scan the uncovered tail exactly,
and once the tail is large a job (on the engine's background thread) assigns it to the
nearest lists, making a new partition that the next query swaps in. A saved partition is
served in place: its codes are checked list by list as queries first probe them.
"""

from __future__ import annotations

from concurrent.futures import Executor

import numpy as np
import numpy.typing as npt

from sedimem.retrieval.index.building import Built
from sedimem.retrieval.index.ivf import ListCheck, Partition

__all__ = ["IvfIndex"]


class IvfIndex(Built["Partition | None", Partition]):
    """Owned by one in-memory index; every method runs on that index's (worker) thread.
    How it grows (a job makes a new partition) is
    :class:`~sedimem.retrieval.index.building.Built`."""

    what = "IVF partition"

    def __init__(self, executor: Executor | None) -> None:
        super().__init__(executor)
        self._partition: Partition | None = None
        self._check: ListCheck | None = None  # a saved partition's per-list check

    @property
    def ready(self) -> bool:
        return self._partition is not None

    @property
    def covered(self) -> int:
        return 0 if self._partition is None else self._partition.covered

    def _base(self) -> Partition | None:
        return self._partition  # never changed in place: a job makes a new one

    def _adopt(self, made: Partition) -> None:
        self._partition = made
        self._check = None  # made in memory from checked codes: nothing left to check

    def _extend(
        self, base: Partition | None, tail: npt.NDArray[np.float32], start: int, now: bool
    ) -> Partition:
        if base is None:
            return Partition.build(tail)
        if self._check is not None:
            # An extension copies every list's codes: check them all first (the partition
            # it makes lives in memory and is checked by nothing else).
            self._check(0, base.covered)
        return base.extended(tail, start)

    def search(self, query: npt.NDArray[np.float32], count: int) -> npt.NDArray[np.int64]:
        """Slots of about the ``count`` nearest covered vectors (approximate)."""
        assert self._partition is not None
        return self._partition.search(query, count, self._check)

    def sections(self) -> dict[str, npt.NDArray[np.generic]]:
        """The partition's sections for an index file (none when there is no partition)."""
        if self._partition is None:
            return {}
        if self._check is not None:
            self._check(0, self._partition.covered)  # saved again: every code is read
        return self._partition.sections()

    def view(self, arrays: dict[str, npt.NDArray[np.generic]], check: ListCheck | None) -> None:
        """Serve a saved partition in place; ``check(lo, hi)`` checks code rows
        ``[lo, hi)`` (raising when damaged) and is called before any is read."""
        self._partition = Partition.from_sections(arrays)
        self._check = check

    def close(self) -> None:
        self._partition = None
        self._check = None
        self._job = None
