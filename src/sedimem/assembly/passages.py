"""The passage of a long record that answers: the sentences around what matched.

A record longer than the passage limit contributes its best sentence (the one holding the
most of the question's weighted stems; the first one when none holds any) and then its
neighbours, next before previous, while they fit. A cut end is marked with an ellipsis, so a
reader (and a model) knows there is more; the item keeps the record's id to fetch it whole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from sedimem.context.tokens import Tokenizer
from sedimem.retrieval.index.analyzer import Analyzer

__all__ = ["ELLIPSIS", "PASSAGE_TOKENS", "fits_uncounted", "passage", "sentences"]

#: A record whose text is longer than this many tokens contributes a passage of at most it.
PASSAGE_TOKENS = 80
ELLIPSIS = "…"
# A sentence ends at . ! ? (with closing quotes or brackets) before a space and a capital,
# digit or opening mark; a line break always ends one (lists, code, paragraphs).
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\s*\n+\s*")
_SHORT = 3  # "e.g." "Dr." "St.": a piece this short joins the next one


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences and lines (empty pieces dropped)."""
    pieces: list[str] = []
    carry = ""
    for piece in _BOUNDARY.split(text):
        piece = (carry + " " + piece).strip() if carry else piece.strip()
        carry = ""
        if not piece:
            continue
        last = piece.rsplit(None, 1)[-1]
        if len(last) <= _SHORT and last.endswith(".") and last[:1].isupper():
            carry = piece  # an abbreviation, not the end of a sentence
            continue
        pieces.append(piece)
    if carry:
        pieces.append(carry)
    return pieces


def passage(
    text: str,
    weights: Mapping[str, float],
    *,
    analyzer: Analyzer,
    tokenizer: Tokenizer,
    limit: int = PASSAGE_TOKENS,
    tokens: int | None = None,
) -> tuple[str, bool]:
    """The passage of ``text`` to show and whether it is cut; ``weights``: stem -> weight.
    ``tokens``: the tokens of ``text`` when the caller knows them (else they are counted)."""
    if fits_uncounted(text, limit):
        return text, False
    if (tokenizer.count(text) if tokens is None else tokens) <= limit:
        return text, False
    parts = sentences(text)
    if len(parts) <= 1:
        return tokenizer.truncate(text, limit).rstrip() + " " + ELLIPSIS, True
    held = [sum(weights.get(s, 0.0) for s in set(analyzer.terms(p))) for p in parts]
    best = max(range(len(parts)), key=lambda i: (held[i], -i))
    costs = [tokenizer.count(p) + 1 for p in parts]
    first = last = best
    used = costs[best]
    if used > limit:
        cut = tokenizer.truncate(parts[best], limit).rstrip()
        return _marked(cut + " " + ELLIPSIS, best > 0, False), True
    while True:
        grew = False
        for nxt in (last + 1, first - 1):
            outside = nxt > last or nxt < first
            if 0 <= nxt < len(parts) and outside and used + costs[nxt] <= limit:
                used += costs[nxt]
                first, last = min(first, nxt), max(last, nxt)
                grew = True
        if not grew:
            break
    body = " ".join(parts[first : last + 1])
    before, after = first > 0, last < len(parts) - 1
    return _marked(body, before, after), before or after


def fits_uncounted(text: str, limit: int = PASSAGE_TOKENS) -> bool:
    """Whether ``text`` fits ``limit`` tokens without counting them: a byte-level tokenizer
    (tiktoken's; words count fewer) makes no more tokens than bytes, so a text of at most
    ``limit`` UTF-8 bytes does (most short turns); packing counts every line exactly."""
    return len(text.encode("utf-8", "surrogatepass")) <= limit


def _marked(body: str, before: bool, after: bool) -> str:
    return (ELLIPSIS + " " if before else "") + body + (" " + ELLIPSIS if after else "")
