"""The vector matrix of an in-memory index: a saved part and the rows appended since.

A restored index adopts the matrix of its file as a read-only memory map. Appending to one
array would copy that whole map into process memory at the first write (and double it for
room): 150 MB read and 300 MB allocated at 100k x 384, in a serving process that records
one episode. Rows written after the restore go to their own growable block instead; the
saved part stays in the page cache, and its scattered rows are read with ``pread``
(:class:`~sedimem.storage.longterm.sqlite.indexfile.FileRows`) rather than through the map.

A saved matrix may be checked lazily (see :mod:`~sedimem.storage.longterm.sqlite.indexfile`):
rows read through the map have their blocks checked first, and the whole matrix is checked
before it is used whole (an exact scan, a copy for a graph build or a save).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from sedimem.retrieval.index.growable import GrowableArray
from sedimem.storage.longterm.sqlite.indexfile import FileRows

__all__ = ["VectorRows"]

Matrix = npt.NDArray[np.float32]
Slots = npt.NDArray[np.int64]

# A saved matrix up to this size is read through its map even for scattered rows: at most
# this much of it can become resident, and a gather costs less than one pread per row
# (~0.2 ms per search at 10k x 384).
MAPPED_READ_MAX = 32 << 20


class VectorRows:
    """Rows ``[0, len(saved))`` are the saved matrix, the rest the appended block."""

    def __init__(self, dimension: int) -> None:
        self._saved: Matrix = np.empty((0, dimension), dtype=np.float32)
        self._file: FileRows | None = None
        self._added = GrowableArray(np.float32, width=dimension)

    @classmethod
    def adopt(cls, saved: Matrix, file: FileRows | None = None) -> VectorRows:
        """Serve ``saved`` as it is (uncopied); ``file``: where its rows can be read."""
        if file is not None and file.shape != saved.shape:
            raise ValueError(f"rows of shape {file.shape} for a matrix of {saved.shape}")
        rows = cls(int(saved.shape[1]))
        rows._saved = saved
        rows._file = file
        return rows

    def _checked(self) -> Matrix:
        """The saved matrix, whole, once checked."""
        if self._file is not None:
            self._file.check_all()
        return self._saved

    def __len__(self) -> int:
        return int(self._saved.shape[0]) + len(self._added)

    def extend(self, block: Matrix) -> None:
        self._added.extend(block)

    def whole(self) -> Matrix:
        """Every row as one array (a copy once rows were appended)."""
        if not len(self._added):
            return self._checked()
        return np.concatenate([self._checked(), self._added.view])

    def since(self, start: int) -> Matrix:
        """Rows ``[start, len)`` as a new contiguous array."""
        split = self._saved.shape[0]
        if start >= split:
            return np.ascontiguousarray(self._added.view[start - split :])
        return np.concatenate([self._checked()[start:], self._added.view])

    def dot(self, query: Matrix) -> Matrix:
        """Every row's product with ``query``."""
        if not len(self._added):
            scores: Matrix = self._checked() @ query
            return scores
        return np.concatenate([self._checked() @ query, self._added.view @ query])

    def take(self, slots: Slots, *, scattered: bool = False) -> Matrix:
        """The rows of ``slots``, in order. ``scattered``: a few rows far apart, read from
        the file when the saved part has one (see the module docstring)."""
        split = self._saved.shape[0]
        saved = slots < split
        out = np.empty((slots.shape[0], self._added.view.shape[1]), dtype=np.float32)
        wanted = slots[saved]
        file = self._file
        # A lazily checked file's rows not checked yet are read from it (each row checked
        # as it is read), not through the map: checking them first would read them twice.
        # Rows checked already are read through the map (one gather, not a pread per row:
        # ~0.4 ms per search of 10k facts) unless the matrix is too large to map.
        large = scattered and self._saved.nbytes > MAPPED_READ_MAX
        if file is not None and (large or (file.lazy and not file.passed(wanted))):
            out[saved] = file.take(wanted)
        else:
            out[saved] = self._saved[wanted]
        out[~saved] = self._added.view[slots[~saved] - split]
        return out
