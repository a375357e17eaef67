"""The passage of a long record: the sentences around what matched, cut ends marked."""

import time

import pytest

from sedimem.assembly.passages import ELLIPSIS, passage, sentences
from sedimem.context.tokens import Tokenizer, default_tokenizer
from sedimem.retrieval.index.analyzer import Analyzer


@pytest.fixture
def analyzer() -> Analyzer:
    return Analyzer()


@pytest.fixture
def tokenizer() -> Tokenizer:
    return default_tokenizer()


def test_sentences_respect_abbreviations_lists_and_lines() -> None:
    text = (
        "Dr. Smith works at St. Mary's hospital. She is 1.75 m tall!\n"
        "- first item\n- second item\n\nIs it 5 p.m. already? Yes."
    )
    assert sentences(text) == [
        "Dr. Smith works at St. Mary's hospital.",
        "She is 1.75 m tall!",
        "- first item",
        "- second item",
        "Is it 5 p.m. already?",
        "Yes.",
    ]
    assert sentences("") == []
    assert sentences("   \n\n ") == []


def test_a_short_text_is_kept_whole(analyzer: Analyzer, tokenizer: Tokenizer) -> None:
    text = "I adopted a kitten named Pixel. She is grey."
    assert passage(text, {"pixel": 1.0}, analyzer=analyzer, tokenizer=tokenizer) == (text, False)


def test_a_long_answer_gives_the_lines_around_the_match(
    analyzer: Analyzer, tokenizer: Tokenizer
) -> None:
    filler = [
        f"Step {i}: keep the {w} handy and check it twice." for i, w in enumerate("abcdefghij")
    ]
    text = " ".join([*filler[:5], "The binoculars should be 8x42 for birding.", *filler[5:]])
    weights = dict.fromkeys(analyzer.terms("binoculars birding"), 1.0)
    shown, cut = passage(text, weights, analyzer=analyzer, tokenizer=tokenizer, limit=40)
    assert cut
    assert "8x42" in shown
    assert shown.startswith(ELLIPSIS)
    assert shown.endswith(ELLIPSIS)
    assert tokenizer.count(shown) <= 40 + 4  # the marks cost a token or two each
    # with no sentence matching, the passage starts at the beginning
    shown, cut = passage(text, {"zebra": 1.0}, analyzer=analyzer, tokenizer=tokenizer, limit=40)
    assert cut
    assert shown.startswith("Step 0")
    assert shown.endswith(ELLIPSIS)


def test_one_huge_sentence_is_cut_to_the_limit(analyzer: Analyzer, tokenizer: Tokenizer) -> None:
    text = "word " * 5000
    shown, cut = passage(text, {}, analyzer=analyzer, tokenizer=tokenizer, limit=50)
    assert cut
    assert tokenizer.count(shown) <= 52


def test_time_grows_linearly_with_the_text(analyzer: Analyzer, tokenizer: Tokenizer) -> None:
    block = "```python\nprint('x')\n```\n- item one\n- item two\nA sentence here. Émoji 🎉!\n"

    def cost(n: int) -> float:
        start = time.perf_counter()
        passage(block * n, {"item": 1.0}, analyzer=analyzer, tokenizer=tokenizer)
        return time.perf_counter() - start

    cost(50)  # warm the caches
    small, large = min(cost(100) for _ in range(3)), min(cost(800) for _ in range(3))
    assert large < small * 8 * 4  # 8x the text: well under quadratic (64x)
