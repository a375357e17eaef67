"""``forget``: erase what matches, in every tier, with everything derived from it.

What a call erases (all given conditions at once; see docs/longterm.md, "Erasure"):

- ``user``: the user's episodes, facts, procedures and pinned blocks, and every session of
  the user's working memory, checkpoints included; a whole user (``user`` alone) also
  loses the documents (LangGraph store items) filed under the user's scopes and the API
  keys narrowed to the user (revoked or not: a key holds the user's id).
- ``session``: the episodes, facts and procedures filed in that session (derived ones go by
  their provenance, below) and that session's working memory; no blocks (they belong to
  no session).
- ``before``: the episodes that occurred before it, the blocks last updated before it and
  the sessions last written before it (facts and procedures only through provenance).

Then the cascade, through provenance (``source_episode_ids``): a fact or procedure derived
from erased episodes is erased when ALL its sources are erased, and **re-derived** when only
some are: the erased ids leave its provenance and what they contributed leaves its counts
(a fact's reinforcement, a procedure's successes and failures). Its content stays, because
every remaining source supports it on its own (each source gave the same statement, or used
the same steps). A record of *another* user that cites erased episodes is never erased by
this: it is that user's own, so it is re-derived (the citations leave it) even when every
source it cited is gone. Consolidation run logs that name the user or an erased record are
erased; a run log names an id when its error or warnings hold it as a whole id (a record's
UUID, or a quoted name such as ``'ana'``), never as a part of other text (a user named
``1`` does not match every log that counts something).

Last, the erasure is made physical: the long-term store scrubs what it deleted (SQLite:
rows zeroed by ``secure_delete``, full-text index merged, saved index files deleted, WAL
truncated; PostgreSQL: VACUUM), a SQLite working store likewise, and the embedder's caches
of seen text are dropped. The receipt counts each kind and says what the scrub did and when.

While a Redis working store serves from its fallback (an outage), erasing by ``session`` or
``before`` is refused with :class:`~sedimem.errors.StoreUnavailable` before anything is
erased: those sessions are found through Redis's session list, so they are listed first,
and an outage that listing meets (Redis died since its last call) refuses it as well. A
whole user is erased then too (the drop is journaled and replayed on Redis when it returns).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from sedimem.blocks import BLOCK
from sedimem.clock import Clock, SystemClock, utc_from_timestamp
from sedimem.consolidation.models import JobReport
from sedimem.consolidation.runlog import RUN_KIND
from sedimem.embed.base import Embedder, forget_cached_text
from sedimem.errors import StoreUnavailable, ValidationError
from sedimem.gdpr.working import drop_listed, matching_sessions
from sedimem.keys import ApiKeys
from sedimem.longterm import records
from sedimem.longterm.documents import DOCUMENT
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.storage.working.base import ScrubbableStore, SessionRef, WorkingStore
from sedimem.types.longterm import Outcome

__all__ = ["ForgetReceipt", "forget"]

_PAGE = 1000


class ForgetReceipt(BaseModel):
    """What an erasure removed, counted per kind, and how it was made physical."""

    model_config = ConfigDict(frozen=True)

    episodes: int = Field(default=0, description="Episodes erased.")
    facts: int = Field(default=0, description="Facts erased (every version).")
    facts_updated: int = Field(default=0, description="Facts re-derived: some sources erased.")
    procedures: int = Field(default=0, description="Procedures erased.")
    procedures_updated: int = Field(
        default=0, description="Procedures re-derived: some sources erased."
    )
    blocks: int = Field(default=0, description="Pinned blocks erased.")
    documents: int = Field(
        default=0, description="Keyed documents (LangGraph store items) of the user's scopes."
    )
    working_sessions: int = Field(
        default=0, description="Sessions of working memory erased, checkpoints included."
    )
    run_logs: int = Field(default=0, description="Consolidation run logs naming what was erased.")
    api_keys: int = Field(
        default=0, description="API keys narrowed to the erased user (a whole user only)."
    )
    scrubbed: str = Field(
        default="", description="What the stores did to make the erasure physical."
    )
    scrubbed_at: datetime | None = Field(
        default=None, description="When that was done (None: nothing was erased)."
    )

    @property
    def erased(self) -> int:
        """Records and sessions erased (re-derived ones not counted)."""
        return (
            self.episodes
            + self.facts
            + self.procedures
            + self.blocks
            + self.documents
            + self.working_sessions
            + self.run_logs
            + self.api_keys
        )


async def _all(store: LongTermStore, tenant: str, flt: RecordFilter) -> list[StoredRecord]:
    rows: list[StoredRecord] = []
    cursor: str | None = None
    while True:
        page = await store.find(tenant, flt, limit=_PAGE, after=cursor)
        rows.extend(page)
        if len(page) < _PAGE:
            return rows
        cursor = page[-1].id


@dataclass(slots=True)
class _Plan:
    """What one erasure deletes (ids per kind) and re-derives (derived rows)."""

    episodes: dict[str, StoredRecord] = field(default_factory=dict)
    doomed: dict[str, set[str]] = field(default_factory=dict)  # kind -> ids
    rederive: dict[str, StoredRecord] = field(default_factory=dict)  # id -> row

    def doom(self, kind: str, ids: Sequence[str]) -> None:
        self.doomed.setdefault(kind, set()).update(ids)

    def is_doomed(self, row: StoredRecord) -> bool:
        return row.id in self.doomed.get(row.kind, set())


async def _plan(
    store: LongTermStore,
    tenant: str,
    user: str | None,
    session: str | None,
    cutoff: float | None,
) -> _Plan:
    plan = _Plan()
    episodes = await _all(
        store,
        tenant,
        RecordFilter(kind=records.EPISODE, user=user, session=session, occurred_before=cutoff),
    )
    plan.episodes = {row.id: row for row in episodes}
    plan.doom(records.EPISODE, list(plan.episodes))
    if cutoff is None:  # named by user and / or session: the records filed there ...
        for kind in (records.FACT, records.PROCEDURE):
            flt = RecordFilter(kind=kind, user=user, session=session)
            plan.doom(
                kind,
                [
                    row.id
                    for row in await _all(store, tenant, flt)
                    # ... except, for a session, derived ones: their provenance decides
                    if session is None or not row.sources
                ],
            )
    if user is not None and session is None and cutoff is None:
        flt = RecordFilter(kind=DOCUMENT, user=user)
        plan.doom(DOCUMENT, [row.id for row in await _all(store, tenant, flt)])
    if session is None:
        flt = RecordFilter(kind=BLOCK, user=user, occurred_before=cutoff)
        plan.doom(BLOCK, [row.id for row in await _all(store, tenant, flt)])
    erased = set(plan.episodes)
    ordered = sorted(erased)  # once: pages of it query provenance
    for start in range(0, len(ordered), _PAGE):
        chunk = tuple(ordered[start : start + _PAGE])
        for kind in (records.FACT, records.PROCEDURE):
            derived = await _all(store, tenant, RecordFilter(kind=kind, derived_from=chunk))
            for row in derived:
                if plan.is_doomed(row):
                    continue
                if set(row.sources) <= erased and not _of_another_user(row, plan.episodes):
                    plan.doom(kind, [row.id])
                else:
                    plan.rederive[row.id] = row
    return plan


def _of_another_user(row: StoredRecord, erased: dict[str, StoredRecord]) -> bool:
    """Whether ``row`` belongs to a user other than the one(s) whose erased episodes it
    cites: it is that user's record, not derived from the erased ones only (it was
    written by that user, or consolidated before provenance was checked); it keeps its
    content and loses the citations."""
    if row.user is None:
        return False
    return any(erased[s].user != row.user for s in row.sources if s in erased)


def _rederived(
    erased: dict[str, StoredRecord],
) -> Callable[[list[StoredRecord]], list[StoredRecord]]:
    """A decision taking erased episodes out of a derived record (see the module doc)."""

    def decide(rows: list[StoredRecord]) -> list[StoredRecord]:
        changed = []
        for row in rows:
            gone = [s for s in row.sources if s in erased]
            if not gone:
                continue
            if row.kind == records.FACT:
                fact = records.fact_from_row(row)
                fact = fact.model_copy(
                    update={
                        "source_episode_ids": [s for s in row.sources if s not in erased],
                        "reinforcement_count": max(1, fact.reinforcement_count - len(gone)),
                    }
                )
                changed.append(records.fact_row(fact, row.vector))
            elif row.kind == records.PROCEDURE:
                proc = records.procedure_from_row(row)
                won = sum(erased[s].outcome == Outcome.SUCCESS.value for s in gone)
                proc = proc.model_copy(
                    update={
                        "source_episode_ids": [s for s in row.sources if s not in erased],
                        "success_count": max(0, proc.success_count - won),
                        "failure_count": max(0, proc.failure_count - (len(gone) - won)),
                    }
                )
                changed.append(records.procedure_row(proc, row.vector))
        return changed

    return decide


#: What a run log's messages name: a record's id (a UUID), or a name in quotes.
_NAMED = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
    r"|'([^'\n]{1,256})'|\"([^\"\n]{1,256})\""
)


def named_in(report: JobReport) -> set[str]:
    """The ids and quoted names a run's error and warnings hold, each whole."""
    names: set[str] = set()
    for text in [report.error or "", *report.warnings]:
        for found in _NAMED.finditer(text):
            names.add(found.group(1) or found.group(2) or found.group(0).lower())
    return names


async def _run_logs(
    store: LongTermStore, tenant: str, user: str | None, erased: set[str]
) -> list[str]:
    """Run logs whose messages name the user or an erased record (an error message may)."""
    names = {user} if user is not None else set()
    names |= {i.lower() for i in erased}
    if not names:
        return []
    return [
        row.id
        for row in await _all(store, tenant, RecordFilter(kind=RUN_KIND))
        if named_in(JobReport.model_validate_json(row.body)) & names
    ]


async def _delete(store: LongTermStore, tenant: str, ids: Sequence[str]) -> int:
    total = 0
    ordered = sorted(ids)
    for start in range(0, len(ordered), _PAGE):
        total += await store.delete(tenant, ordered[start : start + _PAGE])
    return total


async def forget(
    longterm: LongTermStore,
    working: WorkingStore | None,
    tenant: str,
    *,
    user: str | None = None,
    session: str | None = None,
    before: datetime | None = None,
    embedder: Embedder | None = None,
    clock: Clock | None = None,
) -> ForgetReceipt:
    """Erase what matches (all given conditions at once) and say what was erased."""
    if user is None and session is None and before is None:
        raise ValidationError(
            "user", "name at least one of user, session, before", allowed="a condition"
        )
    if before is not None and before.tzinfo is None:
        raise ValidationError("before", "must be timezone-aware", allowed="aware datetime")
    clock = clock or SystemClock()
    cutoff = None if before is None else before.timestamp()
    # By session or date, working memory is found through the store's session list, which
    # Redis cannot give during an outage: erasing only the long-term part would leave the
    # sessions in Redis while the receipt said they were gone. So they are listed first,
    # and an outage met before or by the listing refuses the whole erasure.
    listed: list[SessionRef] | None = None
    if working is not None and (session, before) != (None, None):
        if not working.using_fallback:
            listed = await matching_sessions(
                working, tenant, user=user, session=session, cutoff=cutoff, now=clock.now()
            )
        if working.using_fallback:
            raise StoreUnavailable(
                "erasing by session or date needs the working store's list of sessions, "
                "which it cannot give during an outage: nothing was erased; retry once it is "
                "back (GET /readyz), or erase the whole user, which the outage journal carries"
            )
    plan = await _plan(longterm, tenant, user, session, cutoff)

    counts: dict[str, int] = {}
    for row in plan.rederive.values():
        written = await longterm.update_locked(
            tenant,
            f"{row.kind}-id:{row.id}",
            RecordFilter(ids=(row.id,)),
            _rederived(plan.episodes),
        )
        counts[row.kind] = counts.get(row.kind, 0) + len(written)
    run_logs = await _run_logs(longterm, tenant, user, set(plan.episodes))
    removed = {
        kind: await _delete(longterm, tenant, sorted(ids)) for kind, ids in plan.doomed.items()
    }
    removed_runs = await _delete(longterm, tenant, run_logs)
    keys = 0
    if user is not None and session is None and before is None:
        keys = await ApiKeys(longterm, clock=clock).erase_user(tenant, user)
    sessions = 0
    if listed is not None:
        assert working is not None
        sessions = await drop_listed(working, listed)
    elif working is not None:  # a whole user: the store's owner index reaches every session
        sessions = await working.drop_sessions(tenant, user)
    scrubbed: list[str] = []
    if sum(removed.values()) + removed_runs + sum(counts.values()) + sessions + keys:
        scrubbed.append(await longterm.scrub())
        if isinstance(working, ScrubbableStore):
            scrubbed.append(await working.scrub())
        if embedder is not None:
            forget_cached_text(embedder)
    return ForgetReceipt(
        episodes=removed.get(records.EPISODE, 0),
        facts=removed.get(records.FACT, 0),
        facts_updated=counts.get(records.FACT, 0),
        procedures=removed.get(records.PROCEDURE, 0),
        procedures_updated=counts.get(records.PROCEDURE, 0),
        blocks=removed.get(BLOCK, 0),
        documents=removed.get(DOCUMENT, 0),
        working_sessions=sessions,
        run_logs=removed_runs,
        api_keys=keys,
        scrubbed="; ".join(s for s in scrubbed if s),
        scrubbed_at=utc_from_timestamp(clock.now()) if scrubbed else None,
    )
