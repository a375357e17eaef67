"""The keyword index apart from any store: exact BM25 over subsets, stable ties."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sedimem.retrieval.index import bm25
from sedimem.retrieval.index.bm25 import KeywordIndex


def reference(
    docs: list[list[str]], alive: list[bool], terms: list[str]
) -> list[tuple[int, float]]:
    """BM25 over live documents, scored one document at a time, best first, older first."""
    live = [i for i, a in enumerate(alive) if a]
    avgdl = sum(len(docs[i]) for i in live) / len(live)
    df_of = {term: sum(1 for j in live if term in docs[j]) for term in dict.fromkeys(terms)}
    scored = []
    for i in live:
        score = 0.0
        for term, df in df_of.items():
            tf = docs[i].count(term)
            if tf:
                idf = math.log(1.0 + (len(live) - df + 0.5) / (df + 0.5))
                norm = 1.2 * (1.0 - 0.75 + 0.75 * len(docs[i]) / avgdl)
                score += idf * tf * 2.2 / (tf + norm)
        if score > 0:
            scored.append((i, score))
    return sorted(scored, key=lambda hit: (-hit[1], hit[0]))


def test_search_matches_a_reference_and_breaks_ties_by_age() -> None:
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(30)]
    docs = [list(rng.choice(words, size=int(rng.integers(1, 9)))) for _ in range(300)]
    docs += [["w1", "w2"]] * 40  # many identical documents: ties at every cut
    index = KeywordIndex()
    for start in range(0, len(docs), 37):  # several segments, merged as they grow
        index.add(docs[start : start + 37])
    alive = np.ones(len(docs), dtype=np.bool_)
    for dead in (3, 17, 305):
        alive[dead] = False
        index.remove(dead)
    for terms in (["w1", "w2"], ["w7"], ["w3", "w1", "w3", "unknown"], ["w29", "w0", "w2"]):
        want = reference(docs, alive.tolist(), terms)
        for k in (1, 5, 25, 1000):
            for _ in range(2):  # the reused scratch buffers leave no trace between searches
                slots, scores = index.search(terms, alive, None, k)
                assert slots.tolist() == [i for i, _ in want[:k]]
                np.testing.assert_allclose(scores, [s for _, s in want[:k]], rtol=1e-5)
    allowed = np.zeros(len(docs), dtype=np.bool_)
    allowed[::2] = True
    slots, _ = index.search(["w1", "w2"], alive, allowed, 10)
    assert (
        slots.tolist()
        == [i for i, _ in reference(docs, alive.tolist(), ["w1", "w2"]) if i % 2 == 0][:10]
    )
    assert index.search(["unknown"], alive, None, 5)[0].size == 0


def test_a_selective_filter_is_looked_up_with_the_same_ranking_and_scores() -> None:
    """A filter keeping few documents is scored by looking them up in the posting lists:
    the same hits, in the same order, with bit-identical scores as scoring every posting
    and masking."""
    rng = np.random.default_rng(9)
    words = [f"w{i}" for i in range(12)]  # few words: long posting lists
    docs = [list(rng.choice(words, size=int(rng.integers(1, 12)))) for _ in range(3000)]
    docs += [["w1", "w2"]] * 30  # ties at the cut
    index = KeywordIndex()
    for start in range(0, len(docs), 700):
        index.add(docs[start : start + 700])
    alive = np.ones(len(docs), dtype=np.bool_)
    for dead in (4, 40, 400, 3010):
        alive[dead] = False
        index.remove(dead)
    for keep in (0.002, 0.01, 0.05):
        allowed = (rng.random(len(docs)) < keep) & alive
        allowed[3000:3020] = True  # some of the identical documents
        slots = np.flatnonzero(allowed).astype(np.int32)
        for terms in (["w1", "w2"], ["w7"], ["w3", "w1", "w11", "unknown"]):
            want = [i for i, _ in reference(docs, alive.tolist(), terms) if allowed[i]]
            for k in (1, 10, 1000):
                masked = index.search(terms, alive, allowed, k)
                looked_up = index.search(terms, alive, allowed, k, slots)
                assert looked_up[0].tolist() == masked[0].tolist() == want[:k]
                assert looked_up[1].tolist() == masked[1].tolist()


@pytest.mark.parametrize("sampled_min", [4096, 64], ids=["exact-top-k", "sampled-bound"])
def test_common_and_rare_terms_rank_alike_on_both_scoring_paths(
    monkeypatch: pytest.MonkeyPatch, sampled_min: int
) -> None:
    """Terms whose postings cover much of the collection are scored through one pass over
    the score buffer, rare ones posting by posting: the same hits, order and scores. With
    many hits, the top k is chosen among those at or above a bound read from a sample of
    the scores (``sampled-bound`` lowers the size where that starts): still exact, ties at
    the cut included."""
    monkeypatch.setattr(bm25, "_SAMPLED_MIN", sampled_min)
    rng = np.random.default_rng(13)
    common = [f"c{i}" for i in range(4)]
    rare = [f"r{i}" for i in range(400)]
    docs = [
        list(rng.choice(common, size=int(rng.integers(0, 4))))
        + list(rng.choice(rare, size=int(rng.integers(1, 4))))
        for _ in range(2000)
    ]
    docs += [["c1", "r1"]] * 25  # ties at the cut
    index = KeywordIndex()
    for start in range(0, len(docs), 500):
        index.add(docs[start : start + 500])
    alive = np.ones(len(docs), dtype=np.bool_)
    for dead in (7, 70, 2010):
        alive[dead] = False
        index.remove(dead)
    allowed = (rng.random(len(docs)) < 0.5) & alive
    queries = (["c1"], ["c0", "c2", "c3"], ["r5"], ["r1", "r2", "c1"], ["r9", "r399"])
    for terms in queries:
        for mask in (None, allowed):
            keep = alive if mask is None else mask
            want = [(i, s) for i, s in reference(docs, alive.tolist(), terms) if keep[i]]
            for k in (1, 10, 30, 3000):
                found = {}
                for path, ratio in (("dense", 10**9), ("sparse", 0)):
                    monkeypatch.setattr(bm25, "_DENSE_RATIO", ratio)
                    found[path] = index.search(terms, alive, mask, k)
                slots, scores = found["dense"]
                assert slots.tolist() == found["sparse"][0].tolist() == [i for i, _ in want[:k]]
                assert scores.tolist() == found["sparse"][1].tolist()
                np.testing.assert_allclose(scores, [s for _, s in want[:k]], rtol=1e-5)


def test_a_restored_index_reuses_its_saved_weights_only_for_their_own_avgdl() -> None:
    """The weights are saved with the postings: a reopened index's first search computes
    none; once a write moves the mean length, they are computed again, so its scores stay
    those of an index built from the documents."""
    docs = [["a", "b"], ["a"], ["b", "c", "c"], ["a", "c"]]
    built = KeywordIndex()
    built.add(docs)
    state = built.state()
    restored = KeywordIndex.restore(state)
    alive = np.ones(len(docs), dtype=np.bool_)
    hits = restored.search(["a", "c"], alive, None, 3)
    assert restored._segments[0].weights is state["weights"]  # not computed again
    expected = built.search(["a", "c"], alive, None, 3)
    assert hits[0].tolist() == expected[0].tolist()
    assert hits[1].tolist() == expected[1].tolist()
    more = [["c"] * 9]  # the mean length moves by far more than nothing
    restored.add(more)
    built.add(more)
    alive = np.ones(len(docs) + 1, dtype=np.bool_)
    hits = restored.search(["a", "c"], alive, None, 5)
    assert restored._segments[0].weights is not state["weights"]
    expected = built.search(["a", "c"], alive, None, 5)
    assert hits[0].tolist() == expected[0].tolist()
    assert hits[1].tolist() == expected[1].tolist()


def test_a_restored_vocabulary_is_searched_in_place_until_a_write() -> None:
    rng = np.random.default_rng(23)
    words = [f"w{i}" for i in range(500)] + ["ä", "zz", "a", "émile", "0"]
    docs = [list(rng.choice(words, size=4)) for _ in range(400)] + [words[-5:]]
    built = KeywordIndex()
    built.add(docs)
    restored = KeywordIndex.restore(built.state())
    alive = np.ones(len(docs), dtype=np.bool_)
    asked = (["ä"], ["0", "zz"], ["w17", "w499"], ["missing"], ["émile", "a"])
    for terms in asked + asked:  # the second time from the terms already looked up
        got, want = restored.search(terms, alive, None, 10), built.search(terms, alive, None, 10)
        assert got[0].tolist() == want[0].tolist()
        assert got[1].tolist() == want[1].tolist()
    assert restored._saved_vocab is not None  # no dict built for searching
    restored.add([["new", "w3"]])
    assert restored._saved_vocab is None
    alive = np.ones(len(docs) + 1, dtype=np.bool_)
    assert restored.search(["new"], alive, None, 3)[0].tolist() == [len(docs)]


def test_merged_segments_with_terms_new_to_later_batches_score_as_the_reference() -> None:
    """Segments are merged without re-sorting: a later batch's postings follow the
    earlier's within each term, terms first seen late included."""
    rng = np.random.default_rng(17)
    docs = []
    for batch in range(12):
        words = [f"w{i}" for i in range(3 * batch + 3)]  # each batch brings new terms
        docs += [list(rng.choice(words, size=int(rng.integers(1, 6)))) for _ in range(20)]
    index = KeywordIndex()
    for start in range(0, len(docs), 20):
        index.add(docs[start : start + 20])
    assert len(index._segments) < 12  # merged as they came
    alive = np.ones(len(docs), dtype=np.bool_)
    for terms in (["w0"], ["w34", "w1"], ["w20", "w5", "w33"]):
        want = reference(docs, alive.tolist(), terms)
        slots, scores = index.search(terms, alive, None, 50)
        assert slots.tolist() == [i for i, _ in want[:50]]
        np.testing.assert_allclose(scores, [s for _, s in want[:50]], rtol=1e-5)
    restored = KeywordIndex.restore(index.state())  # one segment of all of them
    for terms in (["w0"], ["w34", "w1"]):
        assert restored.search(terms, alive, None, 50)[0].tolist() == [
            i for i, _ in reference(docs, alive.tolist(), terms)[:50]
        ]


def test_a_restored_vocabulary_forgets_terms_past_its_bound_and_still_finds_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(bm25, "_KNOWN_TERMS", 2)
    built = KeywordIndex()
    built.add([["a", "b"], ["c"], ["b", "d"]])
    restored = KeywordIndex.restore(built.state())
    alive = np.ones(3, dtype=np.bool_)
    for terms in (["a"], ["b"], ["missing"], ["c"], ["d"], ["a"], ["b", "d"]):
        assert restored.search(terms, alive, None, 3)[0].tolist() == (
            built.search(terms, alive, None, 3)[0].tolist()
        )
    assert restored._saved_vocab is not None
    assert len(restored._saved_vocab._known) <= 2
