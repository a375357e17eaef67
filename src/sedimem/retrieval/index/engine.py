"""The in-memory index engine the SQLite store keeps beside its rows.

It holds what the indexes of one store share: the options (HNSW threshold, exact-search
limit), the analyzer (documents and queries analysed alike) and the single thread on which
HNSW graphs are built in the background, off every query's path; and the worker processes
that analyse a bulk build's texts (:mod:`~sedimem.retrieval.index.analysis`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy.typing as npt

from sedimem.retrieval.index.analysis import TextAnalysis
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.retrieval.index.memindex import IVF_THRESHOLD, IndexOptions, MemIndex

__all__ = ["MemoryIndexEngine"]


class MemoryIndexEngine:
    """Provides :class:`~sedimem.storage.longterm.sqlite.IndexEngine`; one per store.

    ``hnsw_threshold``: vectors in one (tenant, kind) past which an HNSW graph is built
    (``None``: always exact). ``hnsw_background=False`` builds it inside the search that
    needs it (deterministic; for tests). ``exact_limit``: a filter keeping at most this many
    rows is always searched exactly. ``ivf_threshold``: vectors at the first build past
    which an IVF partition is built instead of a graph (``None``: never).
    ``analysis_workers``: processes analysing the texts of a bulk build (20,000 rows or
    more; ``None``: one per core, at most 4; 0 or 1, the default: none, texts analysed
    inline). Off by default: the workers are spawned, and a spawned process imports the
    main script again, so a script without ``if __name__ == "__main__":`` would run its
    own top level (writes included) once per worker. Turn them on where the entry point is
    guarded (``benchmarks.recall`` does).
    """

    def __init__(
        self,
        *,
        hnsw_threshold: int | None = 4096,
        hnsw_background: bool = True,
        exact_limit: int = 2048,
        ivf_threshold: int | None = IVF_THRESHOLD,
        analysis_workers: int | None = 0,
    ) -> None:
        self._executor = (
            ThreadPoolExecutor(max_workers=1, thread_name_prefix="sedimem-hnsw")
            if hnsw_background and hnsw_threshold is not None
            else None
        )
        self._analyzer = Analyzer()
        workers = min(os.cpu_count() or 1, 4) if analysis_workers is None else analysis_workers
        self._analysis = TextAnalysis(self._analyzer, workers)
        self._options = IndexOptions(
            hnsw_threshold, exact_limit, self._executor, ivf_threshold, self._analysis
        )

    def create(self, dimension: int | None) -> MemIndex:
        return MemIndex(dimension, self._options, self._analyzer)

    @property
    def lazy_sections(self) -> frozenset[str]:
        # The vectors (their rows' blocks are checked as searches read them, the whole
        # matrix before a scan or a copy) and the graph (checked on a thread from the load
        # on, opened once it passes): 2 GB of a 2.4 GB file at a million records. An IVF
        # partition's codes are checked list by list as queries first probe them.
        return frozenset({"vectors", "hnsw", "ivf_codes"})

    def restore(self, meta: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> MemIndex:
        return MemIndex.restore(meta, arrays, self._options, self._analyzer)

    def query_terms(self, terms: Sequence[str]) -> list[str]:
        return self._analyzer.query_terms(terms)

    def close(self) -> None:
        self._analysis.close()
        if self._executor is not None:
            self._executor.shutdown(True, cancel_futures=True)
