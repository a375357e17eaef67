"""How an approximate structure (an HNSW graph, an IVF partition) grows beside its index.

Both cover the index's slots ``[0, covered)``; queries scan the uncovered tail exactly.
Once the tail is long enough, a job on the engine's background thread makes a new structure
from the current one and the tail, and the next query swaps it in. Building never happens
in a query's path, and a job only touches what no query can see (a copy, or an immutable
value). A job that fails leaves the structure as it was and marks it ``failed``: vector
search stays exact, which is correct, only slower; the reason is logged once.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

__all__ = ["Built", "Rows"]

log = logging.getLogger(__name__)

#: ``rows(start)``: a copy of the vectors of slots ``[start, total)``.
Rows = Callable[[int], npt.NDArray[np.float32]]
#: What a job starts from (the structure as it is, or a copy of it).
Base = TypeVar("Base")
#: What a job makes (adopted by the structure when the job is collected).
Made = TypeVar("Made")


class Built(ABC, Generic[Base, Made]):
    """The build lifecycle; owned by one in-memory index, every method on its thread."""

    #: What is built, for the log line of a failed job.
    what = "structure"

    def __init__(self, executor: Executor | None) -> None:
        self._executor = executor  # None: build inline (deterministic, for tests)
        self._job: Future[Made] | None = None
        self.failed = False

    @property
    def job(self) -> Future[Made] | None:
        return self._job

    @property
    @abstractmethod
    def covered(self) -> int:
        """Slots ``[0, covered)`` are in the structure."""

    def refresh(self, total: int, rows: Rows, min_tail: int) -> None:
        """Swap in a finished job; start one when ``min_tail`` or more of the ``total``
        slots are uncovered (the rows are copied only when a job starts: a snapshot, as
        the index may grow meanwhile)."""
        if self._job is not None:
            if not self._job.done():
                return
            self._collect()
        if self.failed or total - self.covered < min_tail:
            return
        start = self.covered
        base = self._base()
        tail = rows(start)
        if self._executor is None:
            self._adopt(self._extend(base, tail, start, False))
        else:
            self._job = self._executor.submit(self._extend, base, tail, start, False)

    def complete(self, total: int, rows: Rows) -> None:
        """Cover all ``total`` slots now, on this thread (a running job is waited for
        first): for a structure about to be saved, so that the process that reads the file
        has nothing left to build."""
        if self._job is not None:
            self._collect()
        if self.failed or total <= self.covered:
            return
        start = self.covered
        self._adopt(self._extend(self._base(), rows(start), start, True))

    def _collect(self) -> None:
        """Swap in the job's structure (waiting for it if it runs still)."""
        assert self._job is not None
        job, self._job = self._job, None
        try:
            made = job.result()
        except Exception:
            log.exception("building the %s failed; vector search stays exact", self.what)
            self.failed = True
        else:
            self._adopt(made)

    @abstractmethod
    def _base(self) -> Base:
        """What a job extends: safe to hand to another thread (a copy, or immutable)."""

    @abstractmethod
    def _extend(self, base: Base, tail: npt.NDArray[np.float32], start: int, now: bool) -> Made:
        """``base`` extended by ``tail`` (slots from ``start``); ``now``: in the caller's
        path (it may use every core)."""

    @abstractmethod
    def _adopt(self, made: Made) -> None:
        """Serve what a job made."""
