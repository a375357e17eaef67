"""What the SQLite store needs of an in-memory search index, and nothing more.

The index itself is an engine (:mod:`sedimem.retrieval.index`): the store must not import
it (storage sits below the engines), so it states here the small surface it calls and
receives an object providing it. Rows reach an index as tuples in the order of
:data:`~sedimem.storage.longterm.sqlite.schema.INDEX_COLUMNS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Future
from typing import Any, Protocol

import numpy.typing as npt

from sedimem.storage.longterm.base import Ranked, RecordFilter, Traits, Vector

__all__ = ["IndexEngine", "SearchIndex"]


class SearchIndex(Protocol):
    """The index of one (tenant, kind); used by one thread at a time (the store's worker,
    or a caller holding the store's index lock)."""

    def __len__(self) -> int:
        """Slots held, dead ones included (the registry's memory budget counts them)."""
        ...

    @property
    def needs_compaction(self) -> bool:
        """True when so many rows are dead that rebuilding from the file is cheaper."""
        ...

    def add_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Append rows read as ``INDEX_COLUMNS`` (rids not seen before)."""
        ...

    def remove_rids(self, rids: Sequence[int]) -> None:
        """Forget the rows of these rids (unknown rids are ignored)."""
        ...

    def count(self, flt: RecordFilter) -> int:
        """How many live rows match ``flt`` (as ``COUNT(*)`` of the same filter would)."""
        ...

    def keyword_search(self, stems: Sequence[str], flt: RecordFilter, k: int) -> list[Ranked]:
        """The ``k`` best rows matching ``flt`` for query terms from
        :meth:`IndexEngine.query_terms`."""
        ...

    def vector_search(self, query: Vector, flt: RecordFilter, k: int) -> list[Ranked]:
        """The ``k`` rows matching ``flt`` closest to ``query`` (k whenever k match)."""
        ...

    def hybrid_search(
        self, stems: Sequence[str], query: Vector, flt: RecordFilter, k: int
    ) -> tuple[list[Ranked], list[Ranked]]:
        """Both searches at once: ``(keyword_search(...), vector_search(...))``, the two
        halves maybe run side by side on two threads (each returns what it would alone)."""
        ...

    def export(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        """The live rows of the index as JSON metadata and named arrays for an index file
        (nothing of a tombstoned row: a saved file holds no erased data)."""
        ...

    def traits(self, ids: Sequence[str]) -> Traits:
        """``(occurred_at, importance)`` of the live rows among ``ids`` (others omitted)."""
        ...

    def recent_rids(self, ids: Sequence[str]) -> dict[str, int]:
        """Row ids (``lt_record.rid``) of those of ``ids`` this index's latest searches
        returned, while their rows are live here (others omitted)."""
        ...

    def hnsw_job(self) -> Future[Any] | None:
        """Start a due background build and return the one running, if any."""
        ...

    def complete_graph(self) -> None:
        """Finish whatever background build a search would need, now, on this thread."""
        ...

    def info(self) -> dict[str, int]:
        """Sizes, for tests and monitoring."""
        ...

    def close(self) -> None:
        """Release what the index holds (background jobs included)."""
        ...


class IndexEngine(Protocol):
    """Creates the indexes of one store and analyses its query terms.

    A store owns the engine it is given (one engine per store: its analyzer is used from
    that store's worker thread) and closes it when the store closes.
    """

    def create(self, dimension: int | None) -> SearchIndex:
        """An empty index for vectors of ``dimension`` (``None``: no embedder bound)."""
        ...

    @property
    def lazy_sections(self) -> frozenset[str]:
        """Sections of a saved index that :meth:`restore` receives unchecked, and checks
        before it uses them (see :mod:`.indexfile`): the large ones a search reads little of."""
        ...

    def restore(self, meta: dict[str, Any], arrays: dict[str, npt.NDArray[Any]]) -> SearchIndex:
        """The index :meth:`SearchIndex.export` gave (arrays may be read-only maps)."""
        ...

    def query_terms(self, terms: Sequence[str]) -> list[str]:
        """The distinct analysed terms of a query, as :meth:`SearchIndex.keyword_search`
        takes them."""
        ...

    def close(self) -> None:
        """Stop background work (may block until a running job ends)."""
        ...
