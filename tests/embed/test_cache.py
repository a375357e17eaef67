"""The embedder's vector cache on its own: bounded LRU, identities kept apart, batches
deduplicated, counts, thread safety."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from sedimem.embed.cache import EmbeddingCache, text_digest
from sedimem.errors import ValidationError

DIM = 4


def rows(*values: float) -> np.ndarray:
    return np.array([[v] * DIM for v in values], dtype=np.float32)


def resolve(cache: EmbeddingCache, identity: str, texts: list[str]) -> tuple[np.ndarray, list[str]]:
    """Look ``texts`` up and fill the misses with ``len(text)`` rows; return the batch and
    what was missing."""
    plan = cache.plan(identity, texts, DIM)
    missing = list(plan.missing)
    return plan.fill(rows(*(float(len(t)) for t in missing))), missing


def test_a_second_lookup_is_a_hit_and_counted() -> None:
    cache = EmbeddingCache(10)
    first, missing = resolve(cache, "e", ["ab", "abc"])
    assert missing == ["ab", "abc"]
    again, missing = resolve(cache, "e", ["abc", "ab"])
    assert missing == []
    np.testing.assert_array_equal(again, first[::-1])
    counts = cache.counts()
    assert (counts.hits, counts.misses, counts.entries, counts.capacity) == (2, 2, 2, 10)


def test_a_text_repeated_in_a_batch_is_embedded_once() -> None:
    cache = EmbeddingCache(10)
    out, missing = resolve(cache, "e", ["x", "yy", "x", "x", "yy"])
    assert missing == ["x", "yy"]
    np.testing.assert_array_equal(out[:, 0], [1, 2, 1, 1, 2])
    assert cache.counts().hits == 3
    assert cache.counts().misses == 2


def test_the_least_recently_used_vector_goes_first() -> None:
    cache = EmbeddingCache(2)
    resolve(cache, "e", ["a", "b"])
    resolve(cache, "e", ["a"])  # a is now newer than b
    resolve(cache, "e", ["c"])  # evicts b
    assert cache.counts().entries == 2
    _, missing = resolve(cache, "e", ["a", "b", "c"])
    assert missing == ["b"]


def test_another_embedder_never_gets_these_vectors() -> None:
    cache = EmbeddingCache(10)
    plan = cache.plan("model-a", ["same text"], DIM)
    plan.fill(rows(1.0))
    other = cache.plan("model-b", ["same text"], DIM)
    assert other.missing == ["same text"]
    other.fill(rows(2.0))
    np.testing.assert_array_equal(cache.plan("model-a", ["same text"], DIM).fill(rows())[0], 1.0)
    np.testing.assert_array_equal(cache.plan("model-b", ["same text"], DIM).fill(rows())[0], 2.0)


def test_a_vector_of_another_dimension_is_not_returned() -> None:
    cache = EmbeddingCache(10)
    cache.store("e", ["t"], np.ones((1, DIM + 1), dtype=np.float32))
    assert cache.plan("e", ["t"], DIM).missing == ["t"]


def test_cached_vectors_are_copies_the_caller_cannot_change() -> None:
    cache = EmbeddingCache(10)
    given = rows(1.0)
    out, _ = resolve(cache, "e", ["a"])
    out[0] = 99.0  # the caller's batch is its own
    given[0] = 99.0
    again, _ = resolve(cache, "e", ["a"])
    np.testing.assert_array_equal(again[0], 1.0)


def test_size_zero_keeps_nothing_and_a_bad_size_is_refused() -> None:
    cache = EmbeddingCache(0)
    resolve(cache, "e", ["a"])
    _, missing = resolve(cache, "e", ["a"])
    assert missing == ["a"]
    assert cache.counts().entries == 0
    for bad in (-1, True, 1.5):
        with pytest.raises(ValidationError, match="embedder_cache_size"):
            EmbeddingCache(bad)  # type: ignore[arg-type]


def test_clear_drops_the_vectors_and_keeps_the_counts() -> None:
    cache = EmbeddingCache(10)
    resolve(cache, "e", ["a", "b"])
    cache.clear()
    counts = cache.counts()
    assert (counts.entries, counts.misses) == (0, 2)
    assert resolve(cache, "e", ["a"])[1] == ["a"]


def test_the_digest_tells_texts_apart_and_keeps_no_text() -> None:
    assert text_digest("a") != text_digest("b")
    assert text_digest("a") == text_digest("a")
    assert len(text_digest("x" * 10_000)) == 16
    assert text_digest("\ud800") != text_digest("")  # a lone surrogate does not raise


def test_threads_sharing_a_cache_get_right_vectors_and_stay_within_bounds() -> None:
    cache = EmbeddingCache(50)
    texts = [f"text {i}" * (i % 5 + 1) for i in range(200)]
    errors: list[str] = []

    def work(seed: int) -> None:
        rng = np.random.default_rng(seed)
        for _ in range(200):
            batch = [texts[i] for i in rng.integers(0, len(texts), 8)]
            out, _ = resolve(cache, f"e{seed % 2}", batch)
            if not np.array_equal(out[:, 0], [len(t) for t in batch]):
                errors.append(f"wrong rows for {batch}")

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    counts = cache.counts()
    assert counts.entries <= 50
    assert counts.hits + counts.misses == 8 * 200 * 8


async def test_a_waiter_gets_the_fetched_vector_or_none_when_the_fetch_fails() -> None:
    cache = EmbeddingCache(10)
    owner = cache.plan("e", ["a", "b"], DIM, wait=True)
    waiter = cache.plan("e", ["b", "a", "b"], DIM, wait=True)
    assert owner.missing == ["a", "b"]
    assert waiter.missing == []
    out = owner.fill(rows(1.0, 2.0))
    owner.abandon()  # after a fill: changes nothing
    into = np.zeros((3, DIM), dtype=np.float32)
    assert await waiter.waited(into) == []
    np.testing.assert_array_equal(into[:, 0], [2, 1, 2])
    np.testing.assert_array_equal(out[:, 0], [1, 2])

    failing = cache.plan("e", ["c"], DIM, wait=True)
    hoping = cache.plan("e", ["c"], DIM, wait=True)
    failing.abandon()
    assert await hoping.waited(np.zeros((1, DIM), dtype=np.float32)) == [("c", [0])]
    assert cache.plan("e", ["c"], DIM, wait=True).missing == ["c"]  # nobody fetches it now
