"""A hybrid search's two halves at once, on two threads.

An IVF partition's vector search over a million rows takes milliseconds, spent in numkong
and numpy calls that release the GIL, and so are most of the keyword half's; run side by
side on two cores the pair takes about as long as the longer half (measured at 1M: p50
5.9 -> 4.0 ms). An HNSW graph's search (usearch keeps the GIL) or a small exact one is
not worth a thread hand-off, so an index runs those in turn (see
:meth:`~sedimem.retrieval.index.memindex.MemIndex.hybrid_search`).

One helper thread serves the process: a search that finds it busy with another search's
half runs both halves itself, in turn, rather than queue behind it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

__all__ = ["side_by_side"]

A = TypeVar("A")
B = TypeVar("B")

_free = threading.Lock()  # held while a search uses the helper
_helper: ThreadPoolExecutor | None = None


def side_by_side(here: Callable[[], A], there: Callable[[], B]) -> tuple[A, B]:
    """``(here(), there())``, ``there`` run on the helper thread meanwhile when it is free.
    Returns once both have finished, whichever raised (``here``'s error first)."""
    if not _free.acquire(blocking=False):
        return here(), there()
    try:
        job: Future[B] = _executor().submit(there)
        try:
            first = here()
        finally:
            wait([job])  # the index is not left to the helper after this search
        return first, job.result()
    finally:
        _free.release()


def _executor() -> ThreadPoolExecutor:
    global _helper
    if _helper is None:
        _helper = ThreadPoolExecutor(1, thread_name_prefix="sedimem-search")
    return _helper


def _forget_helper() -> None:
    """A forked child has no helper thread, and maybe a lock its parent held: new ones."""
    global _helper, _free
    _helper, _free = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_helper)
