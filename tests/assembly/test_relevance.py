"""The pool a question is weighed on: when a candidate's meaning is clearly closer."""

from sedimem.assembly.question import read_question
from sedimem.assembly.relevance import CLEARLY, SPREAD_SAMPLE, Pool
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


def test_a_pool_too_small_to_measure_a_spread_judges_nothing_by_meaning() -> None:
    """Fewer than ``SPREAD_SAMPLE`` cosines, or all equal: no spread to stand out of, so
    nothing is left out as unmatched by meaning (a store holding one fact that answers in
    other words, "Ana flies from Porto" for "Which airport does Ana fly from?", shows it)."""
    for small in (pool(0.9), pool(0.2, 0.9), pool(*[0.5] * (SPREAD_SAMPLE - 1), 0.9)):
        assert not small.measured
        assert small.stands_out(near(0.9))
        assert small.stands_out(near(0.1))
    flat = pool(*[0.7] * (SPREAD_SAMPLE + 2))  # all equal: a spread of 0
    assert not flat.measured
    assert flat.stands_out(near(0.7))
    enough = pool(0.50, 0.51, 0.52, 0.53, 0.54, 0.90)
    assert enough.measured
    assert enough.stands_out(near(0.9))
    assert not enough.stands_out(near(0.5))
