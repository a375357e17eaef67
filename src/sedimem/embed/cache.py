"""A bounded LRU of text vectors, so a remote embedder is not asked twice for the same text.

A recall asks for the vector of its question; agents ask the same questions again, and
ingest files the same turns again (a conversation re-sent whole, a retried request). Every
one of those was an HTTP request to the embeddings endpoint. The cache keeps the newest
``capacity`` vectors, keyed by the embedder's *identity* (model name, dimension, endpoint:
two embedders sharing a cache never get each other's vectors) and a digest of the text (the
text itself is not kept). A batch is resolved in :meth:`EmbeddingCache.plan`: its texts
already cached are hits; the others, each distinct text once, are what the embedder still
has to send (misses); :meth:`Plan.fill` stores their vectors and returns the whole batch in
order.

Safe from several threads (a lock around every read and write of the LRU; the sync and the
async embedder share it). Two calls missing the same text at once both send it: the second
answer replaces the first, equal up to the endpoint's rounding. Erasure clears it
(:func:`sedimem.embed.base.forget_cached_text`). Stdlib only: an ``OrderedDict`` under a
lock is the whole of an LRU, and a library (cachetools) would add a dependency for it.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from sedimem.embed.base import Matrix
from sedimem.errors import ValidationError

__all__ = ["CacheCounts", "EmbeddingCache", "Plan", "text_digest"]


def text_digest(text: str) -> bytes:
    """The key of a text in the cache (16 bytes of BLAKE2b: collisions are out of reach)."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@dataclass(frozen=True, slots=True)
class CacheCounts:
    """Lookups since the cache was made: ``hits`` served from it, ``misses`` sent to the
    endpoint (each distinct text of a batch once), and the vectors held now."""

    hits: int
    misses: int
    entries: int
    capacity: int


@dataclass
class Plan:
    """One batch's lookup: what is cached, and the distinct texts still to embed."""

    cache: EmbeddingCache
    identity: str
    size: int
    dimension: int
    #: position in the batch -> cached vector
    found: dict[int, Matrix] = field(default_factory=dict)
    #: texts to embed, each once, and the positions each one fills
    missing: list[str] = field(default_factory=list)
    positions: list[list[int]] = field(default_factory=list)

    def fill(self, vectors: Matrix) -> Matrix:
        """The batch's rows: ``vectors`` (of :attr:`missing`, in order) are cached and placed
        with the cached ones."""
        out = np.zeros((self.size, self.dimension), dtype=np.float32)
        for position, vector in self.found.items():
            out[position] = vector
        for row, positions in enumerate(self.positions):
            out[positions] = vectors[row]
        self.cache.store(self.identity, self.missing, vectors)
        return out


class EmbeddingCache:
    """The newest ``capacity`` vectors by (embedder identity, text digest); 0 keeps none."""

    def __init__(self, capacity: int) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0:
            raise ValidationError(
                "embedder_cache_size", f"got {capacity!r}", allowed="an int >= 0 (0: no cache)"
            )
        self._capacity = capacity
        self._vectors: OrderedDict[tuple[str, bytes], Matrix] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    @property
    def capacity(self) -> int:
        return self._capacity

    def counts(self) -> CacheCounts:
        with self._lock:
            return CacheCounts(self._hits, self._misses, len(self._vectors), self._capacity)

    def plan(self, identity: str, texts: list[str], dimension: int) -> Plan:
        """Look ``texts`` up; a text repeated in the batch is sent once (the repeats count as
        hits, they cost no request)."""
        plan = Plan(self, identity, len(texts), dimension)
        index: dict[str, int] = {}
        hits = 0
        with self._lock:
            for position, text in enumerate(texts):
                row = index.get(text)
                if row is not None:
                    plan.positions[row].append(position)
                    hits += 1
                    continue
                key = (identity, text_digest(text))
                vector = self._vectors.get(key) if self._capacity else None
                if vector is not None and vector.shape[0] == dimension:
                    self._vectors.move_to_end(key)
                    plan.found[position] = vector
                    hits += 1
                    continue
                index[text] = len(plan.missing)
                plan.missing.append(text)
                plan.positions.append([position])
            self._hits += hits
            self._misses += len(plan.missing)
        return plan

    def store(self, identity: str, texts: list[str], vectors: Matrix) -> None:
        """Keep ``vectors`` (one row per text), evicting the least recently used."""
        if not self._capacity or not texts:
            return
        rows = np.array(vectors, dtype=np.float32, copy=True)  # never the caller's buffer
        rows.setflags(write=False)
        with self._lock:
            for text, row in zip(texts, rows, strict=True):
                key = (identity, text_digest(text))
                self._vectors[key] = row
                self._vectors.move_to_end(key)
            while len(self._vectors) > self._capacity:
                self._vectors.popitem(last=False)

    def clear(self) -> None:
        """Drop every vector (erasure); the counts stay."""
        with self._lock:
            self._vectors.clear()
