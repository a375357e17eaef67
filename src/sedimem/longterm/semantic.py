"""Semantic memory: bi-temporal facts with reinforcement and supersession.

Two clocks: ``valid_from``/``valid_to`` say when a fact was true in the world;
``recorded_at``/``invalidated_at`` say when the system believed this version of it. Versions
are never edited in their meaning, only retired and replaced, so any past belief can be
asked for again (``known_at``).

For a single-valued predicate ("lives_in") exactly one *current* value (believed now and
not ended in the world) exists per (tenant, owner scope, subject). Learning a new value
supersedes it: the open-ended version is retired (``invalidated_at`` = now) and a closed
version (``valid_to`` = the new value's ``valid_from``) is recorded in its place, so "where
did Ana live in 2021?" still has its answer. Learning what is already believed reinforces
it instead of duplicating it; multi-valued predicates accumulate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sedimem.clock import Clock, utc_from_timestamp
from sedimem.embed.base import Embedder
from sedimem.errors import NotFound
from sedimem.ids import new_id
from sedimem.longterm import records
from sedimem.longterm.arguments import aware_timestamp, check_k, check_text
from sedimem.longterm.search import Mode
from sedimem.longterm.service import LongTermService
from sedimem.longterm.vectors import embed_all
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.types.longterm import Fact
from sedimem.types.search import Hit

__all__ = ["DEFAULT_SINGLE_VALUED", "LearnResult", "SemanticMemory"]

#: Predicates with one value at a time, unless configured otherwise.
DEFAULT_SINGLE_VALUED = frozenset(
    {
        "lives_in", "located_in", "works_at", "works_as", "job_title", "role", "age",
        "email", "phone", "address", "name", "status", "married_to", "spouse", "birthday",
        "date_of_birth", "nationality", "timezone", "favorite", "prefers", "manager",
        "reports_to", "owner", "version", "current_project",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class LearnResult:
    """What ``learn`` did: inserted a new fact, reinforced a known one, or superseded one."""

    action: Literal["inserted", "reinforced", "superseded"]
    fact: Fact
    closed: tuple[Fact, ...] = ()


def _covers(fact: Fact, at: datetime) -> bool:
    """Whether ``fact`` holds in the world at ``at``."""
    return fact.valid_from <= at and (fact.valid_to is None or at < fact.valid_to)


def _reinforce(known: Fact, again: Fact) -> Fact:
    return known.model_copy(
        update={
            "reinforcement_count": known.reinforcement_count + 1,
            "confidence": max(known.confidence, again.confidence),
            "source_episode_ids": list(
                dict.fromkeys(known.source_episode_ids + again.source_episode_ids)
            ),
        }
    )


class SemanticMemory(LongTermService):
    def __init__(
        self,
        store: LongTermStore,
        embedder: Embedder,
        *,
        single_valued: frozenset[str] = DEFAULT_SINGLE_VALUED,
        settings: RetrievalSettings | None = None,
        clock: Clock | None = None,
    ) -> None:
        super().__init__(store, embedder, settings=settings, clock=clock)
        self._single_valued = frozenset(records.normalise(p) for p in single_valued)

    def is_single_valued(self, predicate: str) -> bool:
        return records.normalise(predicate) in self._single_valued

    async def learn(self, fact: Fact) -> LearnResult:
        """Insert, reinforce or supersede, atomically, within the fact's tenant."""
        now = utc_from_timestamp(self._clock.now())
        fact = fact.model_copy(update={"recorded_at": now})
        key = records.statement_key(fact)
        single = fact.predicate is not None and self.is_single_valued(fact.predicate)
        if single:
            subject = records.normalise(fact.subject or "")
            predicate = records.normalise(fact.predicate or "")
            lock = f"fact:{subject}\x1f{predicate}"
            flt = RecordFilter(
                kind=records.FACT,
                subject=subject,
                predicate=predicate,
                current=True,
                user=fact.scope.user,
            )
        else:
            lock = f"fact:{key}"
            flt = RecordFilter(kind=records.FACT, name=key, current=True, user=fact.scope.user)
        (vector,) = await embed_all(self._embedder, [fact.statement])
        outcome: list[LearnResult] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            stored = {row.id: row.vector for row in rows}  # a rewrite keeps its vector
            versions = sorted(
                (f for f in map(records.fact_from_row, rows) if f.scope.owner == fact.scope.owner),
                key=lambda f: (f.valid_from, f.id),
            )
            at = fact.valid_from
            holding = [f for f in versions if _covers(f, at)] if single else versions
            same = [f for f in holding if records.statement_key(f) == key]
            if same:
                reinforced = _reinforce(same[-1], fact)
                outcome.append(LearnResult("reinforced", reinforced))
                return [records.fact_row(reinforced, stored[reinforced.id])]
            if not single:
                outcome.append(LearnResult("inserted", fact))
                return [records.fact_row(fact, vector)]
            # a timeline insertion: the new value holds from ``at`` until the next version
            following = [f.valid_from for f in versions if f.valid_from > at]
            new = fact.model_copy(update={"valid_to": min(following)}) if following else fact
            writes = [records.fact_row(new, vector)]
            closed: list[Fact] = []
            for old in holding:
                writes.append(
                    records.fact_row(old.model_copy(update={"invalidated_at": now}), None)
                )
                if old.valid_from < at:
                    ended = old.model_copy(
                        update={
                            "id": new_id(),
                            "valid_to": at,
                            "recorded_at": now,
                            "invalidated_at": None,
                        }
                    )
                    closed.append(ended)
                    writes.append(records.fact_row(ended, stored[old.id]))
            action: Literal["superseded", "inserted"] = "superseded" if holding else "inserted"
            outcome.append(LearnResult(action, new, tuple(closed)))
            return writes

        await self._store.update_locked(fact.scope.tenant, lock, flt, decide)
        return outcome[-1]

    async def get(self, fact_id: str, *, tenant: str = "default") -> Fact:
        check_text("fact_id", fact_id)
        rows = await self._store.get(tenant, [fact_id])
        if not rows or rows[0].kind != records.FACT:
            raise NotFound(f"fact {fact_id!r} does not exist")
        return records.fact_from_row(rows[0])

    async def history(
        self,
        subject: str,
        predicate: str,
        *,
        scope: Scope,
        known_at: datetime | None = None,
        include_retired: bool = False,
    ) -> list[Fact]:
        """The values the subject's predicate had, in world-time order, as believed now (or
        at ``known_at``); ``include_retired`` adds every version ever recorded."""
        check_text("subject", subject)
        check_text("predicate", predicate)
        flt = RecordFilter(
            kind=records.FACT,
            visible_to=scope,
            subject=records.normalise(subject),
            predicate=records.normalise(predicate),
            known_at=None if known_at is None else aware_timestamp(known_at, "known_at"),
            current=known_at is None and not include_retired,
        )
        facts: list[Fact] = []
        cursor: str | None = None
        while True:
            rows = await self._store.find(scope.tenant, flt, limit=500, after=cursor)
            facts.extend(records.fact_from_row(r) for r in rows)
            if len(rows) < 500:
                break
            cursor = rows[-1].id
        return sorted(facts, key=lambda f: (f.valid_from, f.recorded_at))

    async def current(self, subject: str, predicate: str, *, scope: Scope) -> list[Fact]:
        """The values believed now and not ended in the world."""
        facts = await self.history(subject, predicate, scope=scope)
        return [f for f in facts if f.valid_to is None]

    async def recall(
        self,
        query: str,
        *,
        scope: Scope,
        k: int = 10,
        valid_at: datetime | None = None,
        known_at: datetime | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        include_history: bool = False,
        mode: Mode = "hybrid",
    ) -> list[Hit[Fact]]:
        """Facts matching ``query``, as believed now (or at ``known_at``), true in the world
        now (or at ``valid_at``; ``include_history`` drops the world-time condition)."""
        check_k(k)
        check_text("subject", subject)
        check_text("predicate", predicate)
        if valid_at is None and not include_history:
            valid_at = utc_from_timestamp(self._clock.now())
        flt = RecordFilter(
            kind=records.FACT,
            visible_to=scope,
            subject=None if subject is None else records.normalise(subject),
            predicate=None if predicate is None else records.normalise(predicate),
            valid_at=None if valid_at is None else aware_timestamp(valid_at, "valid_at"),
            known_at=None if known_at is None else aware_timestamp(known_at, "known_at"),
            current=known_at is None,
        )
        found = await self._searcher.search(
            scope.tenant, flt, query, k, mode=mode, now=self._clock.now()
        )
        return [
            Hit(record=records.fact_from_row(row), score=why.score, explain=why)
            for row, why in found
        ]

    async def invalidate(self, fact_id: str, *, tenant: str = "default") -> Fact:
        """Stop believing a fact (kept as history, never deleted)."""
        check_text("fact_id", fact_id)
        now = utc_from_timestamp(self._clock.now())
        changed: list[Fact] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            if not rows or rows[0].kind != records.FACT:
                return []
            fact = records.fact_from_row(rows[0])
            if fact.invalidated_at is None:
                fact = fact.model_copy(update={"invalidated_at": now})
            changed.append(fact)
            return [records.fact_row(fact, rows[0].vector)]

        await self._store.update_locked(
            tenant, f"fact-id:{fact_id}", RecordFilter(ids=(fact_id,)), decide
        )
        if not changed:
            raise NotFound(f"fact {fact_id!r} does not exist")
        return changed[0]

    async def delete(self, fact_id: str, *, tenant: str = "default") -> bool:
        check_text("fact_id", fact_id)
        return await self._store.delete(tenant, [fact_id]) > 0
