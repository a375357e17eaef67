"""The sentence splitter: abbreviations, initials, decimals, quotes, lists, code, markdown."""

from __future__ import annotations

import time

import pytest

from sedimem.extraction.sentences import Sentence, split_sentences


def texts(text: str) -> list[str]:
    return [s.text for s in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I'm a nurse at St. Mary's hospital. I live in Leeds.",
            ["I'm a nurse at St. Mary's hospital.", "I live in Leeds."],
        ),
        ("Dr. Smith and J. R. R. Tolkien met. Then we left.",
         ["Dr. Smith and J. R. R. Tolkien met.", "Then we left."]),
        ("It costs 3.50 euros. Cheap!", ["It costs 3.50 euros.", "Cheap!"]),
        ("Fruit, e.g. apples, is fine. Yes.", ["Fruit, e.g. apples, is fine.", "Yes."]),
        ('She said "I quit." Then she left.', ['She said "I quit."', "Then she left."]),
        ("wait... really? yes!! ok", ["wait... really?", "yes!!", "ok"]),
        ("i live in leeds. i'm a nurse", ["i live in leeds.", "i'm a nurse"]),
        ("Me and I. Done.", ["Me and I.", "Done."]),
        ("", []),
        ("?!?!", ["?!?!"]),
    ],
)  # fmt: skip
def test_prose(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_markdown_lists_code_and_quotes() -> None:
    text = (
        "Here are **some** ideas:\n\n"
        "1. Greek yogurt\n"
        "- Dark chocolate (85% cocoa)\n"
        "* Baked apples\n\n"
        "# A heading\n"
        "> a quote\n"
        "| a | table |\n\n"
        "```python\nI = 3\nprint('I live in Rome.')\n```\n"
        "    indented code line\n"
        "Use `len(my_list)` first. I hope it helps."
    )
    found = split_sentences(text)
    assert found[0] == Sentence("Here are some ideas:")
    assert [s.text for s in found if s.listed] == [
        "Greek yogurt", "Dark chocolate (85% cocoa)", "Baked apples", "A heading", "a quote",
        "a | table",
    ]  # fmt: skip
    prose = [s.text for s in found if not s.listed]
    assert prose[-2:] == ["Use code first.", "I hope it helps."]
    assert not any("Rome" in s.text or "indented" in s.text for s in found)  # code is not prose
    assert found[0].question is False
    assert Sentence("Really?)").question


def test_time_is_linear_in_the_length() -> None:
    """A 32,000-character paste and one 4x as long: no pattern backtracks super-linearly."""
    unit = "Some **markdown** text with St. Mary's, 3.5 kg and e.g. items... really?! "
    small, large = unit * (32_000 // len(unit)), unit * (128_000 // len(unit))
    timings = []
    for text in (small, large):
        runs = []
        for _ in range(3):  # the best of three: a scheduler pause is not the splitter's time
            started = time.perf_counter()
            split_sentences(text)
            runs.append(time.perf_counter() - started)
        timings.append(min(runs))
    assert timings[0] < 0.5
    assert timings[1] < 8 * timings[0] + 0.05  # ~4x, with room for a loaded machine
    # the worst cases of a splitter: one endless line without an end mark, a wall of dots
    for text in ("word " * 8000, "." * 32_000, "a." * 16_000, "-" * 32_000):
        started = time.perf_counter()
        split_sentences(text)
        assert time.perf_counter() - started < 0.5
