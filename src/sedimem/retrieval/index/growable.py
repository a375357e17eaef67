"""A numpy array that grows by appending, with amortised O(1) appends.

The in-memory index appends rows as records are written; re-allocating a 100k x 256 matrix
on every batch would cost more than the searches it serves, so capacity doubles instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["GrowableArray"]


class GrowableArray:
    """Rows of a fixed trailing shape; :attr:`view` is the filled part (no copy)."""

    def __init__(
        self, dtype: npt.DTypeLike, *, width: int | None = None, capacity: int = 64
    ) -> None:
        shape: tuple[int, ...] = (capacity,) if width is None else (capacity, width)
        self._data: npt.NDArray[Any] = np.empty(shape, dtype=dtype)
        self._size = 0

    @classmethod
    def adopt(cls, values: npt.NDArray[Any]) -> GrowableArray:
        """Rows held as given, uncopied (a read-only memory map may back them): the first
        append that needs room copies them into a larger buffer; nothing writes in place."""
        grown = cls(values.dtype, width=None if values.ndim == 1 else values.shape[1], capacity=0)
        grown._data = values
        grown._size = values.shape[0]
        return grown

    def __len__(self) -> int:
        return self._size

    @property
    def view(self) -> npt.NDArray[Any]:
        return self._data[: self._size]

    def extend(self, values: npt.ArrayLike) -> None:
        rows = np.asarray(values, dtype=self._data.dtype)
        count = rows.shape[0] if rows.ndim else 1
        needed = self._size + count
        if needed > self._data.shape[0]:
            capacity = max(needed, 2 * self._data.shape[0])
            grown = np.empty((capacity, *self._data.shape[1:]), dtype=self._data.dtype)
            grown[: self._size] = self._data[: self._size]
            self._data = grown
        self._data[self._size : needed] = rows
        self._size = needed
