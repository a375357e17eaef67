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
async embedder share it). A text already being fetched by another call is waited for, not
sent again (``wait=True``: a recall embeds its question for each tier at once); a call that
cannot wait (the blocking ``embed``, which may run on the event loop the fetch needs) sends
it itself. When the fetching call fails, its waiters fetch for themselves. Erasure clears it
(:func:`sedimem.embed.base.forget_cached_text`). Stdlib only: an ``OrderedDict`` under a
lock is the whole of an LRU, and a library (cachetools) would add a dependency for it.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np

from sedimem.embed.base import Matrix
from sedimem.errors import ValidationError

__all__ = ["CacheCounts", "EmbeddingCache", "Pending", "Plan", "fetched", "text_digest"]


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


#: A vector being fetched by another call: set to it, or to None if that call failed.
Pending = Future["Matrix | None"]


@dataclass
class Plan:
    """One batch's lookup: what is cached, what another call is fetching, and the distinct
    texts this call still has to embed (:attr:`missing`)."""

    cache: EmbeddingCache
    identity: str
    size: int
    dimension: int
    #: position in the batch -> cached vector
    found: dict[int, Matrix] = field(default_factory=dict)
    #: texts to embed, each once, and the positions each one fills
    missing: list[str] = field(default_factory=list)
    positions: list[list[int]] = field(default_factory=list)
    #: what this call fetches for others that wait (one per missing text, when it may)
    owned: list[Pending] = field(default_factory=list)
    #: texts another call is fetching: (text, its pending vector, the positions it fills)
    waiting: list[tuple[str, Pending, list[int]]] = field(default_factory=list)

    def fill(self, vectors: Matrix) -> Matrix:
        """The batch's rows but those :attr:`waiting`: ``vectors`` (of :attr:`missing`, in
        order) are cached, handed to the calls waiting for them and placed with the cached
        ones."""
        out = np.zeros((self.size, self.dimension), dtype=np.float32)
        for position, vector in self.found.items():
            out[position] = vector
        for row, positions in enumerate(self.positions):
            out[positions] = vectors[row]
        self.cache.store(self.identity, self.missing, vectors, self.owned)
        return out

    def abandon(self) -> None:
        """This call failed: its waiters fetch for themselves."""
        self.cache.release(self.identity, self.missing, self.owned)

    async def waited(self, out: Matrix) -> list[tuple[str, list[int]]]:
        """Place the vectors other calls fetched in ``out``; the texts (and positions) whose
        fetch failed, for the caller to embed."""
        failed: list[tuple[str, list[int]]] = []
        for text, pending, positions in self.waiting:
            vector = await asyncio.wrap_future(pending)
            if vector is None:
                failed.append((text, positions))
            else:
                out[positions] = vector
        return failed


class EmbeddingCache:
    """The newest ``capacity`` vectors by (embedder identity, text digest); 0 keeps none."""

    def __init__(self, capacity: int) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 0:
            raise ValidationError(
                "embedder_cache_size", f"got {capacity!r}", allowed="an int >= 0 (0: no cache)"
            )
        self._capacity = capacity
        self._vectors: OrderedDict[tuple[str, bytes], Matrix] = OrderedDict()
        self._pending: dict[tuple[str, bytes], Pending] = {}
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    @property
    def capacity(self) -> int:
        return self._capacity

    def counts(self) -> CacheCounts:
        with self._lock:
            return CacheCounts(self._hits, self._misses, len(self._vectors), self._capacity)

    def plan(self, identity: str, texts: list[str], dimension: int, *, wait: bool = False) -> Plan:
        """Look ``texts`` up; a text repeated in the batch is sent once (the repeats count as
        hits, they cost no request). ``wait``: a text another call is fetching is waited for
        (the caller must then :meth:`Plan.fill` or :meth:`Plan.abandon`, and await
        :meth:`Plan.waited`) and counts as a hit."""
        plan = Plan(self, identity, len(texts), dimension)
        index: dict[str, int] = {}
        waiting: dict[str, int] = {}
        hits = 0
        with self._lock:
            for position, text in enumerate(texts):
                row = index.get(text)
                if row is not None:
                    plan.positions[row].append(position)
                    hits += 1
                    continue
                row = waiting.get(text)
                if row is not None:
                    plan.waiting[row][2].append(position)
                    hits += 1
                    continue
                key = (identity, text_digest(text))
                vector = self._vectors.get(key) if self._capacity else None
                if vector is not None and vector.shape[0] == dimension:
                    self._vectors.move_to_end(key)
                    plan.found[position] = vector
                    hits += 1
                    continue
                pending = self._pending.get(key) if wait and self._capacity else None
                if pending is not None:
                    waiting[text] = len(plan.waiting)
                    plan.waiting.append((text, pending, [position]))
                    hits += 1
                    continue
                index[text] = len(plan.missing)
                plan.missing.append(text)
                plan.positions.append([position])
                if wait and self._capacity:
                    owned: Pending = Future()
                    self._pending[key] = owned
                    plan.owned.append(owned)
            self._hits += hits
            self._misses += len(plan.missing)
        return plan

    def store(
        self, identity: str, texts: list[str], vectors: Matrix, owned: list[Pending] | None = None
    ) -> None:
        """Keep ``vectors`` (one row per text), evicting the least recently used, and hand
        them to the calls waiting on ``owned`` (one per text, if any)."""
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
        self._settle(identity, texts, owned, list(rows))

    def release(self, identity: str, texts: list[str], owned: list[Pending]) -> None:
        """The fetch of ``texts`` failed: their waiters get None (and fetch themselves)."""
        self._settle(identity, texts, owned, [None] * len(texts))

    def _settle(
        self,
        identity: str,
        texts: list[str],
        owned: list[Pending] | None,
        results: list[Matrix | None],
    ) -> None:
        if not owned:
            return
        with self._lock:
            for text, pending in zip(texts, owned, strict=True):
                key = (identity, text_digest(text))
                if self._pending.get(key) is pending:
                    del self._pending[key]
        for pending, result in zip(owned, results, strict=True):
            if not pending.done():  # (abandoning after a fill that failed part way)
                pending.set_result(result)

    def clear(self) -> None:
        """Drop every vector (erasure); the counts stay."""
        with self._lock:
            self._vectors.clear()


async def fetched(plan: Plan, fetch: Callable[[list[str]], Awaitable[Matrix]]) -> Matrix:
    """``plan``'s whole batch: its missing texts fetched first (other calls may wait for
    them; on failure they are released, never left waiting), then the texts other calls
    were fetching, and those whose fetch failed fetched here."""
    try:
        out = plan.fill(await fetch(plan.missing))
    except BaseException:
        plan.abandon()
        raise
    failed = await plan.waited(out)
    if failed:
        again = await fetch([text for text, _ in failed])
        for row, (_, positions) in enumerate(failed):
            out[positions] = again[row]
    return out
