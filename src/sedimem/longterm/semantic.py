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

Which predicates are single-valued: the configured defaults (``FactSettings``), overridden
per tenant by its declarations (``declare``, kept in the store), overridden per write by the
fact's own ``cardinality``. A fact is corrected (``correct``) by recording the corrected
version and retiring the old one; only what is currently believed can be corrected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal

from sedimem import observe
from sedimem.clock import Clock, utc_from_timestamp
from sedimem.config import DEFAULT_SINGLE_VALUED
from sedimem.embed.base import Embedder
from sedimem.errors import NotFound, ValidationError
from sedimem.ids import new_id
from sedimem.longterm import records
from sedimem.longterm.arguments import aware_timestamp, check_k, check_session, check_text
from sedimem.longterm.fact_rules import (
    agreeing,
    covers,
    ends_object,
    lock_and_filter,
    reinforce,
    retired,
)
from sedimem.longterm.outdated import Key, Versions
from sedimem.longterm.predicates import Predicates
from sedimem.longterm.provenance import check_sources, episode_times
from sedimem.longterm.search import Mode
from sedimem.longterm.service import LongTermService
from sedimem.longterm.vectors import embed_all
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.types.edits import FactChanges, PredicateCardinalities
from sedimem.types.longterm import SINCE, TOLD, Cardinality, Fact, LearnResult
from sedimem.types.search import Hit

__all__ = ["DEFAULT_SINGLE_VALUED", "LearnResult", "SemanticMemory"]


#: Current versions of one subject and predicate read to find those a dated value
#: contradicts (a single-valued predicate has one current version per owner, a few at most).
_OBSERVATIONS_READ = 1000

#: A version whose start is within this of its source's time was known only as of then.
_SAME_INSTANT = 0.001

#: Facts read per page when all of a kind are read (a history, the facts of some episodes).
_PAGE = 500


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
        self._predicates = Predicates(store, single_valued)

    def is_single_valued(self, predicate: str) -> bool:
        """Single-valued by the configured defaults (a tenant may declare otherwise)."""
        return records.normalise(predicate) in self._predicates.defaults

    async def cardinality(self, predicate: str, *, tenant: str = "default") -> Cardinality:
        """How many values ``predicate`` holds for the tenant (its declarations first)."""
        return self._predicates.decide(predicate, await self._predicates.declared(tenant))

    async def predicates(self, *, tenant: str = "default") -> PredicateCardinalities:
        """The tenant's single-valued predicates: configured defaults and its declarations."""
        return await self._predicates.describe(tenant)

    async def declare(
        self, predicates: Sequence[str], cardinality: Cardinality = "one", *, scope: Scope
    ) -> PredicateCardinalities:
        """Declare predicates single-valued (``one``) or multi-valued (``many``) for the
        scope's tenant, durably (every process on the store follows it from its next write).
        The scope must be tenant-wide (``PermissionDenied`` otherwise); at most
        ``MAX_PREDICATES_PER_CALL`` predicates a call, ``MAX_DECLARED_PREDICATES`` in all."""
        return await self._predicates.declare(predicates, cardinality, scope=scope)

    @observe.operation("learn.fact")
    async def learn(self, fact: Fact) -> LearnResult:
        """Insert, reinforce or supersede, atomically, within the fact's tenant.

        Single-valued (the fact's ``cardinality``, else the tenant's declaration, else the
        configured default): a new value supersedes the current one. Multi-valued: values
        accumulate; when that is only the default, current values of the same subject and
        predicate with another object are reported as ``possible_conflicts``.

        A single value may hold from before the versions already known (history filled in
        out of order): it holds until the next of them. But a version known only as of
        when it was said (its start is its source episode's time: "I live in Munich", no
        date), and begun between the new value's start and the time the new value's
        source was said, is contradicted, not followed: "I live in Munich" (Monday), then
        "I moved to Hamburg last week" (Tuesday) means Hamburg now, so Munich's version is
        superseded. A dated version stays ("I moved to Porto last year", then "I moved to
        Lisbon in 2019": Lisbon until Porto).
        """
        said = await check_sources(self._store, fact.scope, fact.source_episode_ids)
        now = utc_from_timestamp(self._clock.now())
        fact = fact.model_copy(update={"recorded_at": now})
        key = records.statement_key(fact)
        single = explicit = False
        if fact.predicate is not None and fact.cardinality is not None:
            explicit, single = True, fact.cardinality == "one"  # no declaration to read
        elif fact.predicate is not None:
            declared = await self._predicates.declared(fact.scope.tenant)
            explicit = fact.cardinality is not None or (
                records.normalise(fact.predicate) in declared
            )
            chosen = fact.cardinality or self._predicates.decide(fact.predicate, declared)
            single = chosen == "one"
        lock, flt = lock_and_filter(fact)
        observed: set[str] = set()
        if single and said is not None and said > fact.valid_from.timestamp():
            observed = await self._observations(fact, flt, said)
        (vector,) = await embed_all(self._embedder, [fact.statement])
        outcome: list[LearnResult] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            stored = {row.id: row.vector for row in rows}  # a rewrite keeps its vector
            versions = sorted(
                (f for f in map(records.fact_from_row, rows) if f.scope.owner == fact.scope.owner),
                key=lambda f: (f.valid_from, f.id),
            )
            at = fact.valid_from
            holding = [f for f in versions if covers(f, at)] if single else versions
            if observed:
                # versions known only as of when they were said, which the new value's
                # source contradicts: begun after ``at``, by the time it was said
                holding += [f for f in versions if f.id in observed]
            same = [f for f in holding if records.statement_key(f) == key]
            if same:
                reinforced = reinforce(same[-1], fact)
                outcome.append(LearnResult(action="reinforced", fact=reinforced))
                return [records.fact_row(reinforced, stored[reinforced.id])]
            if not single:
                conflicts = [] if explicit else [f for f in versions if covers(f, at)]
                outcome.append(
                    LearnResult(action="inserted", fact=fact, possible_conflicts=conflicts)
                )
                return [records.fact_row(fact, vector)]
            # a timeline insertion: the new value holds from ``at`` until the next version
            held = {f.id for f in holding}
            following = [f.valid_from for f in versions if f.valid_from > at and f.id not in held]
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
            outcome.append(
                LearnResult(
                    action=action,
                    fact=new,
                    superseded=[f.id for f in holding],
                    closed=closed,
                )
            )
            return writes

        await self._store.update_locked(fact.scope.tenant, lock, flt, decide)
        return outcome[-1]

    async def _observations(self, fact: Fact, flt: RecordFilter, said: float) -> set[str]:
        """Ids of the current versions ``fact`` may contradict: begun after its start and
        by ``said``, each known only as of when it was said (its start is the time of its
        latest source episode). Read before the write's lock: a version written between
        this read and the lock is not among them, and is followed, as a dated one is."""
        start = fact.valid_from.timestamp()
        rows = await self._store.find(fact.scope.tenant, flt, limit=_OBSERVATIONS_READ)
        window = [
            f
            for f in map(records.fact_from_row, rows)
            if f.scope.owner == fact.scope.owner
            and start < f.valid_from.timestamp() <= said
            and f.source_episode_ids
        ]
        if not window:
            return set()
        sources = (i for f in window for i in f.source_episode_ids)
        when = await episode_times(self._store, fact.scope.tenant, sources)
        observed: set[str] = set()
        for version in window:
            times = [when[i] for i in version.source_episode_ids if i in when]
            if times and abs(max(times) - version.valid_from.timestamp()) < _SAME_INSTANT:
                observed.add(version.id)
        return observed

    async def end(self, ended: Fact) -> list[Fact]:
        """Close what ``ended`` says stopped being true at its ``valid_from``.

        ``ended`` names a subject and predicate, and an object (a value that is, begins
        with, or ends with its words) or ``None`` (whatever value it has), in
        its owner scope: "Ana no longer eats meat" from a turn. Every current,
        open-ended matching fact that holds at that time is retired and replaced by a closed
        version valid until then (as supersession closes the old value), so the history keeps
        it and ``current`` no longer has it. Returns the closed versions; nothing holding: ``[]``.
        It runs under the lock ``learn`` takes for the subject and predicate.
        """
        if ended.subject is None or ended.predicate is None:
            raise ValidationError(
                "subject", "a fact to end needs a subject and a predicate", allowed="both set"
            )
        now = utc_from_timestamp(self._clock.now())
        at = ended.valid_from
        lock, flt = lock_and_filter(ended)
        closed: list[Fact] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            writes: list[StoredRecord] = []
            for row in rows:
                old = records.fact_from_row(row)
                # A value said without a date holds from when it was said (TOLD): an end
                # dated before that ("I work at Acme" on May 1, "I got laid off last week"
                # on May 5) ends it there. One dated later than the end ("I quit in 2015",
                # then "I started again in 2020") is another stretch: left alone.
                told = old.metadata.get(SINCE) == TOLD and at < old.valid_from
                if (
                    old.scope.owner != ended.scope.owner
                    or old.valid_to is not None
                    or not (covers(old, at) or told)
                    or (ended.object is not None and not ends_object(old.object, ended.object))
                ):
                    continue
                writes.append(
                    records.fact_row(old.model_copy(update={"invalidated_at": now}), None)
                )
                if old.valid_from < at or told:
                    version = old.model_copy(
                        update={
                            "id": new_id(),
                            "valid_to": max(at, old.valid_from),
                            "recorded_at": now,
                            "invalidated_at": None,
                        }
                    )
                    closed.append(version)
                    writes.append(records.fact_row(version, row.vector))
            return writes

        await self._store.update_locked(ended.scope.tenant, lock, flt, decide)
        return closed

    async def get(
        self, fact_id: str, *, tenant: str | None = None, scope: Scope | None = None
    ) -> Fact:
        """One fact (any version) by id or handle (``sedimem.ids``); with ``scope``, only if
        the scope reaches it."""
        return records.fact_from_row(
            await self._addressed(records.FACT, fact_id, tenant=tenant, scope=scope, by_handle=True)
        )

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
        facts = await self._every(scope.tenant, flt)
        return sorted(facts, key=lambda f: (f.valid_from, f.recorded_at))

    async def _every(self, tenant: str, flt: RecordFilter) -> list[Fact]:
        """Every fact ``flt`` selects, read a page at a time."""
        facts: list[Fact] = []
        cursor: str | None = None
        while True:
            rows = await self._store.find(tenant, flt, limit=_PAGE, after=cursor)
            facts.extend(records.fact_from_row(r) for r in rows)
            if len(rows) < _PAGE:
                return facts
            cursor = rows[-1].id

    async def outdated_sources(
        self,
        episode_ids: Sequence[str],
        *,
        scope: Scope,
        topics: Iterable[tuple[str, str]] = (),
    ) -> dict[str, set[str]]:
        """Of ``episode_ids``, the episodes that stated what has since been replaced,
        corrected, ended or retracted ("I'm 34" once "Actually, I'm 35" was said; "I eat
        meat" once "I went vegan"), and that no current fact of it cites:

        - those whose every fact is no longer current;
        - those that stated an older value of one of ``topics`` (subject and predicate
          pairs: what a question asks about), though they stated other things that still
          hold ("Tom and I plan Japan, our budget is 5000 dollars" once the budget was
          raised, asked about the budget).

        Each is mapped to those of ``episode_ids`` that stated a current value of what it
        told (the turns that replaced it; none when they are not among them). One read of
        the facts drawn from them (provenance is indexed), whatever the predicates'
        cardinality; an episode no fact was drawn from is never outdated."""
        if not episode_ids:
            return {}
        asked = tuple(dict.fromkeys(episode_ids))
        versions = Versions(asked, topics)
        flt = RecordFilter(kind=records.FACT, visible_to=scope, derived_from=asked)
        for fact in await self._every(scope.tenant, flt):
            versions.add(fact)
        replaceable = versions.replaceable()
        declared = await self._predicates.declared(scope.tenant) if replaceable else {}

        def single(key: Key) -> bool:
            stated = versions.stated_as(key)
            return (stated or self._predicates.decide(key[1], declared)) == "one"

        return versions.outdated(single)

    async def current(self, subject: str, predicate: str, *, scope: Scope) -> list[Fact]:
        """The values believed now and not ended in the world."""
        check_text("predicate", predicate)
        return await self.current_of(subject, (predicate,), scope=scope)

    async def current_of(
        self,
        subject: str,
        predicates: Iterable[str] | None,
        *,
        scope: Scope,
        newest: int | None = None,
    ) -> list[Fact]:
        """The subject's current facts (see :meth:`current`) of any of ``predicates``
        (``None``: of any predicate); ``newest``: only the last ``newest`` recorded (a
        bounded read however many there are)."""
        check_text("subject", subject)
        if newest is not None:
            check_k(newest, "newest")
        flt = RecordFilter(
            kind=records.FACT,
            visible_to=scope,
            subject=records.normalise(subject),
            predicates=None
            if predicates is None
            else tuple(sorted({records.normalise(p) for p in predicates})),
            current=True,
        )
        if newest is None:
            read = await self._every(scope.tenant, flt)
        else:
            rows = await self._store.find(scope.tenant, flt, limit=newest, newest_first=True)
            read = [records.fact_from_row(r) for r in rows]
        facts = [f for f in read if f.valid_to is None]
        return sorted(facts, key=lambda f: (f.valid_from, f.recorded_at))

    @observe.operation("recall.facts")
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
        session: str | None = None,
    ) -> list[Hit[Fact]]:
        """Facts matching ``query``, as believed now (or at ``known_at``), true in the world
        now (or at ``valid_at``; ``include_history`` drops the world-time condition), among
        those visible to ``scope`` from every session (``session``: only that session's)."""
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
            session=check_session(session),
        )
        found = await self._searcher.search(
            scope.tenant, flt, query, k, mode=mode, now=self._clock.now()
        )
        return [
            Hit(record=records.fact_from_row(row), score=why.score, explain=why)
            for row, why in found
        ]

    async def invalidate(
        self, fact_id: str, *, tenant: str | None = None, scope: Scope | None = None
    ) -> Fact:
        """Stop believing a fact (kept as history, never deleted); idempotent."""
        row = await self._addressed(records.FACT, fact_id, tenant=tenant, scope=scope, change=True)
        now = utc_from_timestamp(self._clock.now())
        changed: list[Fact] = []
        lock, _ = lock_and_filter(records.fact_from_row(row))

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            current = self._checked(records.FACT, fact_id, rows)
            if current is None:
                return []
            fact = records.fact_from_row(current)
            if fact.invalidated_at is None:
                fact = fact.model_copy(update={"invalidated_at": now})
            changed.append(fact)
            return [records.fact_row(fact, current.vector)]

        # the lock of the fact's subject and predicate: no learn() decides on it meanwhile
        await self._store.update_locked(
            row.tenant, lock, RecordFilter(ids=(fact_id,), kind=records.FACT), decide
        )
        if not changed:
            raise NotFound(f"fact {fact_id!r} does not exist")
        return changed[0]

    async def correct(
        self,
        fact_id: str,
        changes: FactChanges | Mapping[str, Any],
        *,
        tenant: str | None = None,
        scope: Scope | None = None,
    ) -> LearnResult:
        """Correct a current fact: the corrected version is recorded (new id, believed from
        now) and the old one retired, so what was believed before stays askable.

        A fact already retired (superseded or invalidated) cannot be corrected: ``Conflict``
        naming the current fact(s) of its subject and predicate, the ones to correct instead.
        """
        if not isinstance(changes, FactChanges):
            changes = FactChanges(**changes)
        row = await self._addressed(records.FACT, fact_id, tenant=tenant, scope=scope, change=True)
        known = records.fact_from_row(row)
        now = utc_from_timestamp(self._clock.now())
        given = agreeing(known, changes.given())
        fields = {**known.model_dump(), **given, "id": new_id(), "recorded_at": now}
        corrected = Fact(**{**fields, "invalidated_at": None})
        fresh = None  # the statement's vector, when the statement changes
        if corrected.statement != known.statement:
            (fresh,) = await embed_all(self._embedder, [corrected.statement])
        lock, flt = lock_and_filter(known)
        result: list[LearnResult] = []
        current_ids: list[str] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            mine = [r for r in rows if r.id == fact_id]
            if not mine:
                current_ids.extend(
                    f.id for f in map(records.fact_from_row, rows)
                    if f.scope.owner == known.scope.owner and f.valid_to is None
                )  # fmt: skip
                return []
            retired = records.fact_from_row(mine[0]).model_copy(update={"invalidated_at": now})
            new = corrected.model_copy(
                update={"metadata": {**corrected.metadata, "corrects": fact_id}}
            )
            result.append(LearnResult(action="superseded", fact=new, superseded=[fact_id]))
            vector = mine[0].vector if fresh is None else fresh
            return [records.fact_row(retired, None), records.fact_row(new, vector)]

        await self._store.update_locked(row.tenant, lock, flt, decide)
        if result:
            return result[0]
        raise retired(fact_id, known, current_ids)

    async def delete(
        self, fact_id: str, *, tenant: str | None = None, scope: Scope | None = None
    ) -> bool:
        """Delete one version of a fact (false when there is none); with ``scope``, only one
        it may change (``PermissionDenied`` otherwise). To stop believing a fact and keep it
        as history, ``invalidate`` it instead."""
        try:
            row = await self._addressed(
                records.FACT, fact_id, tenant=tenant, scope=scope, change=True
            )
        except NotFound:
            return False
        return await self._store.delete(row.tenant, [fact_id]) > 0
