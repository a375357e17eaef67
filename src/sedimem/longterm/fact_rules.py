"""The rules one fact is held to against the versions already believed: whether it holds at
a time, whether an ending ends a value, what a reinforcement keeps, what a write locks and
reads, how an edit keeps a statement in agreement with its parts, and the error of an edit
of a retired fact. Pure functions: :class:`~sedimem.longterm.semantic.SemanticMemory`
does the reading and writing."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sedimem.errors import Conflict, ValidationError
from sedimem.extraction.vocabulary import phrase
from sedimem.longterm import records
from sedimem.storage.longterm.base import RecordFilter
from sedimem.types.longterm import Fact

__all__ = ["agreeing", "covers", "ends_object", "lock_and_filter", "reinforce", "retired"]


def covers(fact: Fact, at: datetime) -> bool:
    """Whether ``fact`` holds in the world at ``at``."""
    return fact.valid_from <= at and (fact.valid_to is None or at < fact.valid_to)


_ARTICLES = frozenset({"a", "an", "the"})


def ends_object(current: str | None, ended: str | None) -> bool:
    """Whether ending ``ended`` ends the ``current`` object: the same words, the words it
    begins with, or the words it ends with (a thing is named again by its last words),
    compared without case, spacing or articles ("the guitar" ends "guitar in a band";
    "plays tennis" ends the habit "plays tennis every Sunday"; "named Luna" ends "cat
    named Luna", "my Civic" ends "a 2015 Honda Civic"; "meat" does not end "meatballs",
    nor "Honda" "a 2015 Honda Civic")."""

    def words(text: str | None) -> list[str]:
        return [w for w in records.normalise(text or "").split() if w not in _ARTICLES]

    gone, have = words(ended), words(current)
    if not gone:
        return have == gone
    return have[: len(gone)] == gone or have[-len(gone) :] == gone


def reinforce(known: Fact, again: Fact) -> Fact:
    return known.model_copy(
        update={
            "reinforcement_count": known.reinforcement_count + 1,
            "confidence": max(known.confidence, again.confidence),
            "source_episode_ids": list(
                dict.fromkeys(known.source_episode_ids + again.source_episode_ids)
            ),
        }
    )


def lock_and_filter(fact: Fact) -> tuple[str, RecordFilter]:
    """What a write about ``fact`` locks and reads: every current value of its subject and
    predicate when structured (supersession and conflicts need them all), else the current
    versions of its statement."""
    if fact.subject is not None and fact.predicate is not None:
        subject, predicate = records.normalise(fact.subject), records.normalise(fact.predicate)
        flt = RecordFilter(
            kind=records.FACT,
            subject=subject,
            predicate=predicate,
            current=True,
            user=fact.scope.user,
        )
        return f"fact:{subject}\x1f{predicate}", flt
    key = records.statement_key(fact)
    flt = RecordFilter(kind=records.FACT, name=key, current=True, user=fact.scope.user)
    return f"fact:{key}", flt


def agreeing(known: Fact, given: dict[str, Any]) -> dict[str, Any]:
    """The changes, with a structured fact's statement kept in agreement with its parts.

    A new object without a new statement re-phrases the statement: the old object is
    replaced where the statement names it (the caller's wording kept), else the statement
    is phrased from subject, predicate and object. A new statement alone must still name
    the object, or the edit is refused (``ValidationError`` on ``statement``).
    """
    if known.subject is None or known.predicate is None:
        return given
    if "object" in given and "statement" not in given:
        old, new = known.object, given["object"]
        if old and old in known.statement:
            statement = known.statement.replace(old, new)
        else:
            statement = phrase(known.subject, known.predicate, new)
        return {**given, "statement": statement}
    named = known.object is None or known.object.lower() in str(given.get("statement")).lower()
    if "statement" in given and "object" not in given and not named:
        raise ValidationError(
            "statement",
            f"does not name the fact's object {known.object!r}",
            allowed="a statement naming the object, or a new object with it",
        )
    return given


def retired(fact_id: str, known: Fact, current: list[str]) -> Conflict:
    """The error of an edit of a fact that is no longer believed."""
    when = "" if known.invalidated_at is None else f" at {known.invalidated_at.isoformat()}"
    if current:
        named = ", ".join(repr(c) for c in current)
        return Conflict(
            f"fact {fact_id!r} was superseded{when}; the current fact is {named}: edit that one",
            field="fact_id",
            current=tuple(current),
        )
    return Conflict(
        f"fact {fact_id!r} is no longer believed (invalidated{when}) and has no current "
        "version: learn a new fact instead",
        field="fact_id",
    )
