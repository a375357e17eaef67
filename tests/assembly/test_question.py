"""Reading a question: its words, whom it names, whether it asks for advice or about time."""

import pytest

from sedimem.assembly.question import read_question
from sedimem.retrieval.index.analyzer import Analyzer


@pytest.fixture
def analyzer() -> Analyzer:
    return Analyzer()


def test_content_words_and_stems(analyzer: Analyzer) -> None:
    q = read_question("What did Caroline research about adoption agencies?", analyzer)
    assert q.words == {"caroline", "research", "adoption", "agencies"}
    assert "agenc" in q.stems  # stemmed as keyword search stems them
    assert q.named("Caroline")
    assert q.named("Caroline Smith")  # any word of a speaker's name
    assert not q.named("Melanie")


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        ("What did you recommend for my knee?", True),
        ("Which hotel was suggested for Oslo?", True),
        ("Any tips on sourdough?", True),
        ("Where does the user live now?", False),
        ("What is my dog's name?", False),
        ("Which restaurant did you list first?", True),
        ("What was the second step of your answer?", True),
        ("Remind me of the hotel you shared for Lisbon", True),
        ("What did I share with my sister?", False),
    ],
)
def test_advice(analyzer: Analyzer, text: str, advice: bool) -> None:
    assert read_question(text, analyzer).advice is advice


@pytest.mark.parametrize(
    ("text", "temporal"),
    [
        ("When did Ana move to Hamburg?", True),
        ("How long ago did I start climbing?", True),
        ("Which did I visit first, Rome or Oslo?", True),
        ("What did I do before the wedding?", True),
        ("What is my dog's name?", False),
    ],
)
def test_time(analyzer: Analyzer, text: str, temporal: bool) -> None:
    assert read_question(text, analyzer).temporal is temporal


def test_a_question_of_no_content_word(analyzer: Analyzer) -> None:
    for text in ("?", "what is it?", "!!"):
        q = read_question(text, analyzer)
        assert q.stems == ()
        assert not q.named("Ana")
