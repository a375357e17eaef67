import pytest

from sedimem.evaluation.metrics import ndcg_at, recall_all_at, recall_any_at


def test_recall_any_and_all() -> None:
    ranked = ["a", "b", "c", "d"]
    assert recall_any_at(ranked, {"c"}, 2) == 0.0
    assert recall_any_at(ranked, {"c"}, 3) == 1.0
    assert recall_all_at(ranked, {"a", "d"}, 3) == 0.5
    assert recall_all_at(ranked, set(), 3) == 0.0


def test_ndcg() -> None:
    assert ndcg_at(["a", "b"], {"a"}, 10) == 1.0
    assert ndcg_at(["x", "a"], {"a"}, 10) == pytest.approx(1 / 1.5849625, rel=1e-6)
    assert ndcg_at(["x"], {"a"}, 10) == 0.0
    assert ndcg_at([], set(), 10) == 0.0
