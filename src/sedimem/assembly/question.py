"""What a question asks, read once per ``assemble``: its words, whom it names, what kind.

The words decide which memories match (:mod:`sedimem.assembly.relevance`); the kind
decides who is heard first and how items are ordered:

- a question about **advice** (what was recommended, suggested, said by the assistant)
  prefers the assistant's turns; any other question prefers what people said themselves;
- a question that **names a speaker** ("What did Caroline research?") prefers that
  speaker's own turns over others' turns that merely address them;
- a question about **time or order** ("when", "how long ago", "first", "before") gets
  its dated items in time order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.retrieval.terms import STOPWORDS

__all__ = ["Question", "read_question"]

_WORD = re.compile(r"\w+", re.UNICODE)
_ADVICE = re.compile(
    r"\b(?:recommend\w*|suggest\w*|advi[sc]e\w*|tip|tips|you\s+(?:said|told|mentioned|"
    r"gave|proposed|provided|listed|shared|described|explained|wrote|named|offered)|your\s+"
    r"(?:answer|response|reply|list|explanation)|assistant|did\s+you)\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"^\s*when\b|\bwhat\s+(?:time|date|day|year|month)\b|\bhow\s+long\b|\bwhich\s+"
    r"(?:day|year|month|date)\b|\b(?:first|last|before|after|earlier|later|latest|"
    r"recently|order|since|until|ago)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Question:
    """A question as the assembly reads it."""

    text: str
    words: frozenset[str]
    """Its lower-case content words (stop words left out)."""
    stems: tuple[str, ...]
    """Its content words, stemmed as keyword search stems them, in order."""
    advice: bool
    """Asks what the assistant recommended or said."""
    temporal: bool
    """Asks when, how long ago, or in which order."""

    def named(self, speaker: str) -> bool:
        """Whether the question names ``speaker`` (by any word of the name)."""
        return any(part in self.words for part in _WORD.findall(speaker.lower()))


def read_question(text: str, analyzer: Analyzer) -> Question:
    """Read ``text`` (already checked as a query)."""
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
    stems = tuple(dict.fromkeys(s for w in words for s in analyzer.terms(w)))
    return Question(
        text=text,
        words=frozenset(words),
        stems=stems,
        advice=_ADVICE.search(text) is not None,
        temporal=_TIME.search(text) is not None,
    )
