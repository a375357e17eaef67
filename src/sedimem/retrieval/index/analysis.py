"""Documents analysed into postings, batch by batch, in worker processes for bulk builds.

Tokenising and stemming is pure Python and holds the GIL: at a million documents it was
~65 s of one core, most of an index build. A bulk build (an index past
:data:`POOL_FROM` rows, in batches of :data:`BATCH_MIN` texts or more) therefore sends
its texts to a pool of worker processes, which return each batch as compact arrays (the
batch's own vocabulary, then per posting a document, a term number and a count), so no
Python object per posting crosses between processes. Smaller stores, and every ordinary
write, are analysed in the calling thread: no process is started for them.

Workers are *spawned* (a fork of a process whose other threads may hold locks can hang),
and a spawned process imports the main script again: a script without
``if __name__ == "__main__":`` would run its own top level in every worker. So the pool is
opt-in (``MemoryIndexEngine(analysis_workers=...)``, default none) for entry points that
are guarded. A pool that fails (a worker killed) is given up and the batch analysed in
the calling thread: the results are the same either way.
"""

from __future__ import annotations

import itertools
import multiprocessing
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.storage.longterm.sqlite.fts import fold_tokens

__all__ = [
    "BATCH_MIN",
    "POOL_FROM",
    "AnalysedBatch",
    "Backlog",
    "PendingBatch",
    "TextAnalysis",
    "encode",
]

# Rows in an index (this batch included) from which its batches go to the workers, and
# the smallest batch sent: below these, starting processes costs more than it saves.
POOL_FROM = 20_000
BATCH_MIN = 1_000

IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class AnalysedBatch:
    """A batch of documents as postings: one per distinct (document, term)."""

    vocab: list[str]  # the batch's distinct terms, in order of first occurrence
    lengths: IntArray  # terms per document (repeats counted)
    docs: IntArray  # per posting: its document's position in the batch, ascending
    terms: IntArray  # per posting: its term's position in ``vocab`` (ascending per document)
    tfs: npt.NDArray[np.float32]  # per posting: how often the term occurs in the document


def encode(docs: Sequence[Sequence[str]]) -> AnalysedBatch:
    """Analysed documents (lists of terms) as an :class:`AnalysedBatch`."""
    flat = list(itertools.chain.from_iterable(docs))
    vocab = dict(zip(dict.fromkeys(flat), itertools.count()))
    ids = np.fromiter(map(vocab.__getitem__, flat), dtype=np.int64, count=len(flat))
    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    return _counted(list(vocab), lengths, ids)


# ASCII bytes: letters and digits kept, every other byte a space (``fold_tokens``' rule
# restricted to ASCII), but for the marker that ends a text; bytes of other characters
# (UTF-8 of text already folded token by token) are kept.
_TABLE = bytes(c if c >= 128 or chr(c).isalnum() or c == 1 else 32 for c in range(256))


def analyse(analyzer: Analyzer, texts: Sequence[str]) -> AnalysedBatch:
    """The texts analysed as :meth:`Analyzer.terms` does, one by one, would, in far fewer
    Python steps: ASCII texts (the usual case) are lowered and split all at once, in C,
    with a marker token between texts; others are folded (``fold_tokens``) first. Each
    distinct token of the batch is stemmed once and its postings counted with numpy."""
    if not texts:
        return _counted([], np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64))
    pieces = [t if t.isascii() else " ".join(fold_tokens(t)) for t in texts]
    joined = " \x01 ".join(pieces)
    if joined.count("\x01") != len(pieces) - 1:  # a text holds the marker itself
        joined = " \x01 ".join(p.replace("\x01", " ") for p in pieces)
    # The marker first: it is token 0, and every text starts after one.
    flat = ("\x01 " + joined).encode().lower().translate(_TABLE).split()
    tokens = dict(zip(dict.fromkeys(flat), itertools.count()))
    ids = np.fromiter(map(tokens.__getitem__, flat), dtype=np.int64, count=len(flat))
    starts = np.flatnonzero(ids == 0)
    lengths = np.diff(np.append(starts, ids.shape[0])) - 1
    # Each distinct token's stem, the stems numbered in order of first occurrence (as
    # encode() numbers terms); token i > 0 is word i - 1.
    words = b" ".join(list(tokens)[1:]).decode().split(" ") if len(tokens) > 1 else []
    stems = analyzer.stem_many(words)
    vocab = dict(zip(dict.fromkeys(stems), itertools.count()))
    stem_of = np.fromiter(map(vocab.__getitem__, stems), dtype=np.int64, count=len(stems))
    return _counted(list(vocab), lengths, stem_of[ids[ids != 0] - 1])


def _counted(vocab: list[str], lengths: IntArray, ids: IntArray) -> AnalysedBatch:
    """Postings of documents given as their lengths and their terms' ids, concatenated."""
    n_terms = max(len(vocab), 1)
    doc_ids = np.repeat(np.arange(lengths.shape[0], dtype=np.int64), lengths)
    # One posting per distinct (document, term), counted: key = document * n_terms + term.
    keys, tfs = np.unique(doc_ids * n_terms + ids, return_counts=True)
    return AnalysedBatch(vocab, lengths, keys // n_terms, keys % n_terms, tfs.astype(np.float32))


_worker_analyzer: Analyzer | None = None


def _analyse_in_worker(texts: list[str]) -> AnalysedBatch:
    """A worker process's task (its analyzer, and so its stem cache, lives as long as it)."""
    global _worker_analyzer
    if _worker_analyzer is None:
        _worker_analyzer = Analyzer()
    return analyse(_worker_analyzer, texts)


class PendingBatch:
    """A batch being analysed: :meth:`result` waits for it (or analyses it here when its
    worker failed)."""

    def __init__(self, owner: TextAnalysis, texts: list[str], future: Future[AnalysedBatch]):
        self._owner = owner
        self._texts = texts
        self._future = future

    def done(self) -> bool:
        return self._future.done()

    def result(self) -> AnalysedBatch:
        try:
            return self._future.result()
        except BrokenProcessPool:
            self._owner.give_up()
            return analyse(self._owner.analyzer, self._texts)


class Backlog:
    """An index's batches being analysed, in slot order: each is handed back (to be
    added to the keyword index) once done, or waited for while more are out than the
    workers can take (which bounds the texts held and keeps the workers busy)."""

    def __init__(self) -> None:
        self._pending: deque[PendingBatch] = deque()

    def add(self, batch: PendingBatch, workers: int) -> Iterator[AnalysedBatch]:
        pending = self._pending
        pending.append(batch)
        while pending and (pending[0].done() or len(pending) > 2 * workers + 2):
            yield pending.popleft().result()

    def drain(self) -> Iterator[AnalysedBatch]:
        """Every batch, waited for."""
        while self._pending:
            yield self._pending.popleft().result()


class TextAnalysis:
    """The analyzer of a store's indexes and, for bulk builds, its worker processes
    (started at the first bulk batch, stopped by :meth:`close`). ``workers=0``: always
    analyse in the calling thread."""

    def __init__(self, analyzer: Analyzer, workers: int) -> None:
        self.analyzer = analyzer
        self._workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._failed = False
        self._lock = threading.Lock()  # close() may come from another thread

    @property
    def workers(self) -> int:
        return 0 if self._failed else self._workers

    def submit(self, texts: list[str], rows: int) -> PendingBatch:
        """Analyse ``texts``, the last of ``rows`` rows of an index: in a worker process
        for a bulk build, else now."""
        future: Future[AnalysedBatch]
        if self.workers > 1 and rows >= POOL_FROM and len(texts) >= BATCH_MIN:
            pool = self._started()
            if pool is not None:
                try:
                    future = pool.submit(_analyse_in_worker, texts)
                    return PendingBatch(self, texts, future)
                except (BrokenProcessPool, RuntimeError):
                    self.give_up()
        future = Future()
        future.set_result(analyse(self.analyzer, texts))
        return PendingBatch(self, texts, future)

    def _started(self) -> ProcessPoolExecutor | None:
        with self._lock:
            if self._pool is None and not self._failed:
                self._pool = ProcessPoolExecutor(
                    self._workers, mp_context=multiprocessing.get_context("spawn")
                )
            return self._pool

    def give_up(self) -> None:
        """Stop using worker processes (one failed): batches are analysed in-process."""
        with self._lock:
            self._failed = True
        self.close()

    def close(self) -> None:
        """Stop the worker processes (waiting for them: none is left behind)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
