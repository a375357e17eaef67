"""Text analysis for keyword search: the same rules for documents and for query terms.

Tokens follow the rules of the SQLite store's FTS5 table (:func:`fold_tokens`), each
reduced by the Porter stemmer as FTS5's ``porter`` tokenizer does. Keeping both sides
identical is what lets the in-memory index and FTS5 find the same rows.
"""

from __future__ import annotations

from collections.abc import Sequence

import Stemmer  # type: ignore[import-not-found,unused-ignore]

from sedimem.storage.longterm.sqlite.fts import fold_tokens

__all__ = ["Analyzer"]

_STEM_CACHE = 500_000  # distinct tokens remembered (a few tens of MB at most)


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
