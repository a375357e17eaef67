"""Typed records to and from the rows a long-term store keeps."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sedimem.scope import Scope
from sedimem.storage.longterm.base import StoredRecord, Vector
from sedimem.types.longterm import Episode, Fact, Procedure

__all__ = [
    "episode_from_row",
    "episode_row",
    "fact_from_row",
    "fact_row",
    "normalise",
    "procedure_from_row",
    "procedure_row",
    "record_from_row",
    "scope_of",
    "statement_key",
]

EPISODE, FACT, PROCEDURE = "episode", "fact", "procedure"


def normalise(text: str) -> str:
    """Case- and space-insensitive form used to compare names, subjects and objects."""
    return " ".join(text.lower().split())


def statement_key(fact: Fact) -> str:
    """Identity of what a fact says: its triple when structured, else its statement."""
    if fact.subject is not None and fact.predicate is not None:
        basis = "\x1f".join(
            [normalise(fact.subject), normalise(fact.predicate), normalise(fact.object or "")]
        )
    else:
        basis = normalise(fact.statement)
    return hashlib.blake2b(basis.encode(), digest_size=16).hexdigest()


def scope_of(row: StoredRecord) -> Scope:
    """The scope a stored record was filed under (read from its indexed columns)."""
    return Scope(
        tenant=row.tenant,
        project=row.project,
        user=row.user,
        agent_type=row.agent_type,
        agent=row.agent,
        session=row.session,
    )


def _ts(value: datetime | None) -> float | None:
    return None if value is None else value.timestamp()


def _scope_columns(record: Episode | Fact | Procedure) -> dict[str, str | None]:
    s = record.scope
    return {
        "tenant": s.tenant,
        "project": s.project,
        "user": s.user,
        "agent_type": s.agent_type,
        "agent": s.agent,
        "session": s.session,
    }


def episode_row(
    episode: Episode, vector: Vector | None, *, name: str | None = None
) -> StoredRecord:
    """``name``: an optional unique key (a terminated session's episode carries one)."""
    return StoredRecord(
        id=episode.id,
        kind=EPISODE,
        text=episode.search_text(),
        occurred_at=episode.occurred_at.timestamp(),
        importance=episode.importance,
        body=episode.model_dump_json(),
        vector=vector,
        outcome=episode.outcome.value,
        task_type=episode.task_type,
        name=name,
        **_scope_columns(episode),  # type: ignore[arg-type]
    )


def fact_row(fact: Fact, vector: Vector | None) -> StoredRecord:
    return StoredRecord(
        id=fact.id,
        kind=FACT,
        text=fact.statement,
        occurred_at=fact.valid_from.timestamp(),
        importance=fact.confidence,
        body=fact.model_dump_json(),
        vector=vector,
        subject=None if fact.subject is None else normalise(fact.subject),
        predicate=None if fact.predicate is None else normalise(fact.predicate),
        name=statement_key(fact),
        valid_from=fact.valid_from.timestamp(),
        valid_to=_ts(fact.valid_to),
        recorded_at=fact.recorded_at.timestamp(),
        invalidated_at=_ts(fact.invalidated_at),
        sources=tuple(fact.source_episode_ids),
        **_scope_columns(fact),  # type: ignore[arg-type]
    )


def procedure_row(procedure: Procedure, vector: Vector | None) -> StoredRecord:
    return StoredRecord(
        id=procedure.id,
        kind=PROCEDURE,
        text=procedure.search_text(),
        occurred_at=procedure.updated_at.timestamp(),
        importance=procedure.success_rate,
        body=procedure.model_dump_json(),
        vector=vector,
        name=normalise(procedure.name),
        sources=tuple(procedure.source_episode_ids),
        **_scope_columns(procedure),  # type: ignore[arg-type]
    )


def episode_from_row(row: StoredRecord) -> Episode:
    return Episode.from_stored(row.body)


def fact_from_row(row: StoredRecord) -> Fact:
    return Fact.from_stored(row.body)


def procedure_from_row(row: StoredRecord) -> Procedure:
    return Procedure.from_stored(row.body)


def record_from_row(row: StoredRecord) -> Episode | Fact | Procedure:
    """The episode, fact or procedure a row of one of those kinds holds."""
    if row.kind == EPISODE:
        return episode_from_row(row)
    return fact_from_row(row) if row.kind == FACT else procedure_from_row(row)
