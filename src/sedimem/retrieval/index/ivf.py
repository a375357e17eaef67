"""An inverted-file (IVF) partition of the vectors: for large bulk-built indexes.

An HNSW graph is built one insertion at a time, each a search of the graph so far: at a
million vectors that is ~450-600 s of CPU here, and its saved form (540 MB) must be hashed
whole before usearch may read it. A partition is built in a few passes of matrix products
instead: k-means centroids trained on a sample, then every vector assigned to its nearest
centroid's list. Lists are stored one after another (contiguous), each vector as int8
codes of its difference to the mean of all vectors, one scale per dimension (the default
embedder's vectors share one dominant direction: raw int8 cells would spend their levels on
it). A query probes the lists of the nearest centroids, scores their codes with an int8
dot product (numkong's SIMD kernels, a dependency of usearch: ~10x numpy, which has no int8
BLAS), and hands the best candidates to the caller, which re-scores them exactly in
float32. Saved, it is the centroids, the list offsets, the slots and the codes; the codes
(384 MB at 1M x 384) are checked list by list when a query first probes a list.

Vectors added after the build are assigned to the nearest list (a new :class:`Partition`,
the old one left to the queries that hold it); deleted rows are masked by the caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numkong
import numpy as np
import numpy.typing as npt

__all__ = ["IVF_SECTIONS", "Partition", "list_count", "probe_count"]

Matrix = npt.NDArray[np.float32]
Codes = npt.NDArray[np.int8]
Slots = npt.NDArray[np.int64]
#: Called with a list's first and last code row (exclusive) before they are first read.
ListCheck = Callable[[int, int], None]

_TRAIN_PER_LIST = 40  # k-means sample: vectors per centroid (faiss's rule of thumb: 39+)
_TRAIN_MAX = 65_536
_ITERATIONS = 10
_CHUNK = 16_384  # rows per matrix product while assigning (bounds the temporaries)
_LEVELS = 127.0
#: The sections of a saved partition (see :meth:`Partition.sections`).
IVF_SECTIONS = ("ivf_centroids", "ivf_center", "ivf_scale", "ivf_offsets", "ivf_slots", "ivf_codes")


def list_count(vectors: int) -> int:
    """Lists for ``vectors`` vectors: the power of two nearest the square root (a list
    then holds about as many vectors as there are lists), at most 1024 (1M vectors: the
    assignment pass is then ~0.8 TFLOP, ~30 s of CPU here)."""
    return 1 << int(np.clip(np.rint(np.log2(max(vectors, 1)) / 2), 0, 10))


def probe_count(lists: int) -> int:
    """Lists a query scans: 1/40 of them, at least 24. On LoCoMo-recombined episodes
    (`benchmarks.ann`, questions other than those benchmarks.recall asks) the share of the
    exact top 10 found: 1M (1,024 lists) 16 probes 0.79 in 2.3 ms p50, 24 0.84 in 3.4 ms,
    32 0.89; 300k (512 lists) 16 probes 0.79, 24 0.85 in 1.5 ms (the graph there: 0.84)."""
    return max(24, lists // 40)


@dataclass(frozen=True, slots=True)
class Partition:
    """Immutable: extending makes a new one. ``offsets[l]:offsets[l + 1]`` are list ``l``'s
    rows of ``slots`` (the index's slot of each) and ``codes``."""

    centroids: Matrix  # (lists, dim)
    center: Matrix  # (dim,): subtracted before quantizing
    scale: Matrix  # (dim,): code = round((x - center) * scale)
    offsets: Slots  # (lists + 1,)
    slots: Slots  # (covered,)
    codes: Codes  # (covered, dim)

    @property
    def covered(self) -> int:
        return int(self.slots.shape[0])

    @classmethod
    def build(cls, vectors: Matrix, seed: int = 0) -> Partition:
        """A partition of ``vectors`` (slots ``0..len``), trained on a sample of them."""
        count = int(vectors.shape[0])
        if count == 0:
            raise ValueError("a partition needs at least one vector")
        rng = np.random.default_rng(seed)
        lists = min(list_count(count), count)
        size = min(count, max(lists * _TRAIN_PER_LIST, min(count, _TRAIN_MAX)))
        sample = vectors[np.sort(rng.choice(count, size, replace=False))].astype(np.float32)
        center = sample.mean(axis=0, dtype=np.float64).astype(np.float32)
        moved = sample - center
        spread = np.quantile(np.abs(moved), 0.9999, axis=0).astype(np.float32)
        scale = (_LEVELS / np.maximum(spread, 1e-6)).astype(np.float32)
        centroids = _kmeans(sample, lists, rng)
        empty = cls(
            centroids,
            center,
            scale,
            np.zeros(lists + 1, dtype=np.int64),
            np.empty(0, dtype=np.int64),
            np.empty((0, vectors.shape[1]), dtype=np.int8),
        )
        return empty.extended(vectors, 0)

    def extended(self, tail: Matrix, start: int) -> Partition:
        """This partition with ``tail`` (slots ``start..``) added to their nearest lists."""
        lists = int(self.centroids.shape[0])
        assigned = _nearest(tail, self.centroids)
        order = np.argsort(assigned, kind="stable")
        added = np.bincount(assigned, minlength=lists)
        offsets = self.offsets.copy()
        offsets[1:] += np.cumsum(added)
        old = np.diff(self.offsets)
        total = int(offsets[-1])
        slots = np.empty(total, dtype=np.int64)
        codes = np.empty((total, tail.shape[1]), dtype=np.int8)
        # Where each new vector goes: after its list's old rows and the new ones before it.
        new_first = offsets[:-1] + old
        rank = np.arange(order.shape[0]) - np.repeat(np.cumsum(added) - added, added)
        place = np.empty(order.shape[0], dtype=np.int64)
        place[order] = new_first[assigned[order]] + rank
        # Old rows move as whole lists (one copy per list, in place order).
        shift = offsets[:-1] - self.offsets[:-1]
        target = np.repeat(shift, old) + np.arange(self.covered)
        slots[target] = self.slots
        if self.covered:
            codes[target] = self.codes
        slots[place] = np.arange(start, start + tail.shape[0], dtype=np.int64)
        for lo in range(0, tail.shape[0], _CHUNK):
            chunk = tail[lo : lo + _CHUNK]
            codes[place[lo : lo + _CHUNK]] = self._quantize(chunk)
        return Partition(self.centroids, self.center, self.scale, offsets, slots, codes)

    def _quantize(self, rows: Matrix) -> Codes:
        scaled = np.rint((rows - self.center) * self.scale)
        codes: Codes = np.clip(scaled, -_LEVELS, _LEVELS).astype(np.int8)
        return codes

    def search(
        self,
        query: Matrix,
        count: int,
        check: ListCheck | None = None,
        probes: int | None = None,
    ) -> Slots:
        """Slots of about the ``count`` best covered vectors by their codes (approximate:
        the caller re-scores them). ``check``: called for each list before its codes are
        read (a saved partition checks them then; it raises when they are damaged).
        ``probes``: lists scanned (default :func:`probe_count`)."""
        lists = int(self.centroids.shape[0])
        distance = self.centroids @ query - 0.5 * _norms(self.centroids)
        probes = min(lists, probes or probe_count(lists))
        nearest = np.argpartition(-distance, probes - 1)[:probes]
        # The query in code units: each code is a scaled difference to the centre, so a
        # dot with query / scale ranks like the dot with the vector itself.
        weights = query / self.scale
        peak = float(np.abs(weights).max()) or 1.0
        asked = np.rint(weights * (_LEVELS / peak)).astype(np.int8)[None]
        # Each list's bounds read at once, and its scores written in place into one array
        # (an int8 dot of 384 dims is at most 384 * 127 * 127, exact in float32).
        lows = self.offsets[nearest].tolist()
        highs = self.offsets[nearest + 1].tolist()
        every = np.empty(sum(highs) - sum(lows), dtype=np.float32)
        found: list[Slots] = []
        at = 0
        for lo, hi in zip(lows, highs, strict=True):
            if lo == hi:
                continue
            if check is not None:
                check(lo, hi)
            out = every[at : at + hi - lo].reshape(1, hi - lo)
            numkong.cdist(asked, self.codes[lo:hi], metric="dot", out=out, out_dtype="float32")
            found.append(self.slots[lo:hi])
            at += hi - lo
        if not found:
            return np.empty(0, dtype=np.int64)
        slots = np.concatenate(found)
        if slots.shape[0] > count:
            slots = slots[np.argpartition(-every, count - 1)[:count]]
        return slots

    def sections(self) -> dict[str, npt.NDArray[np.generic]]:
        """What :meth:`from_sections` takes back."""
        return {
            "ivf_centroids": self.centroids,
            "ivf_center": self.center,
            "ivf_scale": self.scale,
            "ivf_offsets": self.offsets,
            "ivf_slots": self.slots,
            "ivf_codes": self.codes,
        }

    @classmethod
    def from_sections(cls, arrays: dict[str, npt.NDArray[np.generic]]) -> Partition:
        partition = cls(
            np.asarray(arrays["ivf_centroids"], dtype=np.float32),
            np.asarray(arrays["ivf_center"], dtype=np.float32),
            np.asarray(arrays["ivf_scale"], dtype=np.float32),
            np.asarray(arrays["ivf_offsets"], dtype=np.int64),
            np.asarray(arrays["ivf_slots"], dtype=np.int64),
            np.asarray(arrays["ivf_codes"], dtype=np.int8),
        )
        lists, dim = partition.centroids.shape
        if (
            partition.offsets.shape != (lists + 1,)
            or partition.offsets[0] != 0
            or partition.offsets[-1] != partition.covered
            or (np.diff(partition.offsets) < 0).any()
            or partition.codes.shape != (partition.covered, dim)
            or partition.center.shape != (dim,)
            or partition.scale.shape != (dim,)
        ):
            raise ValueError("inconsistent partition sections")
        return partition


def _norms(matrix: Matrix) -> Matrix:
    norms: Matrix = np.einsum("ij,ij->i", matrix, matrix)
    return norms


def _nearest(rows: Matrix, centroids: Matrix) -> npt.NDArray[np.int64]:
    """Each row's nearest centroid (Euclidean), by matrix products of ``_CHUNK`` rows."""
    half = 0.5 * _norms(centroids)
    out = np.empty(rows.shape[0], dtype=np.int64)
    for lo in range(0, rows.shape[0], _CHUNK):
        chunk = np.asarray(rows[lo : lo + _CHUNK], dtype=np.float32)
        out[lo : lo + chunk.shape[0]] = np.argmax(chunk @ centroids.T - half, axis=1)
    return out


def _kmeans(sample: Matrix, lists: int, rng: np.random.Generator) -> Matrix:
    """Lloyd's k-means from ``lists`` random sample rows; an emptied centroid takes a
    random row again."""
    centroids = sample[rng.choice(sample.shape[0], lists, replace=False)].copy()
    for _ in range(_ITERATIONS):
        assigned = _nearest(sample, centroids)
        counts = np.bincount(assigned, minlength=lists)
        empty = counts == 0
        # Sums per list over the rows sorted by list (np.add.at is ~50x slower).
        order = np.argsort(assigned, kind="stable")
        starts = (np.cumsum(counts) - counts)[~empty]
        sums = np.add.reduceat(sample[order], starts, axis=0)
        centroids[~empty] = sums / counts[~empty, None]
        if empty.any():
            centroids[empty] = sample[rng.choice(sample.shape[0], int(empty.sum()))]
    return centroids
