"""The development set of user/assistant chats (written for these tests): precision first.

The rules were written looking at these chats, so the figures are development figures;
the held-out figures are the persona set's untuned half (tests/evaluation/test_persona.py).
"""

from __future__ import annotations

from tests.extraction.dev_chats import CHATS
from tests.extraction.devscore import score


def test_the_development_chats() -> None:
    result = score()
    assert len(CHATS) >= 25
    assert result.precision >= 0.95, result.wrong
    assert result.recall >= 0.85, result.missed
    # nothing the assistant advised, asked or listed, and no replaced value, is learned
    assert result.forbidden == []
