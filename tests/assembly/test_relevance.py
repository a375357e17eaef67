"""The pool a question is weighed on: when a candidate's meaning is clearly closer."""

from sedimem.assembly.question import read_question
from sedimem.assembly.relevance import CLEARLY, Pool
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.types.search import ScoreBreakdown

ANALYZER = Analyzer()
QUESTION = read_question("Does Maya still have a cat?", ANALYZER)


def near(cosine: float | None) -> ScoreBreakdown:
    return ScoreBreakdown(vector=cosine)


def pool(*cosines: float | None) -> Pool:
    texts = [f"candidate {i}" for i in range(len(cosines))]
    return Pool.of(QUESTION, texts, ANALYZER, cosines=cosines)


def test_only_a_cosine_well_above_the_pools_median_stands_out() -> None:
    found = pool(0.70, 0.71, 0.72, 0.73, 0.90, None)
    assert found.baseline == 0.72
    assert round(found.spread, 6) == 0.01  # deviations 0.02 0.01 0 0.01 0.18
    assert found.stands_out(near(0.90))
    assert not found.stands_out(near(0.73))  # above the median, within the pool's spread
    assert found.stands_out(near(0.72 + CLEARLY * 0.01 + 0.001))
    assert not found.stands_out(near(0.72 + CLEARLY * 0.01 - 0.001))
    assert not found.stands_out(near(None))  # found by keyword alone
    assert not found.stands_out(None)


def test_the_bar_follows_the_embedders_scale_not_a_constant() -> None:
    # a model that puts everything near 0.7, and one that spreads candidates widely
    tight = pool(0.69, 0.70, 0.70, 0.71, 0.75)
    wide = pool(0.10, 0.30, 0.50, 0.60, 0.75)
    assert tight.stands_out(near(0.75))
    assert not wide.stands_out(near(0.75))


def test_of_two_candidates_or_one_none_stands_out() -> None:
    two = pool(0.2, 0.9)
    assert not two.stands_out(near(0.9))
    one = pool(0.9)
    assert not one.stands_out(near(0.9))
