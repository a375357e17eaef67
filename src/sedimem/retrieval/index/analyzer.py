"""Text analysis for keyword search: the same rules for documents and for query terms.

Tokens follow the rules of the SQLite store's FTS5 table (:func:`fold_tokens`), each
reduced by the Porter stemmer as FTS5's ``porter`` tokenizer does. Keeping both sides
identical is what lets the in-memory index and FTS5 find the same rows.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

import Stemmer  # type: ignore[import-not-found,unused-ignore]

from sedimem.storage.longterm.sqlite.fts import fold_tokens

__all__ = ["Analyzer"]

_STEM_CACHE = 500_000  # distinct tokens remembered (a few tens of MB at most)
# ASCII text: every character but a letter or a digit separates tokens (``fold_tokens``'s
# rule restricted to ASCII), so lower() + translate() + split() tokenise it in C.
_FOLD_MANY = str.maketrans({chr(c): " " for c in range(1, 128) if not chr(c).isalnum()})


_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_SEPARATOR = re.compile(r"[\W_]+")


def _fold(text: str) -> str:
    """``fold_tokens`` with regexes: lowered, diacritics (the combining blocks) dropped,
    separators made spaces."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return _SEPARATOR.sub(" ", _COMBINING.sub("", decomposed))


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

    def fold_many(self, texts: Sequence[str]) -> tuple[str, list[int]]:
        """The texts' tokens (``fold_tokens``' rules, not stemmed) in one string: each text
        as its tokens separated by spaces, with a space at each end, the texts joined by
        NUL; and where each text starts. ``" " + word`` then finds every token starting
        with ``word`` in all the texts by substring searches, in C."""
        # ASCII (the usual case) is lowered and its separators mapped to spaces below, in C
        # and over all the texts at once; other text is folded first, with regexes.
        pieces = [
            " " + (text.replace("\0", " ") if text.isascii() else _fold(text)) + " "
            for text in texts
        ]
        starts = []
        at = 0
        for piece in pieces:
            starts.append(at)
            at += len(piece) + 1
        return "\0".join(pieces).lower().translate(_FOLD_MANY), starts

    def stem(self, token: str) -> str:
        """The stem of one token (remembered)."""
        stems = self._stems
        found = stems.get(token)
        if found is None:
            if len(stems) > _STEM_CACHE:
                stems.clear()
            found = stems[token] = self._stemmer.stemWord(token)
        return found

    def stem_many(self, tokens: list[str]) -> list[str]:
        """The stems of ``tokens`` (remembered; the unknown ones stemmed in one call)."""
        stems = self._stems
        found = list(map(stems.get, tokens))
        missing = [t for t, s in zip(tokens, found, strict=True) if s is None]
        if not missing:
            return found  # type: ignore[return-value]
        if len(stems) + len(missing) > _STEM_CACHE:
            stems.clear()
            missing = list(dict.fromkeys(tokens))
        stems.update(zip(missing, self._stemmer.stemWords(missing), strict=True))
        return [stems[t] for t in tokens]

    def query_terms(self, terms: Sequence[str]) -> list[str]:
        """The distinct stemmed terms of a query (a term may hold several words)."""
        seen: dict[str, None] = {}
        for term in terms:
            for stem in self.terms(term):
                seen.setdefault(stem, None)
        return list(seen)
