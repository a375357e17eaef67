"""The filters an index has searched lately, each as a mask over its slots with what the
two searches derive from it, remembered until the next write."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sedimem.storage.longterm.base import RecordFilter

__all__ = ["BoolArray", "FilterCache", "Filtered"]

BoolArray = npt.NDArray[np.bool_]


@dataclass(slots=True)
class Filtered:
    """A filter's mask, and what each half of a search derives from it when first needed
    (the keyword half sets ``everything`` and ``slots``, the vector half the rest: the two
    may run at once on two threads, so neither writes the other's fields)."""

    mask: BoolArray
    vector_slots: npt.NDArray[np.int64] | None = None
    vectors: npt.NDArray[np.float32] | None = None
    everything: bool | None = None  # the mask keeps every live row
    slots: npt.NDArray[np.int32] | None = None  # the mask's rows, ascending
    with_vector: BoolArray | None = None  # the mask's rows that have a vector
    matching: int = 0  # how many those are


class FilterCache:
    """The last ``size`` filters' masks, least recently used dropped first. Safe to share
    between the two halves of one search on two threads (see
    :mod:`~sedimem.retrieval.index.beside`); writes to the index clear it first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[RecordFilter, Filtered] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, flt: RecordFilter, mask: Callable[[RecordFilter], BoolArray]) -> Filtered:
        """The entry of ``flt``, its mask made by ``mask(flt)`` when not remembered (once:
        the other half of the search waits for it rather than making it again)."""
        try:
            hash(flt)
        except TypeError:  # an unhashable filter (a list where a tuple belongs): no caching
            return Filtered(mask(flt))
        with self._lock:
            entry = self._entries.get(flt)
            if entry is not None:
                self._entries.move_to_end(flt)
                return entry
            entry = self._entries[flt] = Filtered(mask(flt))
            if len(self._entries) > self._size:
                self._entries.popitem(last=False)
            return entry

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
