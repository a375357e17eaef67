"""The passage of a long record: the sentences around what matched, cut ends marked."""

import time

import pytest

from sedimem.assembly.passages import ELLIPSIS, passage, sentences
from sedimem.context.render import render_bullet, render_line
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


@pytest.mark.parametrize(
    "said",
    [
        "I went hiking near the lake with my dog Rex and we saw a heron.",
        "123 birds, mostly gulls.",
        "'Quoted' words, then more.",
        "Émigré café: crème brûlée.",
        "…a cut start",
        "first line\nsecond line",
        "x" * 300,
    ],
)
@pytest.mark.parametrize("speaker", ["Ana", None])
def test_a_texts_tokens_are_its_lines_less_the_lines_start(
    said: str, speaker: str | None, tokenizer: Tokenizer
) -> None:
    """What assembly reads a text's tokens from (the count its line needs anyway): the
    line's count less its start's is the text's own count, with the space before it."""
    label = "2024-05-01 success"
    head = render_bullet(label) + (f"{speaker}:" if speaker else "")
    line = render_line(f"{speaker}: {said}" if speaker else said, label)
    assert line.startswith(head)
    own = tokenizer.count(" " + said.replace("\n", "\n  ") + "\n")
    assert tokenizer.count(line) - tokenizer.count(head.rstrip()) == own
