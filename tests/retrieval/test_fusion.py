import pytest
from hypothesis import given
from hypothesis import strategies as st

from sedimem.retrieval.fusion import Candidate, RetrievalSettings, fuse
from sedimem.retrieval.terms import MAX_TERMS, query_terms

NOW = 1_700_000_000.0
DAY = 86400.0
NEUTRAL = RetrievalSettings(recency_weight=0, importance_weight=0)


def cands(*ids: str, age_days: float = 0.0, importance: float = 0.5) -> dict[str, Candidate]:
    return {i: Candidate(NOW - age_days * DAY, importance) for i in ids}


def test_items_in_both_lists_beat_items_in_one() -> None:
    fused = fuse(
        [("a", 9.0), ("b", 5.0)],
        [("b", 0.9), ("c", 0.8)],
        cands("a", "b", "c"),
        now=NOW,
        settings=NEUTRAL,
    )
    assert [rid for rid, _ in fused] == ["b", "a", "c"]
    why = dict(fused)["b"]
    assert (why.keyword, why.keyword_rank, why.vector, why.vector_rank) == (5.0, 2, 0.9, 1)
    assert dict(fused)["a"].vector is None
    assert 0 < why.fused <= 1


def test_first_in_every_list_scores_one() -> None:
    fused = fuse([("a", 1.0)], [("a", 1.0)], cands("a"), now=NOW, settings=NEUTRAL)
    assert fused[0][1].fused == pytest.approx(1.0)
    single = fuse([("a", 1.0)], [], cands("a"), now=NOW, settings=NEUTRAL)
    assert single[0][1].fused == pytest.approx(1.0)


def test_recency_and_importance_break_ties() -> None:
    settings = RetrievalSettings(recency_weight=0.1, importance_weight=0.1)
    candidates = {
        "old": Candidate(NOW - 300 * DAY, 0.5),
        "new": Candidate(NOW, 0.5),
    }
    fused = fuse([("old", 1.0)], [("new", 1.0)], candidates, now=NOW, settings=settings)
    assert [rid for rid, _ in fused] == ["new", "old"]
    assert dict(fused)["new"].recency == pytest.approx(1.0)
    half = fuse([("x", 1.0)], [], cands("x", age_days=30), now=NOW, settings=settings)
    assert half[0][1].recency == pytest.approx(0.5)
    important = {"lo": Candidate(NOW, 0.1), "hi": Candidate(NOW, 0.9)}
    fused = fuse([("lo", 1.0)], [("hi", 1.0)], important, now=NOW, settings=settings)
    assert fused[0][0] == "hi"


def test_unknown_ids_are_dropped() -> None:
    assert fuse([("gone", 1.0)], [], {}, now=NOW, settings=NEUTRAL) == []


@given(
    st.lists(st.text(min_size=1, max_size=3), unique=True, max_size=20),
    st.lists(st.text(min_size=1, max_size=3), unique=True, max_size=20),
)
def test_fusion_is_a_ranking_of_the_union(kw: list[str], vec: list[str]) -> None:
    candidates = cands(*kw, *vec)
    fused = fuse(
        [(i, 1.0) for i in kw],
        [(i, 1.0) for i in vec],
        candidates,
        now=NOW,
        settings=RetrievalSettings(),
    )
    assert {rid for rid, _ in fused} == set(kw) | set(vec)
    scores = [why.score for _, why in fused]
    assert scores == sorted(scores, reverse=True)


def test_query_terms_drop_stopwords_and_duplicates() -> None:
    assert query_terms("When did Caroline go to the LGBTQ support group?") == [
        "caroline",
        "go",
        "lgbtq",
        "support",
        "group",
    ]
    assert query_terms("the THE a") == []
    assert query_terms('NEAR(" * AND -xx:yy') == ["near", "xx", "yy"]
    assert len(query_terms(" ".join(f"w{i}" for i in range(100)))) == MAX_TERMS
    assert query_terms("2 cats") == ["2", "cats"]
