"""The in-memory index of one (tenant, kind): filter columns, vectors and a BM25 index.

Rows are numbered by slot in the order they were written. A filter becomes a boolean mask
over the slots (cached per filter until the next write), and both searches are exact over
the masked set, so a filter never makes a search return fewer than ``k`` rows when ``k``
match. Deleted rows are tombstoned in the ``alive`` mask; the owner rebuilds the index when
too many are dead. Vector search is exact with numpy (the whole matrix when the filter
keeps much of it, a cached gathered sub-matrix when it keeps little), or, past a size
threshold, an approximate structure oversampled by the filter's selectivity with an exact
fallback: an HNSW graph, or, for an index whose first structure is built over
``ivf_threshold`` vectors or more (a bulk load), an IVF partition (much faster to build and
to open; see :mod:`~sedimem.retrieval.index.ivf`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from sedimem.ids import has_handle
from sedimem.retrieval.index.analysis import Backlog, TextAnalysis, analyse
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.retrieval.index.beside import side_by_side
from sedimem.retrieval.index.blas import one_blas_thread
from sedimem.retrieval.index.bm25 import KeywordIndex
from sedimem.retrieval.index.filters import BoolArray, FilterCache, Filtered
from sedimem.retrieval.index.growable import GrowableArray
from sedimem.retrieval.index.hnsw import HnswGraph, hnsw_available
from sedimem.retrieval.index.ivf import IVF_SECTIONS
from sedimem.retrieval.index.partitioned import IvfIndex
from sedimem.retrieval.index.strings import SavedStrings
from sedimem.retrieval.index.vectors import VectorRows
from sedimem.storage.longterm.base import Ranked, RecordFilter, Traits, Vector
from sedimem.storage.longterm.sqlite.filter import VISIBILITY_FIELDS
from sedimem.storage.longterm.sqlite.indexfile import (
    IndexSections,
    pack_strings,
    row_check,
    unpack_strings,
)
from sedimem.storage.longterm.sqlite.schema import INDEX_COLUMNS, NUMBER_COLUMNS, TEXT_COLUMNS

__all__ = ["IVF_THRESHOLD", "IndexOptions", "MemIndex"]

_EQUAL = ("user", "session", "outcome", "task_type", "subject", "predicate", "name")
_UNSET = -1  # code of NULL in a text column
_UNKNOWN = -2  # code of a value no row has: matches nothing
_MASK_CACHE = 64  # filters remembered per index (one per scope in use, typically)
_SUBMATRIX_MAX_ROWS = 50_000  # cache gathered vectors of a filter up to this many rows
# Vectors at an index's first build from which it gets an IVF partition, not a graph: at
# 1M a graph took 722 s to build here (~450-600 s of CPU), the partition ~35 s; 100k keeps
# its graph (R@10 0.94 there).
IVF_THRESHOLD = 262_144


@dataclass(frozen=True, slots=True)
class IndexOptions:
    hnsw_threshold: int | None = 4096  # vectors in a (tenant, kind) before HNSW; None: never
    exact_limit: int = 2048  # filtered candidates at or below this: always exact
    executor: Executor | None = None  # where HNSW graphs are built; None: inline
    # Vectors at a first build from which it is an IVF partition, not a graph (None: never)
    ivf_threshold: int | None = IVF_THRESHOLD
    analysis: TextAnalysis | None = None  # worker processes for bulk builds; None: inline


class MemIndex:
    """Used by one thread at a time (the store's worker, or a caller holding the store's
    index lock), which may hand a search's vector half to a helper thread meanwhile
    (:meth:`hybrid_search`): what both halves touch is guarded."""

    def __init__(self, dimension: int | None, options: IndexOptions, analyzer: Analyzer) -> None:
        self.dimension = dimension
        self._options = options
        self._analyzer = analyzer
        self._alive = GrowableArray(np.bool_)
        self._has_vector = GrowableArray(np.bool_)
        # rids ascend with slots (rows arrive in rid order, and rids are never reused), so a
        # rid's slot is a binary search; the id -> slot map is built when first needed (a
        # restored index serves its first searches without it).
        self._rids = GrowableArray(np.int64)
        # A restored index's ids stay in their file's text until a write (see strings.py).
        self._ids: list[str] | SavedStrings = []
        self._by_id: dict[str, int] | None = {}
        # ids of recent hits -> slots, for traits() and recent_rids() (cleared when a row dies)
        self._returned: dict[str, int] = {}
        # The generation before (kept when the current one fills up): the ids of the
        # previous search of a hybrid pair (keyword, then vector) stay found even when the
        # second search starts a new generation; otherwise the first traits() of such ids
        # built the whole id map (1M ids: ~0.5 s).
        self._earlier: dict[str, int] = {}
        self._returning = threading.Lock()  # guards the two generations
        self._codes: dict[str, int] = {}
        self._text = {c: GrowableArray(np.int32) for c in TEXT_COLUMNS}
        self._numbers = {c: GrowableArray(np.float64) for c in NUMBER_COLUMNS}
        self._vectors = None if dimension is None else VectorRows(dimension)
        self._sources: dict[str, list[int]] = {}
        self._keywords = KeywordIndex()
        self._backlog = Backlog()  # a bulk build's batches still being analysed
        self._cache = FilterCache(_MASK_CACHE)
        self._structure: HnswGraph | IvfIndex | None = None
        self.dead = 0
        self.live_vectors = 0

    def __len__(self) -> int:
        return len(self._alive)

    @property
    def needs_compaction(self) -> bool:
        return self.dead > 1000 and self.dead * 4 > len(self)

    # -- writes ----------------------------------------------------------------------------

    def add_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Append rows read as :data:`INDEX_COLUMNS` (new rids only)."""
        if not rows:
            return
        self._cache.clear()
        first = len(self)
        col = {name: i for i, name in enumerate(INDEX_COLUMNS)}
        codes = self._codes
        for name in TEXT_COLUMNS:
            i = col[name]
            self._text[name].extend(
                [_UNSET if r[i] is None else codes.setdefault(r[i], len(codes)) for r in rows]
            )
        for name in NUMBER_COLUMNS:
            i = col[name]
            self._numbers[name].extend([np.nan if r[i] is None else r[i] for r in rows])
        self._add_vectors([r[col["vector"]] for r in rows])
        self._alive.extend(np.ones(len(rows), dtype=np.bool_))
        rids = np.fromiter((r[col["rid"]] for r in rows), dtype=np.int64, count=len(rows))
        if len(self._rids) and rids[0] <= self._rids.view[-1]:
            raise ValueError("rows must arrive in ascending rid order")
        self._rids.extend(rids)
        if isinstance(self._ids, SavedStrings):
            self._ids = self._ids.list()
        at_id, at_sources = col["id"], col["sources"]
        new_ids = [r[at_id] for r in rows]
        self._ids.extend(new_ids)
        if self._by_id is not None:
            self._by_id.update(zip(new_ids, range(first, first + len(rows)), strict=True))
        for offset, row in enumerate(rows):
            if row[at_sources] != "[]":  # most records derive from nothing
                for source in json.loads(row[at_sources]):
                    self._sources.setdefault(source, []).append(first + offset)
        texts = [r[col["text"]] for r in rows]
        analysis = self._options.analysis
        if analysis is None:
            self._keywords.add_batch(analyse(self._analyzer, texts))
            return
        for batch in self._backlog.add(analysis.submit(texts, len(self)), analysis.workers):
            self._keywords.add_batch(batch)

    def _keyword_index(self) -> KeywordIndex:
        """The keyword index with every analysed batch in it."""
        for batch in self._backlog.drain():
            self._keywords.add_batch(batch)
        return self._keywords

    def _add_vectors(self, blobs: list[bytes | None]) -> None:
        dim = self.dimension or 0
        # A blob of another length cannot come from this binding (a rebind drops vectors).
        present = np.array([b is not None and len(b) == 4 * dim for b in blobs], dtype=np.bool_)
        if self._vectors is None:
            present[:] = False
        else:
            if present.all():  # the usual case: one copy of every blob at once
                joined = b"".join(blobs)  # type: ignore[arg-type]
                block = np.frombuffer(joined, dtype=np.float32).reshape(len(blobs), dim)
            else:
                block = np.zeros((len(blobs), dim), dtype=np.float32)
                for i in np.flatnonzero(present).tolist():
                    block[i] = np.frombuffer(blobs[i], dtype=np.float32)  # type: ignore[arg-type]
            self._vectors.extend(block)
        self._has_vector.extend(present)
        self.live_vectors += int(present.sum())

    def remove_rids(self, rids: Sequence[int]) -> None:
        """Tombstone the rows of these rids (unknown rids are ignored)."""
        alive = self._alive.view
        for rid in rids:
            slot = self._slot_of_rid(rid)
            if slot is None or not alive[slot]:
                continue
            alive[slot] = False
            self.dead += 1
            self._keyword_index().remove(slot)
            if self._has_vector.view[slot]:
                self.live_vectors -= 1
            by_id = self._by_id
            if by_id is not None and by_id.get(self._ids[slot]) == slot:
                del by_id[self._ids[slot]]
            self._returned.clear()
            self._earlier.clear()
            self._cache.clear()

    def _slot_of_rid(self, rid: int) -> int | None:
        rids = self._rids.view
        slot = int(np.searchsorted(rids, rid))
        return slot if slot < rids.shape[0] and rids[slot] == rid else None

    def _slot_of_id(self) -> dict[str, int]:
        """Live rows by id (a replaced record's old row is dead: its id maps to the new)."""
        if self._by_id is None:
            if isinstance(self._ids, SavedStrings):  # every id is read: make them once
                self._ids = self._ids.list()
            ids = self._ids
            self._by_id = {ids[s]: s for s in np.flatnonzero(self._alive.view).tolist()}
        return self._by_id

    # -- saving ----------------------------------------------------------------------------

    def export(self) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
        """What :meth:`restore` takes back, as JSON metadata and arrays: live rows only,
        renumbered (no erased text, term or vector survives in a file). The HNSW graph is
        included while no row is tombstoned (its keys are slots: it is rebuilt otherwise)."""
        live: BoolArray | None = self._alive.view if self.dead else None

        def rows(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
            return values if live is None else values[live]

        kept = range(len(self)) if live is None else np.flatnonzero(live).tolist()
        ids, id_offsets = pack_strings([self._ids[i] for i in kept])
        # Only the labels live rows carry (an erased user's name goes with its rows).
        text = {c: rows(a.view) for c, a in self._text.items()}
        present = np.concatenate([np.empty(0, dtype=np.int32), *text.values()])
        used = np.unique(present[present >= 0])
        table = np.full(len(self._codes) + 1, _UNSET, dtype=np.int32)
        table[used] = np.arange(used.shape[0], dtype=np.int32)
        text = {c: table[v] for c, v in text.items()}  # _UNSET (-1) maps to table[-1]
        labels = list(self._codes)
        codes, code_offsets = pack_strings([labels[i] for i in used.tolist()])
        renumber = None if live is None else np.cumsum(live) - 1
        sources = []
        for name, slots in sorted(self._sources.items()):
            if renumber is not None:
                assert live is not None
                slots = [int(renumber[s]) for s in slots if live[s]]
            if slots:
                sources.append((name, slots))
        names, name_offsets = pack_strings([name for name, _ in sources])
        counts = np.fromiter((len(s) for _, s in sources), dtype=np.int64, count=len(sources))
        source_ptr = np.zeros(len(sources) + 1, dtype=np.int64)
        np.cumsum(counts, out=source_ptr[1:])
        arrays: dict[str, npt.NDArray[Any]] = {
            "rids": rows(self._rids.view),
            "ids": ids,
            "id_offsets": id_offsets,
            "codes": codes,
            "code_offsets": code_offsets,
            "has_vector": rows(self._has_vector.view),
            "source_names": names,
            "source_name_offsets": name_offsets,
            "source_ptr": source_ptr,
            "source_slots": np.asarray([s for _, slots in sources for s in slots], dtype=np.int64),
        }
        arrays.update({f"text.{c}": v for c, v in text.items()})
        arrays.update({f"number.{c}": rows(a.view) for c, a in self._numbers.items()})
        arrays.update({f"bm25.{n}": a for n, a in self._keyword_index().state(live).items()})
        if self._vectors is not None:
            arrays["vectors"] = rows(self._vectors.whole())
        meta: dict[str, Any] = {"dimension": self.dimension, "hnsw_covered": 0}
        structure = None if live is not None else self._structure
        if isinstance(structure, IvfIndex):
            sections = structure.sections()
            if sections:
                arrays.update(sections)
                meta["hnsw_covered"] = structure.covered
        elif structure is not None:
            graph = structure.saved()
            if graph is not None and structure.center is not None:
                arrays["hnsw"] = graph
                arrays["hnsw_center"] = structure.center
                meta["hnsw_covered"] = structure.covered
        return meta, arrays

    @classmethod
    def restore(
        cls,
        meta: dict[str, Any],
        arrays: dict[str, npt.NDArray[Any]],
        options: IndexOptions,
        analyzer: Analyzer,
    ) -> MemIndex:
        """An index from :meth:`export`'s output; large arrays stay where they are (a
        memory map) until a write needs room."""
        dimension = meta["dimension"]
        index = cls(None if dimension is None else int(dimension), options, analyzer)
        count = int(arrays["rids"].shape[0])
        index._rids = GrowableArray.adopt(arrays["rids"])
        index._ids = SavedStrings(arrays["ids"], arrays["id_offsets"])
        index._by_id = None
        codes = unpack_strings(arrays["codes"], arrays["code_offsets"])
        index._codes = dict(zip(codes, range(len(codes)), strict=True))
        index._alive.extend(np.ones(count, dtype=np.bool_))
        index._has_vector.extend(arrays["has_vector"])
        index.live_vectors = int(np.count_nonzero(arrays["has_vector"]))
        index._text = {c: GrowableArray.adopt(arrays[f"text.{c}"]) for c in TEXT_COLUMNS}
        index._numbers = {c: GrowableArray.adopt(arrays[f"number.{c}"]) for c in NUMBER_COLUMNS}
        names = unpack_strings(arrays["source_names"], arrays["source_name_offsets"])
        bounds, slots = arrays["source_ptr"].tolist(), arrays["source_slots"].tolist()
        index._sources = {name: slots[bounds[i] : bounds[i + 1]] for i, name in enumerate(names)}
        index._keywords = KeywordIndex.restore(
            {n[5:]: a for n, a in arrays.items() if n.startswith("bm25.")}
        )
        if index.dimension is not None:
            file = arrays.rows("vectors") if isinstance(arrays, IndexSections) else None
            index._vectors = VectorRows.adopt(arrays["vectors"], file)
        covered = int(meta.get("hnsw_covered", 0))
        graph_saved = "hnsw" in arrays and "hnsw_center" in arrays
        if all(name in arrays for name in IVF_SECTIONS) and index.dimension is not None:
            index._structure = IvfIndex(options.executor)
            # Its codes are checked list by list as queries first probe them.
            lazy = arrays.lazy("ivf_codes") if isinstance(arrays, IndexSections) else None
            check = None if lazy is None else row_check(lazy, index.dimension)
            index._structure.view(arrays, check)
        elif graph_saved and index.dimension is not None and hnsw_available():
            index._structure = HnswGraph(index.dimension, options.executor)
            # A lazily read graph is checked on a thread of its own from now on, while the
            # first search runs its keyword half; the graph is opened once it passes.
            checked = arrays.check_later("hnsw") if isinstance(arrays, IndexSections) else None
            index._structure.view(arrays["hnsw"], covered, arrays["hnsw_center"], checked)
        return index

    # -- filters ---------------------------------------------------------------------------

    def _code(self, value: str) -> int:
        return self._codes.get(value, _UNKNOWN)

    def _mask(self, flt: RecordFilter) -> BoolArray:
        mask: BoolArray = self._alive.view.copy()
        text = {name: column.view for name, column in self._text.items()}
        num = {name: column.view for name, column in self._numbers.items()}
        scope = flt.visible_to
        if scope is not None:
            for field in VISIBILITY_FIELDS:
                value = getattr(scope, field)
                if value is not None:
                    mask &= (text[field] == _UNSET) | (text[field] == self._code(value))
            if not flt.all_users:
                user = text["user"] == _UNSET
                if scope.user is not None:
                    user |= text["user"] == self._code(scope.user)
                mask &= user
        for field in _EQUAL:
            value = getattr(flt, field)
            if value is not None:
                mask &= text[field] == self._code(value)
        for field, values in (("name", flt.names), ("predicate", flt.predicates)):
            if values is not None:  # any of these
                codes = np.asarray([self._code(v) for v in values], dtype=text[field].dtype)
                mask &= np.isin(text[field], codes)
        if flt.ids is not None:
            by_id = self._slot_of_id()
            mask &= self._select(by_id.get(i) for i in flt.ids)
        if (h := flt.handle) is not None:
            mask &= self._select(s for i, s in self._slot_of_id().items() if has_handle(i, h))
        if flt.derived_from is not None:
            mask &= self._select(s for src in flt.derived_from for s in self._sources.get(src, []))
        if flt.occurred_from is not None:
            mask &= num["occurred_at"] >= flt.occurred_from
        if flt.occurred_before is not None:
            mask &= num["occurred_at"] < flt.occurred_before
        if flt.min_importance is not None:
            mask &= num["importance"] >= flt.min_importance
        # NaN (NULL) compares false, as in SQL: without valid_from, never "valid at" a time
        if flt.valid_at is not None:
            t = flt.valid_at
            mask &= (num["valid_from"] <= t) & (np.isnan(num["valid_to"]) | (num["valid_to"] > t))
        if flt.known_at is not None:
            t, gone = flt.known_at, num["invalidated_at"]
            mask &= (num["recorded_at"] <= t) & (np.isnan(gone) | (gone > t))
        if flt.current:
            mask &= np.isnan(num["invalidated_at"])
        return mask

    def _select(self, slots: Any) -> BoolArray:
        chosen = np.zeros(len(self), dtype=np.bool_)
        found = [s for s in slots if s is not None]
        chosen[np.asarray(found, dtype=np.int64)] = True
        return chosen

    def count(self, flt: RecordFilter) -> int:
        live = self._cache.get(flt, self._mask).mask  # live rows only, as searched
        return int(np.count_nonzero(live))

    def hybrid_search(
        self, stems: Sequence[str], query: Vector, flt: RecordFilter, k: int
    ) -> tuple[list[Ranked], list[Ranked]]:
        """Both searches, side by side on two threads when the vector half scans an IVF
        partition (see :mod:`~sedimem.retrieval.index.beside`), else in turn."""
        keyword = partial(self.keyword_search, stems, flt, k)
        vector = partial(self.vector_search, query, flt, k)
        structure, entry = self._structure, self._cache.get(flt, self._mask)
        scans = isinstance(structure, IvfIndex) and structure.ready
        if scans and self._approximate(entry):  # (not a selective filter's exact search)
            return side_by_side(keyword, vector)
        return keyword(), vector()

    def keyword_search(self, stems: Sequence[str], flt: RecordFilter, k: int) -> list[Ranked]:
        entry = self._cache.get(flt, self._mask)
        if entry.everything is None:
            kept = int(np.count_nonzero(entry.mask))
            entry.everything = kept == len(self) - self.dead
            if kept * 4 < len(self):  # selective: its rows may be looked up, see search()
                entry.slots = np.flatnonzero(entry.mask).astype(np.int32)
        # A filter keeping every live row (one owner's store, say) filters nothing.
        allowed = None if entry.everything else entry.mask
        slots, scores = self._keyword_index().search(
            stems, self._alive.view, allowed, k, entry.slots
        )
        return self._ranked(slots.tolist(), scores.tolist())

    def vector_search(self, query: Vector, flt: RecordFilter, k: int) -> list[Ranked]:
        if self._vectors is None or k <= 0 or self.live_vectors == 0:
            return []
        entry = self._cache.get(flt, self._mask)
        wanted = self._approximate(entry)
        candidates, matching = entry.with_vector, entry.matching
        if candidates is None or matching == 0:
            return []
        if wanted:
            self._refresh_structure()
            structure = self._structure
            if structure is not None and structure.ready:
                found = self._approximate_search(structure, query, candidates, matching, k)
                if found is not None:
                    return found
        return self._exact(query, entry, candidates, matching, k)

    def _approximate(self, entry: Filtered) -> bool:
        """Whether the filter's vector search goes to the graph or partition: selective
        filters are searched exactly (cheaper), and start no build (a process whose searches
        never need the graph never builds it)."""
        if entry.with_vector is None:
            entry.with_vector = entry.mask & self._has_vector.view
            entry.matching = int(np.count_nonzero(entry.with_vector))
        matching = entry.matching
        return matching > self._options.exact_limit and matching * 5 >= self.live_vectors

    def _exact(
        self, query: Vector, entry: Filtered, candidates: BoolArray, matching: int, k: int
    ) -> list[Ranked]:
        vectors = self._matrix()
        if matching * 4 > len(self):
            # Most rows match: one pass over the contiguous matrix beats gathering them.
            with one_blas_thread():
                scores = vectors.dot(query)
            slots = np.flatnonzero(candidates)
            return self._top(slots, scores[slots], k)
        if entry.vector_slots is None:
            entry.vector_slots = np.flatnonzero(candidates)
            if matching <= _SUBMATRIX_MAX_ROWS:
                entry.vectors = vectors.take(entry.vector_slots)
        sub = entry.vectors if entry.vectors is not None else vectors.take(entry.vector_slots)
        with one_blas_thread():
            scores = sub @ query
        return self._top(entry.vector_slots, scores, k)

    def _approximate_search(
        self,
        structure: HnswGraph | IvfIndex,
        query: Vector,
        candidates: BoolArray,
        matching: int,
        k: int,
    ) -> list[Ranked] | None:
        """Oversample by the filter's selectivity; ``None`` when too few rows survive.

        ``structure`` is a graph or an IVF partition. Every hit is re-scored exactly
        (float32 cosines: the graph's int8 order alone agrees with the exact top 50 on ~0.7
        of it on LoCoMo questions at 100k, re-scored ~0.84) from rows read one by one
        (:class:`VectorRows`), and the uncovered tail (rows written since the structure was
        built) is scored exactly."""
        covered = structure.covered
        want = min(covered, int(2 * k * self.live_vectors / matching) + 32)
        slots = structure.search(query, want)
        slots = slots[candidates[slots]]
        tail = covered + np.flatnonzero(candidates[covered:])
        slots = np.concatenate([slots, tail])
        if slots.shape[0] < min(k, matching):
            return None
        rows = self._matrix().take(slots, scattered=True)
        with one_blas_thread():
            scores = rows @ query
        return self._top(slots, scores, k)

    def traits(self, ids: Sequence[str]) -> Traits:
        returned, earlier = self._returned, self._earlier
        found: list[str] = []
        slots: list[int] = []
        for rid in ids:
            slot = returned.get(rid)
            if slot is None:
                slot = earlier.get(rid)
            if slot is None:
                slot = self._slot_of_id().get(rid)  # live rows only
            if slot is not None:
                found.append(rid)
                slots.append(slot)
        if not slots:
            return {}
        at = np.asarray(slots, dtype=np.int64)  # one gather per column, not one per row
        occurred = self._numbers["occurred_at"].view[at].tolist()
        importance = self._numbers["importance"].view[at].tolist()
        return dict(zip(found, zip(occurred, importance, strict=True), strict=True))

    def recent_rids(self, ids: Sequence[str]) -> dict[str, int]:
        returned, earlier = self._returned, self._earlier
        found = [
            (rid, slot) for rid in ids if (slot := returned.get(rid, earlier.get(rid))) is not None
        ]
        if not found:
            return {}
        at = np.fromiter((slot for _, slot in found), dtype=np.int64, count=len(found))
        rids = self._rids.view[at].tolist()
        return {rid: row for (rid, _), row in zip(found, rids, strict=True)}

    def _top(self, slots: npt.NDArray[np.int64], scores: Any, k: int) -> list[Ranked]:
        if slots.shape[0] > k:
            keep = np.argpartition(-scores, k - 1)[:k]
            slots, scores = slots[keep], scores[keep]
        order = np.lexsort((slots, -scores))  # ties: older slot first
        return self._ranked(slots[order].tolist(), scores[order].tolist())

    def _ranked(self, slots: list[int], scores: list[float]) -> list[Ranked]:
        """Hits as (id, score); their slots are remembered for :meth:`traits`, which the
        caller asks for these very ids next."""
        ids = self._ids
        found = ids.take(slots) if isinstance(ids, SavedStrings) else [ids[s] for s in slots]
        with self._returning:  # (a hybrid search's halves may both rank at once)
            if len(self._returned) > 4096:
                self._earlier, self._returned = self._returned, {}
            self._returned.update(zip(found, slots, strict=True))
        return list(zip(found, map(float, scores), strict=True))

    def _matrix(self) -> VectorRows:
        assert self._vectors is not None
        return self._vectors

    def _refresh_structure(self) -> None:
        threshold = self._options.hnsw_threshold
        if threshold is None or not hnsw_available() or self.dimension is None:
            return
        if self._structure is None:
            if self.live_vectors < threshold:
                return
            self._structure = self._new_structure()
        # Extend once the exact tail is an eighth of the graph: the tail stays cheap to scan.
        tail = max(2048, self._structure.covered // 8) if self._structure.ready else 1
        vectors = self._matrix()
        self._structure.refresh(len(vectors), vectors.since, tail)

    def complete_graph(self) -> None:
        """Build the HNSW graph over every vector now (inline, every core) when the index
        is large enough to have one: before a save, so a reopened store has none to build."""
        threshold = self._options.hnsw_threshold
        if threshold is None or not hnsw_available() or self._vectors is None or self.dead:
            return  # (with tombstones, a save compacts the rows and drops the graph anyway)
        if self._structure is None:
            if self.live_vectors < threshold:
                return
            self._structure = self._new_structure()
        vectors = self._matrix()
        self._structure.complete(len(vectors), vectors.since)

    def _new_structure(self) -> HnswGraph | IvfIndex:
        """A graph, or past ``ivf_threshold`` vectors an IVF partition."""
        assert self.dimension is not None
        ivf = self._options.ivf_threshold
        if ivf is not None and self.live_vectors >= ivf:
            return IvfIndex(self._options.executor)
        return HnswGraph(self.dimension, self._options.executor)

    def hnsw_job(self) -> Future[Any] | None:
        """Swap in a finished HNSW job, start a due one, and return the one running."""
        if self.live_vectors:
            self._refresh_structure()
        return None if self._structure is None else self._structure.job

    def info(self) -> dict[str, int]:
        """Sizes, for tests and monitoring."""
        return {
            "slots": len(self),
            "dead": self.dead,
            "live_vectors": self.live_vectors,
            "hnsw_covered": 0 if self._structure is None else self._structure.covered,
        }

    def close(self) -> None:
        if self._structure is not None:
            self._structure.close()
