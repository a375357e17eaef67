"""An in-memory inverted index scored with BM25, exact over any subset of its documents.

Posting lists live in numpy "segments" (compressed sparse rows: per term, the slots that
contain it and how often). Appending a batch adds a small segment; segments are merged
like an LSM tree (a new one is folded into its neighbour while it is at least a quarter of
its size), so a term is found in O(log n) segments and appends stay cheap. Deleted
documents are not removed from postings: the caller passes an ``alive`` mask, and document
frequencies are counted over live documents only, so scores stay exact.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from sedimem.retrieval.index.analysis import AnalysedBatch, encode
from sedimem.retrieval.index.growable import GrowableArray
from sedimem.retrieval.index.strings import SavedStrings
from sedimem.storage.longterm.sqlite.indexfile import pack_strings

__all__ = ["KeywordIndex"]

K1 = 1.2  # the usual BM25 constants (also FTS5's)
B = 0.75
_AVGDL_DRIFT = 0.01
# A filter's documents are looked up in the posting lists (instead of every posting
# scored) when the postings outnumber them this many times: a lookup is a binary search.
_LOOKUP_RATIO = 8
# Scores are summed by one ``np.bincount`` over every posting (a new array of n scores)
# when the postings number at least a 32nd of the collection; fewer are scattered into
# a reused buffer and de-duplicated, touching no n-wide array. At 1M LoCoMo-recombined
# episodes a question has ~150k postings (p50): summed, its keyword search took 3.5 ms
# p50 / 6.7 ms p95, scattered 14 / 29 ms (the scattered path costs ~100 ns a posting,
# the summed one ~2 ms for the n-wide passes plus a few ns a posting).
_DENSE_RATIO = 32
# Top k of many scores: a bound from every 16th score first (see _contenders), from 4,096.
_SAMPLE_STEP = 16
_SAMPLED_MIN = 4096
_KNOWN_TERMS = 65_536  # query terms remembered by a saved vocabulary (see _SavedVocab)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]


@dataclass(slots=True)
class _Segment:
    ptr: IntArray  # postings of term t are [ptr[t], ptr[t + 1])
    slots: npt.NDArray[np.int32]
    tfs: FloatArray
    # Per posting, the BM25 term-frequency part (everything but idf), for ``avgdl``.
    weights: FloatArray | None = None
    avgdl: float = 0.0
    # False for weights read from a file: used only for the very ``avgdl`` they were
    # computed for, so a reopened index that caught up with later writes scores exactly
    # as one built from the rows (the drift allowance is for a running index).
    loose: bool = True

    def weigh(self, doc_len: FloatArray, avgdl: float) -> None:
        """(Re)compute :attr:`weights` unless they were computed for a close ``avgdl``:
        the mean length moves a little with every write, and a 1% drift changes scores by
        far less than the ranking cares about, so queries mostly reuse them."""
        if self.weights is not None:
            drift = abs(self.avgdl - avgdl)
            if drift <= _AVGDL_DRIFT * avgdl if self.loose else drift == 0.0:
                return
        norm = K1 * (1.0 - B + B * doc_len[self.slots] / avgdl)
        self.weights = (self.tfs * (K1 + 1.0) / (self.tfs + norm)).astype(np.float32)
        self.avgdl = avgdl
        self.loose = True

    @property
    def size(self) -> int:
        return int(self.slots.shape[0])

    def postings(self, term: int) -> tuple[npt.NDArray[np.int32], FloatArray] | None:
        """Slots holding ``term`` and their weights (call :meth:`weigh` first)."""
        if term + 1 >= self.ptr.shape[0]:
            return None
        lo, hi = int(self.ptr[term]), int(self.ptr[term + 1])
        assert self.weights is not None
        return (self.slots[lo:hi], self.weights[lo:hi]) if hi > lo else None


def _segment(terms: IntArray, slots: IntArray, tfs: FloatArray, n_terms: int) -> _Segment:
    """Postings sorted by (term, slot), given in slot order."""
    order = np.argsort(terms, kind="stable")  # stable: slots stay ascending within a term
    counts = np.bincount(terms, minlength=n_terms)
    ptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(counts, out=ptr[1:])
    return _Segment(ptr, slots[order].astype(np.int32), tfs[order])


def _merge(a: _Segment, b: _Segment, n_terms: int) -> _Segment:
    """One segment of ``a`` and the newer ``b`` (every slot of ``b`` after ``a``'s): each
    term's postings are ``a``'s then ``b``'s, so every posting's place is computed, in
    O(postings) with no sort (re-sorting at every merge was ~15 s of a 1M build)."""
    pa, pb = _padded(a.ptr, n_terms), _padded(b.ptr, n_terms)
    ptr = pa + pb
    ids = np.arange(n_terms)
    terms_a, terms_b = np.repeat(ids, np.diff(pa)), np.repeat(ids, np.diff(pb))
    # a's i-th posting (of term t) lands at ptr[t] + (i - pa[t]) = i + pb[t]; b's j-th at
    # ptr[t] + (pa[t + 1] - pa[t]) + (j - pb[t]) = j + pa[t + 1].
    place_a = np.arange(a.size) + pb[terms_a]
    place_b = np.arange(b.size) + pa[terms_b + 1]
    slots = np.empty(a.size + b.size, dtype=np.int32)
    tfs = np.empty(a.size + b.size, dtype=np.float32)
    slots[place_a], slots[place_b] = a.slots, b.slots
    tfs[place_a], tfs[place_b] = a.tfs, b.tfs
    return _Segment(ptr, slots, tfs)


def _padded(ptr: IntArray, n_terms: int) -> IntArray:
    """A segment's ``ptr`` over ``n_terms`` terms (terms numbered after it have none)."""
    if ptr.shape[0] == n_terms + 1:
        return ptr
    return np.concatenate([ptr, np.full(n_terms + 1 - ptr.shape[0], ptr[-1], dtype=np.int64)])


class KeywordIndex:
    """Documents are numbered by slot (0, 1, 2, ...) in the order they are added."""

    def __init__(self) -> None:
        self._vocab: dict[str, int] = {}
        # A restored index's vocabulary, searched in place until a write needs the dict
        # (building a dict of 1M terms was ~0.4 s of a reopened store's first search).
        self._saved_vocab: _SavedVocab | None = None
        self._segments: list[_Segment] = []
        self._doc_len = GrowableArray(np.float32)
        self._live_len = 0.0  # total length of live documents (for avgdl)
        self._live_docs = 0
        self._dead = 0
        self._scores = np.zeros(0, dtype=np.float64)
        self._first = np.zeros(0, dtype=np.int32)

    def add(self, docs: Sequence[Sequence[str]]) -> None:
        """Append documents (each a list of analysed terms) at the next slots."""
        if docs:
            self.add_batch(encode(docs))

    def add_batch(self, batch: AnalysedBatch) -> None:
        """Append a batch of analysed documents (:func:`~.analysis.encode`) at the next
        slots: its terms are numbered in this index's vocabulary (once per distinct term
        of the batch, not per posting), its postings added as one segment."""
        first = len(self._doc_len)
        vocab = self._vocabulary()
        table = np.fromiter(
            (vocab.setdefault(term, len(vocab)) for term in batch.vocab),
            dtype=np.int64,
            count=len(batch.vocab),
        )
        self._doc_len.extend(batch.lengths)
        self._live_len += float(batch.lengths.sum())
        self._live_docs += int(batch.lengths.shape[0])
        if not batch.docs.shape[0]:
            return
        n_terms = len(vocab)
        # Postings come by (document, term): ascending slots within each term, as
        # _segment wants them.
        self._segments.append(_segment(table[batch.terms], batch.docs + first, batch.tfs, n_terms))
        while len(self._segments) > 1 and 4 * self._segments[-1].size >= self._segments[-2].size:
            b, a = self._segments.pop(), self._segments.pop()
            self._segments.append(_merge(a, b, n_terms))

    def state(self, live: BoolArray | None = None) -> dict[str, npt.NDArray[Any]]:
        """Arrays that :meth:`restore` takes back: segments merged into one and, given the
        ``live`` mask, only live documents (renumbered densely) and the terms they hold,
        so nothing of a removed document remains."""
        n_terms = len(self._vocabulary())
        segments = list(self._segments)
        while len(segments) > 1:
            b, a = segments.pop(), segments.pop()
            segments.append(_merge(a, b, n_terms))
        terms = np.empty(0, dtype=np.int64)
        slots = np.empty(0, dtype=np.int64)
        tfs = np.empty(0, dtype=np.float32)
        if segments:
            merged = segments[0]
            terms = np.repeat(np.arange(merged.ptr.shape[0] - 1), np.diff(merged.ptr))
            slots, tfs = merged.slots.astype(np.int64), merged.tfs
        doc_len = self._doc_len.view
        vocab = list(self._vocab)
        if live is not None:
            keep = live[slots]
            terms, slots, tfs = terms[keep], slots[keep], tfs[keep]
            slots = (np.cumsum(live) - 1)[slots]
            doc_len = doc_len[live]
            used = np.zeros(n_terms, dtype=np.bool_)
            used[terms] = True
            vocab = [t for t, u in zip(vocab, used.tolist(), strict=True) if u]
            terms = (np.cumsum(used) - 1)[terms]
            n_terms = len(vocab)
        merged_all = _segment(terms, slots, tfs, n_terms)
        # The weights are saved too: computing them for every posting was most of a
        # reopened store's first keyword search (1M episodes: ~0.5 s).
        avgdl = max(float(doc_len.sum(dtype=np.float64)) / max(doc_len.shape[0], 1), 1e-9)
        merged_all.weigh(doc_len, avgdl)
        assert merged_all.weights is not None
        packed, offsets = pack_strings(vocab)
        return {
            "vocab": packed,
            "vocab_offsets": offsets,
            # term ids in the terms' order: a restored index looks terms up by bisection
            "vocab_order": np.asarray(
                sorted(range(len(vocab)), key=vocab.__getitem__), dtype=np.int64
            ),
            "ptr": merged_all.ptr,
            "slots": merged_all.slots,
            "tfs": merged_all.tfs,
            "weights": merged_all.weights,
            "avgdl": np.asarray([merged_all.avgdl], dtype=np.float64),
            "doc_len": doc_len,
        }

    @classmethod
    def restore(cls, arrays: dict[str, npt.NDArray[Any]]) -> KeywordIndex:
        """An index of live documents only, from :meth:`state` (arrays may be read-only)."""
        index = cls()
        order = arrays.get("vocab_order")
        terms = SavedStrings(arrays["vocab"], arrays["vocab_offsets"])
        if order is not None and order.shape[0] == len(terms):
            index._saved_vocab = _SavedVocab(terms, order)
        else:
            index._vocab = _vocab_dict(terms.list())
        doc_len = arrays["doc_len"]
        index._doc_len.extend(doc_len)
        index._live_len = float(doc_len.sum(dtype=np.float64))
        index._live_docs = int(doc_len.shape[0])
        if arrays["slots"].shape[0]:
            segment = _Segment(arrays["ptr"], arrays["slots"], arrays["tfs"])
            weights = arrays.get("weights")
            if weights is not None and weights.shape == segment.tfs.shape:
                segment.weights = weights
                segment.avgdl = float(arrays["avgdl"][0])
                segment.loose = False
            index._segments.append(segment)
        return index

    def _vocabulary(self) -> dict[str, int]:
        """The term -> id dict (a restored index builds it at its first write)."""
        if self._saved_vocab is not None:
            self._vocab = self._saved_vocab.dict()
            self._saved_vocab = None
        return self._vocab

    def remove(self, slot: int) -> None:
        """Account for a document that the caller's ``alive`` mask now excludes."""
        self._live_len -= float(self._doc_len.view[slot])
        self._live_docs -= 1
        self._dead += 1

    def search(
        self,
        terms: Sequence[str],
        alive: BoolArray,
        allowed: BoolArray | None,
        k: int,
        allowed_slots: npt.NDArray[np.int32] | None = None,
    ) -> tuple[IntArray, npt.NDArray[np.float64]]:
        """Top ``k`` slots by BM25 among ``allowed`` live documents, best first.

        Statistics (N, avgdl, document frequencies) come from every live document, so a
        filter changes which documents compete, never their scores. ``allowed_slots``:
        the slots ``allowed`` keeps, ascending, when the caller has them; a filter keeping
        far fewer documents than the terms' postings is then scored by looking its
        documents up in each posting list, not by scoring every posting.
        """
        n = len(self._doc_len)
        empty = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64))
        if self._live_docs == 0 or k <= 0:
            return empty
        avgdl = max(self._live_len / self._live_docs, 1e-9)
        find = self._vocab.get if self._saved_vocab is None else self._saved_vocab.get
        term_ids = [t for t in (find(term) for term in dict.fromkeys(terms)) if t is not None]
        if not term_ids:
            return empty
        for segment in self._segments:
            segment.weigh(self._doc_len.view, avgdl)
        terms_found = [t for t in (self._term(tid, alive) for tid in term_ids) if t is not None]
        if not terms_found:
            return empty
        if allowed_slots is not None and allowed_slots.shape[0] * _LOOKUP_RATIO < sum(
            t.df for t in terms_found
        ):
            return _ranked(*self._look_up(terms_found, allowed_slots), k)
        hits: npt.NDArray[np.integer[Any]]
        found_scores: npt.NDArray[np.float64]
        if sum(t.df for t in terms_found) * _DENSE_RATIO >= n:
            # Summed in the order the scattering path adds them (term by term, float64
            # from 0), so the scores are the same to the last bit.
            parts = [
                (slots, term.idf * weights) for term in terms_found for slots, weights in term.parts
            ]
            summed = np.asarray(  # (float64 already: weights given; typed so here)
                np.bincount(
                    np.concatenate([slots for slots, _ in parts]),
                    weights=np.concatenate([weights for _, weights in parts]),
                    minlength=n,
                ),
                dtype=np.float64,
            )
            # every weight is > 0: the matched documents are the non-zero scores; with no
            # filter, only those that can be among the best k are taken
            best = None if allowed is not None else _contenders(summed, k)
            hits = np.flatnonzero(summed) if best is None else best
            found_scores = summed[hits]
        else:
            hits, found_scores = self._scattered(terms_found, n)
        if allowed is not None:
            keep = allowed[hits]
            hits, found_scores = hits[keep], found_scores[keep]
        return _ranked(hits, found_scores, k)

    def _scattered(
        self, terms: list[_Term], n: int
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
        """The matched slots and their scores, accumulated in a reused buffer: only the
        matched postings are visited, no pass over the whole collection."""
        scores, first = self._scratch(n)
        touched: list[npt.NDArray[np.int32]] = []
        try:
            for term in terms:
                for slots, weights in term.parts:
                    scores[slots] += term.idf * weights  # a term holds each slot once
                    touched.append(slots)
            hits = _distinct(touched, first)
            return hits, scores[hits]
        finally:
            for slots in touched:
                scores[slots] = 0.0  # the scratch buffer is all zeros between searches

    @staticmethod
    def _look_up(
        terms: list[_Term], allowed_slots: npt.NDArray[np.int32]
    ) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.float64]]:
        """The allowed documents holding a term, and their scores: each document is
        looked up in each posting list (binary search; the lists ascend by slot). Sums
        are made in the order of the scoring path, so scores are identical to it."""
        scores = np.zeros(allowed_slots.shape[0], dtype=np.float64)
        for term in terms:
            for slots, weights in term.parts:
                at = np.searchsorted(slots, allowed_slots)
                np.minimum(at, slots.shape[0] - 1, out=at)
                held = slots[at] == allowed_slots
                scores[held] += term.idf * weights[at[held]]
        found = np.flatnonzero(scores)  # every weight is positive: 0 means no term held
        return allowed_slots[found], scores[found]

    def _term(self, tid: int, alive: BoolArray) -> _Term | None:
        """A query term's postings (live documents only) and idf."""
        parts = []
        df = 0
        for segment in self._segments:
            found = segment.postings(tid)
            if found is None:
                continue
            slots, weights = found
            if self._dead:  # tombstoned documents neither score nor count in df
                live = alive[slots]
                slots, weights = slots[live], weights[live]
            if slots.shape[0]:
                parts.append((slots, weights))
                df += slots.shape[0]
        if df == 0:
            return None
        idf = math.log(1.0 + (self._live_docs - df + 0.5) / (df + 0.5))
        return _Term(parts, idf, df)

    def _scratch(self, n: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int32]]:
        """Per-index buffers the size of the collection, reused by every search: scores
        (zero between searches) and a slot -> position map for de-duplication. Scoring
        touches only the matched postings, never a whole-collection array."""
        if self._scores.shape[0] < n:
            capacity = max(n, 2 * self._scores.shape[0])
            self._scores = np.zeros(capacity, dtype=np.float64)
            self._first = np.zeros(capacity, dtype=np.int32)
        return self._scores, self._first


class _SavedVocab:
    """A saved vocabulary (its terms read in place, :class:`SavedStrings`) and its terms'
    order: a term's id is found by bisection, with no dict of every term."""

    def __init__(self, terms: SavedStrings, order: npt.NDArray[np.int64]) -> None:
        self._terms = terms
        self._order = order
        # Terms looked up already (found or not): questions share most of their words,
        # and a bisection of 1M terms is ~20 string reads (the vocabulary never changes
        # while it is saved: a write replaces it with a dict).
        self._known: dict[str, int | None] = {}

    def get(self, term: str) -> int | None:
        known = self._known
        if term in known:
            return known[term]
        if len(known) >= _KNOWN_TERMS:
            known.clear()
        found = known[term] = self._find(term)
        return found

    def _find(self, term: str) -> int | None:
        terms, order = self._terms, self._order
        lo, hi = 0, int(order.shape[0])
        while lo < hi:
            mid = (lo + hi) // 2
            if terms[int(order[mid])] < term:
                lo = mid + 1
            else:
                hi = mid
        if lo < order.shape[0] and terms[found := int(order[lo])] == term:
            return found
        return None

    def dict(self) -> dict[str, int]:
        return _vocab_dict(self._terms.list())


def _vocab_dict(terms: list[str]) -> dict[str, int]:
    """Term -> id, an id being the term's position."""
    return dict(zip(terms, range(len(terms)), strict=True))


@dataclass(slots=True)
class _Term:
    parts: list[tuple[npt.NDArray[np.int32], FloatArray]]  # per segment: slots (ascending)
    idf: float
    df: int  # live documents holding the term


def _ranked(
    hits: npt.NDArray[Any], scores: npt.NDArray[np.float64], k: int
) -> tuple[IntArray, npt.NDArray[np.float64]]:
    """The ``k`` best hits, best first (ties: older slot first)."""
    if hits.shape[0] > k:
        best = _contenders(scores, k)
        if best is not None:
            hits, scores = hits[best], scores[best]
        top = _top(hits, scores, k)
        hits, scores = hits[top], scores[top]
    order = np.lexsort((hits, -scores))
    return hits[order].astype(np.int64), scores[order]


def _contenders(scores: npt.NDArray[np.float64], k: int) -> IntArray | None:
    """Positions of every score that can be among the ``k`` best (> 0), far fewer than
    all of them: those at or above a bound read from a sample (every 16th score), kept
    when at least ``k`` reach it, so the best ``k`` and every tie at the cut are among
    them. ``None`` when the scores are too few to sample or the bound is not met.

    A search whose terms match most of the collection then selects from ~2k scores, not
    from all the matched ones. (``np.partition`` is not used anywhere here: on float64
    with many equal values it is orders of magnitude slower than ``argpartition``.)
    """
    if scores.shape[0] < max(_SAMPLED_MIN, 32 * k):
        return None
    sample = scores[::_SAMPLE_STEP]
    rank = -(-2 * k // _SAMPLE_STEP)  # about 2k scores of the whole are at or above it
    bound = sample[np.argpartition(-sample, rank - 1)[rank - 1]]
    if bound <= 0.0:
        return None
    best = np.flatnonzero(scores >= bound)
    return best if best.shape[0] >= k else None


def _top(slots: npt.NDArray[Any], scores: npt.NDArray[np.float64], k: int) -> IntArray:
    """Positions of the ``k`` best scores, ties at the cut broken by the older slot (an
    argpartition alone picks among equal scores arbitrarily; repeated texts score alike)."""
    cut = scores[np.argpartition(-scores, k - 1)[k - 1]]
    better = np.flatnonzero(scores > cut)
    tied = np.flatnonzero(scores == cut)
    tied = tied[np.argsort(slots[tied], kind="stable")[: k - better.shape[0]]]
    return np.concatenate([better, tied])


def _distinct(
    lists: list[npt.NDArray[np.int32]], first: npt.NDArray[np.int32]
) -> npt.NDArray[np.int32]:
    """The distinct slots of several posting lists (each without repeats), in O(total)
    without sorting: every slot records one of its positions, and the position it
    recorded is kept."""
    if len(lists) == 1:
        return lists[0]
    slots = np.concatenate(lists)
    positions = np.arange(slots.shape[0], dtype=np.int32)
    first[slots] = positions
    distinct: npt.NDArray[np.int32] = slots[first[slots] == positions]
    return distinct
