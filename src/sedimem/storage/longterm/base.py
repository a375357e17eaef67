"""The long-term store protocol: records, filters, keyword and vector search.

Rules shared by every store (the conformance suite in :mod:`sedimem.testing.longterm`
checks them on every backend):

- **Tenant first.** Every method takes ``tenant`` and touches only that tenant's rows; a
  record whose ``tenant`` differs from the argument is refused (``ValidationError``). No
  filter can widen a query beyond its tenant.
- **Filters run inside the store** (in SQL, or on the in-memory index the store keeps beside
  its rows), never on a page of results afterwards: a search for ``k`` returns ``k`` rows
  whenever ``k`` rows match the filter.
- **Visibility** (``RecordFilter.visible_to``): a record is visible to a query scope when,
  on each of ``project``, ``agent_type`` and ``agent``, the record's value is unset, or the
  query's is unset, or they are equal; and the record's ``user`` is unset or equals the
  query's ``user`` (a query naming no user sees only records naming no user).
  ``session`` is provenance on a long-term record, never a visibility boundary: a query
  from a session scope sees what its owner (the same scope without the session) sees, from
  every session (``RecordFilter`` drops the session of ``visible_to``). "Only this session"
  is the explicit ``RecordFilter.session``. ``all_users`` lifts the user rule, for counts
  over a whole tenant or project (statistics), never for reading content.
- **Writes are all-or-nothing**; ``update_locked`` runs read-decide-write in one transaction
  serialised, across processes, per ``(tenant, lock_key)``.
- Ids are scoped per tenant: the same id under two tenants is two independent records.
- ``get``, ``find`` and the ``*_search_records`` methods return records without vectors;
  ``update_locked`` hands ``decide`` the records with their vectors. ``body`` is the
  service's JSON, opaque to the store.
  ``put`` replaces the whole record, vector included: a record written without a vector
  has none (to edit a record and keep its vector, go through ``update_locked``). A vector
  before any ``bind_embedder`` is refused (``ConfigurationError``).
- ``visible_to.tenant`` is ignored: the ``tenant`` argument is the only tenant.
- ``valid_at`` / ``known_at`` never match a record whose ``valid_from`` / ``recorded_at``
  is unset.
- Keyword scores are comparable within one call only (each backend takes its BM25
  statistics from its own set of rows).
- The store remembers the embedder (name, dimension) that wrote its vectors and refuses
  another (``ConfigurationError``) unless asked to replace it (re-embedding).

Scoring, fusion, tokenising queries into terms and every policy (supersession, merging)
belong to the service.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from sedimem.scope import Scope

__all__ = [
    "Decision",
    "FusedSearch",
    "Fusion",
    "LongTermStore",
    "Peek",
    "Pick",
    "Preview",
    "Ranked",
    "RecordFilter",
    "ScoredRecord",
    "StoredRecord",
    "Traits",
    "Vector",
    "check_tenant",
    "with_records",
]

Vector = npt.NDArray[np.float32]
#: (record id, score): higher scores are better.
Ranked = tuple[str, float]


@dataclass(slots=True)
class StoredRecord:
    """One row of long-term memory, with the columns stores index and filter on."""

    id: str  # UUIDv7: sorts by creation time; the pagination cursor
    kind: str  # "episode" | "fact" | "procedure" | "block"
    tenant: str
    project: str | None
    user: str | None
    agent_type: str | None
    agent: str | None
    session: str | None
    text: str  # what keyword and vector search see
    occurred_at: float  # epoch seconds: the record's own time (recency, time ranges)
    importance: float  # 0..1
    body: str  # the full record as JSON (opaque to the store)
    vector: Vector | None = None  # float32, L2-normalised; None: not searchable by vector
    outcome: str | None = None
    task_type: str | None = None
    subject: str | None = None
    predicate: str | None = None
    name: str | None = None
    valid_from: float | None = None
    valid_to: float | None = None
    recorded_at: float | None = None
    invalidated_at: float | None = None
    sources: tuple[str, ...] = ()  # ids this record was derived from (provenance)


#: A record (without its vector) and its search score: higher scores are better.
ScoredRecord = tuple[StoredRecord, float]


@dataclass(frozen=True, slots=True)
class RecordFilter:
    """Conditions a record must meet; unset fields do not constrain."""

    kind: str | None = None
    visible_to: Scope | None = None  # the visibility rule above; None: the whole tenant
    user: str | None = None  # exactly this user (erasure, export)
    session: str | None = None  # exactly this session (erasure, "only this session")
    ids: tuple[str, ...] | None = None
    handle: str | None = None  # a sedimem-made id with this handle (sedimem.ids.handle)
    occurred_from: float | None = None  # occurred_at >= this
    occurred_before: float | None = None  # occurred_at < this
    outcome: str | None = None
    task_type: str | None = None
    min_importance: float | None = None
    subject: str | None = None
    predicate: str | None = None
    name: str | None = None
    names: tuple[str, ...] | None = None  # any of these names (one read for a batch)
    predicates: tuple[str, ...] | None = None  # any of these predicates
    valid_at: float | None = None  # valid_from <= t and (valid_to is null or valid_to > t)
    known_at: float | None = None  # recorded_at <= t and (invalidated_at is null or > t)
    current: bool = False  # invalidated_at is null
    derived_from: tuple[str, ...] | None = None  # has one of these ids among its sources
    all_users: bool = False  # with visible_to: every user's records (counting, not reading)

    def __post_init__(self) -> None:
        # A session is provenance, not a boundary: ``visible_to`` is its owner scope. Done
        # here, once, so every store applies the same rule and two sessions of one owner
        # make equal filters (one cached mask in the in-memory index, not one per session).
        if self.visible_to is not None and self.visible_to.session is not None:
            object.__setattr__(self, "visible_to", self.visible_to.owner)


#: Given the records currently matching, return the records to write (upserted by id).
Decision = Callable[[list[StoredRecord]], Sequence[StoredRecord]]

#: Per candidate id, ``(occurred_at, importance)``: what fusion needs beyond the ranks.
Traits = dict[str, tuple[float, float]]
#: Given keyword hits, vector hits and their traits, the ids whose records to fetch.
Pick = Callable[[list[Ranked], list[Ranked], Traits], Sequence[str]]


@dataclass(frozen=True, slots=True)
class Fusion:
    """How a fused search's ``pick`` ranks the candidates, so that a store may read the
    records of its top ``limit`` with the candidates instead of after them (a round trip
    fewer). The rule of :func:`sedimem.retrieval.fusion.fuse_ranked`: per list, ``weight /
    (rrf_k + rank)`` (ranks from 1), summed, divided by what a first rank in every non-empty
    list gives, plus ``recency_weight · 0.5^(max(age, 0) / half_life_s)`` (``age = now -
    occurred_at``) plus ``importance_weight · importance``; best first, then by id. Only a
    guess of the store's: ``pick`` still decides, and a record it picks outside the guess
    is read after it."""

    rrf_k: float
    keyword_weight: float
    vector_weight: float
    recency_weight: float
    importance_weight: float
    half_life_s: float
    now: float
    limit: int


@runtime_checkable
class FusedSearch(Protocol):
    """A store that runs both searches and the fusion in one pass over one snapshot,
    reading full records only for what ``pick`` keeps (the fused top k), not for every
    candidate of both lists. Optional: searches fall back to ``*_search_records``."""

    async def fused_search(
        self,
        tenant: str,
        flt: RecordFilter,
        terms: Sequence[str],
        vector: Vector | None,
        pool: int,
        pick: Pick,
        *,
        fusion: Fusion | None = None,
    ) -> dict[str, StoredRecord]:
        """Up to ``pool`` keyword hits for ``terms`` (none when empty) and vector hits for
        ``vector`` (none when ``None``), then the records of the ids ``pick`` returns
        (deleted ones are absent), by id. ``pick`` runs once, on the store's thread.
        ``fusion``: how ``pick`` ranks, when it fuses by that rule (see :class:`Fusion`)."""
        ...


#: What a second stage scores a candidate on: ``(text, session, occurred_at)``.
Preview = tuple[str, str | None, float]


@runtime_checkable
class Peek(Protocol):
    """A store that reads records at once on the caller's thread, either whole or only the
    few columns a second stage re-scores candidates on (no body, no vector: far less to
    read per row). Optional: a ``FusedSearch`` store with it reads whole records only for
    what a search returns."""

    async def previews(self, tenant: str, ids: Sequence[str]) -> dict[str, Preview]:
        """Text, session and time of the records with these ids that exist, by id."""
        ...

    async def records_now(self, tenant: str, ids: Sequence[str]) -> list[StoredRecord]:
        """``get``, read on the caller's thread (no hand-off to the store's own thread)."""
        ...


@runtime_checkable
class LongTermStore(Protocol):
    @property
    def name(self) -> str: ...

    async def bind_embedder(self, name: str, dimension: int, *, replace: bool = False) -> None:
        """Record the embedder writing vectors; refuse a different one unless ``replace``
        (which also drops every stored vector, to be written again)."""

    async def put(self, tenant: str, records: Sequence[StoredRecord]) -> None:
        """Insert or replace records by id, all or none."""

    async def get(self, tenant: str, ids: Sequence[str]) -> list[StoredRecord]:
        """The records with these ids that exist (in no particular order)."""

    async def find(
        self,
        tenant: str,
        flt: RecordFilter,
        *,
        limit: int,
        after: str | None = None,
        newest_first: bool = False,
    ) -> list[StoredRecord]:
        """Matching records ordered by id; ``after`` is the last id of the previous page."""

    async def count(self, tenant: str, flt: RecordFilter) -> int: ...

    async def count_by_user(self, tenant: str, flt: RecordFilter) -> dict[str | None, int]:
        """``count`` per ``user`` value of the matching records (``None``: naming no user);
        users without a match are absent."""

    async def delete(self, tenant: str, ids: Sequence[str]) -> int:
        """Delete records (with their keyword rows, vectors and provenance links)."""

    async def keyword_search(
        self, tenant: str, flt: RecordFilter, terms: Sequence[str], k: int
    ) -> list[Ranked]:
        """BM25-ranked records containing ANY of ``terms`` (raw words: the store escapes them)."""

    async def vector_search(
        self, tenant: str, flt: RecordFilter, vector: Vector, k: int
    ) -> list[Ranked]:
        """The ``k`` most similar records by cosine similarity, exact or near-exact."""

    async def keyword_search_records(
        self, tenant: str, flt: RecordFilter, terms: Sequence[str], k: int
    ) -> list[ScoredRecord]:
        """``keyword_search`` with each hit's record (what a service fuses and returns: a
        store may read them in the search itself instead of a ``get`` afterwards)."""

    async def vector_search_records(
        self, tenant: str, flt: RecordFilter, vector: Vector, k: int
    ) -> list[ScoredRecord]:
        """``vector_search`` with each hit's record."""

    async def update_locked(
        self, tenant: str, lock_key: str, flt: RecordFilter, decide: Decision
    ) -> list[StoredRecord]:
        """Atomically: load the records matching ``flt``, call ``decide``, upsert its result."""

    async def tenants(self) -> list[str]:
        """The tenants that have records, sorted (for store-wide work such as re-embedding)."""

    async def scrub(self) -> str:
        """Make the deletions so far physical (erasure calls it after deleting): no byte of a
        deleted record's text stays in the store's files or its in-memory indexes, as far
        as the backend allows. Returns what was done, for the erasure's receipt."""

    async def aclose(self) -> None: ...


# Helpers shared by stores ------------------------------------------------------------------


async def with_records(
    store: LongTermStore, tenant: str, ranked: Sequence[Ranked]
) -> list[ScoredRecord]:
    """The records of ``ranked`` hits, in rank order, by one ``get`` (hits deleted in
    between are dropped): ``*_search_records`` for a store without a faster way."""
    if not ranked:
        return []
    rows = {row.id: row for row in await store.get(tenant, [rid for rid, _ in ranked])}
    return [(rows[rid], score) for rid, score in ranked if rid in rows]


def check_tenant(tenant: str, records: Sequence[StoredRecord]) -> None:
    """Refuse a record written under another tenant than the caller's."""
    from sedimem.errors import ValidationError

    for record in records:
        if record.tenant != tenant:
            raise ValidationError(
                "tenant", "a record's tenant differs from the caller's", allowed=repr(tenant)
            )


def internal_record(
    kind: str,
    tenant: str,
    id: str,
    body: str,
    occurred_at: float,
    *,
    name: str | None = None,
    outcome: str | None = None,
) -> StoredRecord:
    """A record sedimem keeps for itself (a lease, a run log, an API key): no scope beyond
    the tenant, no text and no vector, so no search ever finds it."""
    return StoredRecord(
        id=id,
        kind=kind,
        tenant=tenant,
        project=None,
        user=None,
        agent_type=None,
        agent=None,
        session=None,
        text="",
        occurred_at=occurred_at,
        importance=0.0,
        body=body,
        name=name,
        outcome=outcome,
    )
