"""Saved strings read in place: a restored index's record ids.

A list of a million ids is a million Python strings (~130 ms to make, ~85 MB) before a
reopened store's first search, which reads ten of them. :class:`SavedStrings` keeps the
decoded text and the offsets of :func:`~sedimem.storage.longterm.sqlite.indexfile.pack_strings`
and makes a string only when asked for it; the owner turns it into a list at its first write.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

import numpy as np
import numpy.typing as npt

from sedimem.storage.longterm.sqlite.indexfile import unpack_strings

__all__ = ["SavedStrings"]


class SavedStrings(Sequence[str]):
    def __init__(self, blob: npt.NDArray[np.uint8], offsets: npt.NDArray[np.int64]) -> None:
        self._blob = blob
        self._text = blob.tobytes().decode("utf-8", "surrogatepass")
        self._offsets = offsets
        self._count = max(int(offsets.shape[0]) - 1, 0)

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            return self.list()[i]
        if i < 0:
            i += self._count
        if not 0 <= i < self._count:
            raise IndexError(i)
        lo, hi = self._offsets[i : i + 2].tolist()  # (one call into numpy, not two)
        text: str = self._text[lo : hi - 1]
        return text

    def take(self, positions: list[int]) -> list[str]:
        """The strings at ``positions`` (each in range), with one gather of their offsets
        rather than one look-up per string (a search's hits: ~100 per hybrid recall)."""
        if not positions:
            return []
        at = np.asarray(positions, dtype=np.int64)
        if int(at.min()) < 0 or int(at.max()) >= self._count:
            raise IndexError(f"positions outside 0..{self._count - 1}")
        starts, ends = self._offsets[at].tolist(), self._offsets[at + 1].tolist()
        text = self._text
        return [text[lo : hi - 1] for lo, hi in zip(starts, ends, strict=True)]

    def list(self) -> list[str]:
        """Every string, as a new list."""
        return unpack_strings(self._blob, self._offsets)
