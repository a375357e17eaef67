"""Facts from one chat turn: who said it, when, and what it states.

:func:`extract_statements` reads a turn's text clause by clause (see
:mod:`~sedimem.consolidation.extraction.patterns`), resolves first person ("I", "my", "we")
to the speaker, dates each fact from the date expressions in its clause (resolved against the
turn's time; none: the turn's time) and returns :class:`Statement` values: a
:class:`~sedimem.types.longterm.Fact` plus

- ``ends``: the clause ends a current fact ("I no longer eat meat", "I lost my job as a
  banker"): the fact's triple names what ends and ``valid_from`` when it ended; an object of
  ``None`` ends whatever value the predicate has. A caller closes the matching current fact
  (``valid_to`` = this ``valid_from``) instead of learning it;
- ``cardinality``: ``"one"`` when a new value of the predicate supersedes the old one
  (``lives_in``, ``works_at``, ...), ``"many"`` when values accumulate. A single-valued
  fact also carries ``cardinality="one"``, so ``learn`` supersedes whatever the tenant's
  defaults say; the others leave it unset (the tenant's declarations decide).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sedimem.consolidation.extraction.dates import DateMention, find_dates
from sedimem.consolidation.extraction.patterns import Match, match_clause, split_clauses
from sedimem.consolidation.extraction.vocabulary import Cardinality, cardinality_of
from sedimem.errors import ValidationError
from sedimem.longterm.records import normalise
from sedimem.scope import Scope
from sedimem.types.longterm import Fact

__all__ = ["Statement", "extract_statements"]

_FUTURE_HINTS = ("next ", "will ", "'ll ", "tomorrow", "starts", "begins", "start ")


@dataclass(frozen=True, slots=True)
class Statement:
    """One fact a turn states, or ends (``ends``), with its predicate's cardinality."""

    fact: Fact
    ends: bool
    cardinality: Cardinality


def _cut(clause: str, mentions: Sequence[DateMention]) -> str:
    for mention in sorted(mentions, key=lambda d: d.start, reverse=True):
        clause = clause[: mention.start] + clause[mention.end :]
    return " ".join(clause.replace(" ,", ",").split()).strip(" ,")


def _sentence(match: Match) -> str:
    verb = f"no longer {match.surface}" if match.negated else match.surface
    if match.object is None:
        return f"{match.subject} {verb}."
    return f"{match.subject} {verb} {match.object}."


def extract_statements(
    text: str,
    speaker: str | None,
    at: datetime,
    *,
    scope: Scope | None = None,
    source_episode_ids: Sequence[str] = (),
) -> list[Statement]:
    """The facts ``speaker`` states in ``text`` at ``at`` (aware), in order, no duplicates.

    Without a ``speaker``, first-person clauses are skipped (nobody to file them under).
    """
    if at.tzinfo is None:
        raise ValidationError("at", "must carry a time zone", allowed="an aware datetime")
    out: list[Statement] = []
    seen: set[tuple[str, str, str, bool]] = set()
    for clause in split_clauses(text):
        future = any(hint in clause.lower() for hint in _FUTURE_HINTS)
        mentions = find_dates(clause, at, future=future)
        bare = _cut(clause, mentions)
        if not bare:
            continue
        for match in match_clause(bare, speaker or "\x00"):
            if "\x00" in match.subject or "\x00" in (match.object or ""):
                continue
            valid_from = min((d.when for d in mentions), default=at) if match.dated else at
            key = (
                normalise(match.subject),
                match.predicate,
                normalise(match.object or ""),
                match.negated,
            )
            if key in seen:
                continue
            seen.add(key)
            cardinality = cardinality_of(match.predicate)
            fact = Fact(
                statement=_sentence(match),
                subject=match.subject,
                predicate=match.predicate,
                object=match.object,
                confidence=match.confidence,
                valid_from=valid_from,
                scope=scope or Scope(),
                source_episode_ids=list(source_episode_ids),
                metadata={"ends": True} if match.negated else {},
                # only "one" is stated: other predicates keep the tenant's rules (and conflicts)
                cardinality="one" if cardinality == "one" else None,
            )
            out.append(Statement(fact, match.negated, cardinality))
    return out
