"""Hostile turns: long markdown, code, lists, other languages, emoji, punctuation only.

No crash, no facts from code or list boilerplate, and time linear in the text's length.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from sedimem.extraction import extract_statements

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)

MARKDOWN = (
    "## Setup\n\nHere is how I live in my terminal:\n\n"
    "```bash\n# I live in Paris\necho 'I work at Google'\n```\n\n"
    "- I love Rust\n- I am a vegan\n1. I live in Tokyo\n\n"
    "| I live in | Oslo |\n|---|---|\n\n"
    "> I work at Initech\n\n"
    "    I'm allergic to nuts (indented code)\n\n"
    "Some **bold** and _italic_ text, e.g. this. "
)
HOSTILE = {
    "markdown": MARKDOWN * (32_000 // len(MARKDOWN)),
    "code": "```python\n" + "I = 'I live in Rome.'\nprint(I)\n" * 1200 + "```",
    "list": "\n".join(f"- item {n}, things, more, and stuff" for n in range(1500)),
    "commas": "I like " + ", ".join(["a b c"] * 4000) + " and d",
    "spaces": "I like" + " " * 32_000 + "tea",
    "non_english": "Ich wohne in Berlin und arbeite bei Siemens. 我住在北京。" * 400,
    "emoji": "😀🎉🐶 " * 6000,
    "punctuation": "?!.,;:-—()[]{}'\"" * 2000,
    "dots": "." * 32_000,
    "no_end": "I love " + "very " * 6400,
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_no_crash_no_junk_in_bounded_time(kind: str) -> None:
    text = HOSTILE[kind]
    started = time.perf_counter()
    for role in ("user", "assistant"):
        found = extract_statements(text, "ana", NOW, role=role, addressee="ana")
        if role == "assistant" or kind not in ("markdown", "commas", "spaces"):
            assert found == [], [s.fact.statement for s in found]
    assert time.perf_counter() - started < 2.0


def test_markdown_lists_are_read_only_in_user_turns_and_code_never() -> None:
    found = {s.fact.statement for s in extract_statements(MARKDOWN, "ana", NOW)}
    # a user's own list items state facts; code, tables of code, quotes of others do not
    assert "ana likes Rust." in found
    assert not any("Paris" in f or "Google" in f or "nuts" in f for f in found)
    assistant = extract_statements(MARKDOWN, None, NOW, role="assistant", addressee="ana")
    assert assistant == []


def test_time_grows_linearly() -> None:
    unit = MARKDOWN + "I live in Leeds and I'm allergic to penicillin. What about you? "
    timings = []
    for size in (8_000, 32_000):
        text = unit * (size // len(unit))
        started = time.perf_counter()
        extract_statements(text, "ana", NOW)
        timings.append(time.perf_counter() - started)
    # reading stops at MAX_READ_CHARS, so 4x the text costs at most ~4x (here: about 1x)
    assert timings[1] < 6 * timings[0] + 0.05
