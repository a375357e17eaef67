"""A question is embedded once: concurrent searches share one embedding, recent questions
are kept, batches pass through, erasure clears, and ``assemble`` embeds its question once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from sedimem.access import Access
from sedimem.embed import HashEmbedder
from sedimem.embed.base import Matrix, embed_off_loop
from sedimem.embed.cache import EmbeddingCache
from sedimem.embed.openai import OpenAIEmbedder
from sedimem.embed.queries import QUERY_CACHE_SIZE, SharedQueries, shared_queries
from sedimem.errors import ModelUnavailable, ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Fact, Procedure


class Recording:
    """A hash embedder that records every call, slow enough (off the loop) for calls to
    overlap, and can be told to fail."""

    def __init__(self, delay: float = 0.0) -> None:
        self._inner = HashEmbedder(16)
        self.calls: list[list[str]] = []
        self.delay = delay
        self.failures = 0  # the next calls that fail
        self.cleared = 0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> Matrix:
        self.calls.append(list(texts))
        if self.failures:
            self.failures -= 1
            raise ModelUnavailable("the test said so")
        return self._inner.embed(texts)

    async def aembed(self, texts: Sequence[str]) -> Matrix:
        if self.delay:
            await asyncio.sleep(self.delay)
        return await embed_off_loop(self, texts)

    def clear_cache(self) -> None:
        self.cleared += 1


async def test_concurrent_asks_for_one_question_embed_it_once() -> None:
    inner = Recording(delay=0.05)
    shared = SharedQueries(inner)
    vectors = await asyncio.gather(*(shared.aembed(["where does ana live?"]) for _ in range(3)))
    assert inner.calls == [["where does ana live?"]]
    for vector in vectors:
        np.testing.assert_array_equal(vector, inner._inner.embed(["where does ana live?"]))
        assert vector.flags.writeable  # the caller's own array, not the cache's row
    again = shared.embed(["where does ana live?"])  # kept: no call
    assert len(inner.calls) == 1
    np.testing.assert_array_equal(again, vectors[0])
    counts = shared.counts()
    assert (counts.hits, counts.misses, counts.capacity) == (3, 1, QUERY_CACHE_SIZE)


async def test_batches_go_to_the_embedder_and_are_not_kept() -> None:
    inner = Recording()
    shared = SharedQueries(inner)
    batch = ["one turn", "another turn"]
    np.testing.assert_array_equal(await shared.aembed(batch), inner._inner.embed(batch))
    np.testing.assert_array_equal(shared.embed(batch), inner._inner.embed(batch))
    assert inner.calls == [batch, batch]
    assert shared.counts().entries == 0
    assert shared.embed([]).shape == (0, 16)
    with pytest.raises(ValidationError, match=r"texts\.0"):
        await shared.aembed([3])  # type: ignore[list-item]


async def test_a_failed_embedding_fails_its_caller_and_its_waiters_try_themselves() -> None:
    inner = Recording(delay=0.05)
    shared = SharedQueries(inner)
    inner.failures = 1
    first = asyncio.ensure_future(shared.aembed(["q"]))
    await asyncio.sleep(0)  # the first call owns the embedding
    second = asyncio.ensure_future(shared.aembed(["q"]))  # waits for it
    with pytest.raises(ModelUnavailable):
        await first
    np.testing.assert_array_equal(await second, inner._inner.embed(["q"]))  # tried itself
    assert inner.calls == [["q"], ["q"]]
    assert shared.counts().entries == 0  # the waiter's vector is its own, not kept


def test_erasure_clears_the_questions_and_the_embedders_own_cache() -> None:
    inner = Recording()
    shared = SharedQueries(inner)
    shared.embed(["what did ana say?"])
    shared.clear_cache()
    assert inner.cleared == 1
    assert shared.counts().entries == 0
    shared.embed(["what did ana say?"])
    assert len(inner.calls) == 2
    assert (shared.name, shared.dimension, shared.inner) == (inner.name, 16, inner)


def test_an_embedder_keeping_its_own_vectors_is_left_as_it_is() -> None:
    remote = OpenAIEmbedder("http://127.0.0.1:9/v1", "m", dimension=8, cache_size=0)
    assert isinstance(remote.cache, EmbeddingCache)
    assert shared_queries(remote) is remote  # its cache (or its setting of none) rules
    local = HashEmbedder(8)
    assert isinstance(shared_queries(local), SharedQueries)


async def test_assemble_embeds_its_question_once_for_every_tier(tmp_path: Path) -> None:
    inner = Recording()
    scope = Scope(tenant="t", user="ana")
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db", embedder=inner) as memory:
        await memory.episodes.record(Episode(scope=scope, description="Ana moved to Lisbon"))
        await memory.facts.learn(
            Fact(
                scope=scope,
                subject="ana",
                predicate="lives_in",
                object="Lisbon",
                statement="Ana lives in Lisbon",
            )
        )
        await memory.procedures.record(
            Procedure(scope=scope, name="move", trigger="moving house", steps=["pack"])
        )
        inner.calls.clear()
        context = await memory.assemble("Where does Ana live now?", scope, 500)
        assert "Lisbon" in (context.text or "")
        asked = [c for c in inner.calls if c == ["Where does Ana live now?"]]
        assert len(asked) == 1, inner.calls
        await memory.assemble("Where does Ana live now?", scope, 500)
        assert inner.calls.count(["Where does Ana live now?"]) == 1  # kept
        # erasure drops the questions too: the next one is embedded anew
        await memory.forget(Access.local("t"), user="ana")
        await memory.assemble("Where does Ana live now?", scope, 500)
        assert inner.calls.count(["Where does Ana live now?"]) == 2
