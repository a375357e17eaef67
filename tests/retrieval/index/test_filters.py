"""The filters an index remembers: least recently used dropped first, unhashable ones
not remembered, a mask made once when two threads ask for it at once."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from sedimem.retrieval.index.filters import BoolArray, FilterCache
from sedimem.storage.longterm.base import RecordFilter


class Masks:
    """Makes masks and counts them (slowly: the other thread asks meanwhile)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.made: list[RecordFilter] = []
        self.delay = delay

    def __call__(self, flt: RecordFilter) -> BoolArray:
        self.made.append(flt)
        time.sleep(self.delay)
        return np.ones(3, dtype=np.bool_)


def test_the_least_recently_used_filter_goes_first() -> None:
    cache, masks = FilterCache(2), Masks()
    a, b, c = RecordFilter(kind="a"), RecordFilter(kind="b"), RecordFilter(kind="c")
    first = cache.get(a, masks)
    cache.get(b, masks)
    assert cache.get(a, masks) is first  # remembered, and now the most recent
    cache.get(c, masks)  # drops b
    cache.get(a, masks)
    cache.get(b, masks)
    assert masks.made == [a, b, c, b]
    cache.clear()
    cache.get(a, masks)
    assert masks.made[-1] == a


def test_an_unhashable_filter_is_answered_but_not_remembered() -> None:
    cache, masks = FilterCache(4), Masks()
    flt = RecordFilter(ids=["x"])  # type: ignore[arg-type]  # a list where a tuple belongs
    assert cache.get(flt, masks).mask.all()
    cache.get(flt, masks)
    assert len(masks.made) == 2


def test_two_threads_asking_at_once_share_one_mask() -> None:
    cache, masks = FilterCache(4), Masks(delay=0.05)
    flt = RecordFilter(kind="episode")
    start = threading.Barrier(2)

    def ask(_: int) -> int:
        start.wait()
        return id(cache.get(flt, masks))

    with ThreadPoolExecutor(2) as pool:
        entries = set(pool.map(ask, range(2)))
    assert len(entries) == 1
    assert masks.made == [flt]
