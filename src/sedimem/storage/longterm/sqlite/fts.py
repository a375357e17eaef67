"""FTS5 keyword queries, and the tokenizer rules of the FTS5 table written in Python.

The table is tokenised by ``porter unicode61 remove_diacritics 2``: case-folded, diacritics
removed, tokens are runs of letters and digits (``_`` separates, as in unicode61).
:func:`fold_tokens` applies the same rules, so an in-memory index that analyses text with
it (and stems the tokens with Porter) finds the same rows as FTS5.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

__all__ = ["fold_tokens", "fts_or_query"]

_TOKEN = re.compile(r"[^\W_]+")


def fold_tokens(text: str) -> list[str]:
    """Lower-cased, accent-free word tokens of ``text`` (not stemmed)."""
    text = text.lower()
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _TOKEN.findall(text)


def fts_or_query(terms: Iterable[str]) -> str | None:
    """An FTS5 MATCH expression: every token of every term, quoted, joined by OR.

    User text never reaches MATCH as syntax: tokens are letters and digits only and each is
    a quoted string, so ``"``, ``*``, ``NEAR(`` or ``AND`` in a term are plain words or
    separators. ``None`` when no term has a token (nothing can match).
    """
    seen: dict[str, None] = {}
    for term in terms:
        for token in fold_tokens(term):
            seen.setdefault(token, None)
    if not seen:
        return None
    return " OR ".join('"' + token.replace('"', '""') + '"' for token in seen)
