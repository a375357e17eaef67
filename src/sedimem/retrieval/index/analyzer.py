"""Text analysis for keyword search: the same rules for documents and for query terms.

The rules mirror the FTS5 tokenizer the durable index uses
(``porter unicode61 remove_diacritics 2``): case-folded, diacritics removed, tokens are runs
of letters and digits (``_`` separates, as in unicode61), each reduced by the Porter stemmer.
Keeping both sides identical is what lets the in-memory index and FTS5 find the same rows.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

import Stemmer  # type: ignore[import-not-found,unused-ignore]

__all__ = ["Analyzer", "fold_tokens", "fts_or_query"]

_TOKEN = re.compile(r"[^\W_]+")
_STEM_CACHE = 500_000  # distinct tokens remembered (a few tens of MB at most)


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


class Analyzer:
    """Turns text into stemmed terms. Not thread-safe (the stemmer keeps a cache)."""

    def __init__(self) -> None:
        self._stemmer = Stemmer.Stemmer("porter")
        # token -> stem: a dict lookup is cheaper than a call into the stemmer, and a
        # vocabulary repeats (Zipf) so almost every token is found here.
        self._stems: dict[str, str] = {}

    def terms(self, text: str) -> list[str]:
        """The stemmed terms of a document, repeated as often as they occur."""
        tokens = fold_tokens(text)
        stems = self._stems
        try:
            return list(map(stems.__getitem__, tokens))  # the usual case: all seen before
        except KeyError:
            missing = [t for t in tokens if t not in stems]
            if len(stems) > _STEM_CACHE:
                stems.clear()
            stems.update(zip(missing, self._stemmer.stemWords(missing), strict=True))
            return [stems.get(t) or self._stemmer.stemWord(t) for t in tokens]

    def query_terms(self, terms: Sequence[str]) -> list[str]:
        """The distinct stemmed terms of a query (a term may hold several words)."""
        seen: dict[str, None] = {}
        for term in terms:
            for stem in self.terms(term):
                seen.setdefault(stem, None)
        return list(seen)
