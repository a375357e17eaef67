"""Which turns told what has since changed: read from the versions of the facts drawn
from them (:meth:`sedimem.longterm.semantic.SemanticMemory.outdated_sources`).

A turn is outdated when every fact drawn from it is no longer current (replaced,
corrected, ended or retracted), or when it told an older value of a subject and predicate
a question asks about, though it told other things that still hold. No turn a current
fact of it cites is outdated (a value said again keeps its first turn current).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable

from sedimem.longterm import records
from sedimem.types.longterm import Cardinality, Fact

__all__ = ["Key", "Versions", "key_of"]

#: A fact's subject and predicate, normalised.
Key = tuple[str, str]


def key_of(subject: str | None, predicate: str | None) -> Key:
    return records.normalise(subject or ""), records.normalise(predicate or "")


class Versions:
    """The versions of the facts drawn from some turns, added as they are read."""

    def __init__(self, turns: Collection[str], topics: Iterable[tuple[str, str]]) -> None:
        self._turns = set(turns)
        self._topics = {key_of(s, p) for s, p in topics}
        self._stated: set[str] = set()  # turns some version was drawn from
        self._current: set[str] = set()  # turns a version believed and holding now cites
        self._older: dict[Key, set[str]] = {}  # per subject and predicate
        self._newer: dict[Key, set[str]] = {}
        self._stated_as: dict[Key, Cardinality | None] = {}  # a fact's own cardinality

    def add(self, fact: Fact) -> None:
        sources = self._turns.intersection(fact.source_episode_ids)
        holds = fact.valid_to is None and fact.invalidated_at is None
        self._stated |= sources
        if holds:
            self._current |= sources
        key = key_of(fact.subject, fact.predicate)
        (self._newer if holds else self._older).setdefault(key, set()).update(sources)
        self._stated_as[key] = self._stated_as.get(key) or fact.cardinality

    def replaceable(self) -> list[Key]:
        """The subjects and predicates with both older and current values among the turns."""
        return [key for key in self._older.keys() & self._newer.keys() if key[1]]

    def stated_as(self, key: Key) -> Cardinality | None:
        return self._stated_as.get(key)

    def outdated(self, single: Callable[[Key], bool]) -> dict[str, set[str]]:
        """Each outdated turn, with the turns that told a current value replacing what it
        told (only where ``single``: the predicate holds one value; "eats fish" does not
        replace "eats meat", which ended on its own)."""
        outdated = self._stated - self._current
        for key in self._topics & self._older.keys():
            outdated |= self._older[key] - self._newer.get(key, set())
        replacing = [key for key in self.replaceable() if single(key)]
        return {
            turn: {
                later
                for key in replacing
                if turn in self._older[key]
                for later in self._newer[key]
                if later != turn
            }
            for turn in outdated
        }
