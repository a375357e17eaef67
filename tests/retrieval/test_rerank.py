"""The second stage: coverage of the query's words, the time it names, session mass."""

from datetime import UTC, datetime

import pytest

from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.retrieval.rerank import RerankCandidate, RerankWeights, asks_when, rerank
from sedimem.retrieval.terms import query_terms

NOW = datetime(2023, 8, 11, tzinfo=UTC).timestamp()
ONLY = dict.fromkeys(("coverage", "time", "when", "session"), 0.0)


def weights(**given: float) -> RerankWeights:
    return RerankWeights(**{**ONLY, **given}, time_half_life_days=7.0)


def at(day: str) -> float:
    return datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp()


def order(query: str, candidates: list[RerankCandidate], w: RerankWeights) -> list[str]:
    analyzer = Analyzer()
    stems = analyzer.query_terms(query_terms(query))
    return [r.id for r in rerank(query, stems, candidates, matcher=analyzer, now=NOW, weights=w)]


def test_without_weights_the_first_stage_order_stays() -> None:
    cands = [RerankCandidate(str(i), f"text {i}", NOW, None, 1.0 - i / 10) for i in range(5)]
    assert order("anything at all", cands, weights()) == ["0", "1", "2", "3", "4"]
    ties = [RerankCandidate(str(i), "same", NOW, None, 0.5) for i in range(3)]
    assert order("same", ties, weights(coverage=1.0)) == ["0", "1", "2"]


def test_coverage_prefers_the_record_holding_every_word_stemmed() -> None:
    cands = [
        RerankCandidate("one-word", "Adoption adoption adoption news", NOW, None, 0.50),
        RerankCandidate("all-words", "She researched adoption agencies", NOW, None, 0.45),
    ]
    query = "Which adoption agency did she research?"
    assert order(query, cands, weights()) == ["one-word", "all-words"]
    assert order(query, cands, weights(coverage=1.0)) == ["all-words", "one-word"]


def test_a_named_time_ranks_the_record_of_that_time_first() -> None:
    cands = [
        RerankCandidate("march", "Ana: I went hiking with my sister", at("2023-03-14"), None, 0.5),
        RerankCandidate("may", "Ana: I went hiking in the hills", at("2023-05-20"), None, 0.4),
        RerankCandidate("july", "Ana: hiking again, lovely", at("2023-07-02"), None, 0.45),
    ]
    assert order("What did Ana do last May?", cands, weights(time=1.0))[0] == "may"
    assert order("What did Ana do in March 2023?", cands, weights(time=1.0))[0] == "march"


def test_a_date_in_the_text_counts_read_from_the_record_time() -> None:
    # told on 8 June: "yesterday" is 7 June
    cands = [
        RerankCandidate("other", "Bo: the concert was great", at("2023-06-20"), None, 0.5),
        RerankCandidate("told", "Bo: yesterday I sang at a concert", at("2023-06-08"), None, 0.3),
    ]
    w = weights(time=1.0)
    assert order("What happened on 7 June, 2023?", cands, w) == ["told", "other"]


def test_a_when_question_prefers_records_naming_a_time() -> None:
    cands = [
        RerankCandidate("vague", "Cy: I ran a charity race", NOW, None, 0.5),
        RerankCandidate("dated", "Cy: I ran a charity race last Sunday", NOW, None, 0.45),
    ]
    assert order("When did Cy run the race?", cands, weights(when=0.3)) == ["dated", "vague"]
    assert order("Did Cy run the race?", cands, weights(when=0.3)) == ["vague", "dated"]


def test_session_mass_lifts_the_best_turn_of_a_rich_session() -> None:
    cands = [
        RerankCandidate("lone", "x", NOW, "s1", 0.50),
        RerankCandidate("best-of-two", "y", NOW, "s2", 0.45),
        RerankCandidate("other-of-two", "z", NOW, "s2", 0.30),
    ]
    assert order("q", cands, weights())[0] == "lone"
    assert order("q", cands, weights(session=0.5))[:2] == ["best-of-two", "lone"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("When did Melanie paint a sunrise?", True),
        ("what year did they move?", True),
        ("How long ago was her birthday?", True),
        ("What did Melanie paint?", False),
    ],
)
def test_asks_when(query: str, expected: bool) -> None:
    assert asks_when(query) is expected


def test_analyzer_folds_many_texts_like_the_index() -> None:
    analyzer = Analyzer()
    folded, starts = analyzer.fold_many(["Café naïve\u2014it\u2019s", "ASCII, text_here!", "a\0b"])
    pieces = folded.split("\0")
    assert pieces[0].split() == ["cafe", "naive", "it", "s"]
    assert pieces[1].split() == ["ascii", "text", "here"]
    assert pieces[2].split() == ["a", "b"]  # a NUL inside a text never splits it
    assert [folded[s + 1 : s + 3] for s in starts] == ["ca", "as", "a "]
    assert analyzer.stem("agencies") == analyzer.stem("agency")
