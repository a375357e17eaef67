"""Erasure and portability (GDPR): forget, export and import a user's data.

``forget`` erases, in every store, the matching episodes, the facts derived only from them
(all of the user's facts, procedures and documents when a whole user is erased), their
keyword rows and vectors, and the user's working memory and checkpoints. It pages through
everything: no silent caps.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from datetime import datetime

from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PydanticValidationError

from sedimem.embed.base import Embedder
from sedimem.errors import ValidationError
from sedimem.longterm import records
from sedimem.longterm.documents import DOCUMENT
from sedimem.longterm.vectors import embed_all
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord, Vector
from sedimem.storage.working.base import WorkingStore
from sedimem.types._base import translate
from sedimem.types.longterm import Episode, Fact, Procedure

__all__ = ["ForgetReceipt", "export_user", "forget", "import_records"]

_PAGE = 1000
_KINDS: dict[str, type[Episode] | type[Fact] | type[Procedure]] = {
    records.EPISODE: Episode,
    records.FACT: Fact,
    records.PROCEDURE: Procedure,
}


class ForgetReceipt(BaseModel):
    """What an erasure removed, counted per kind."""

    model_config = ConfigDict(frozen=True)

    episodes: int = 0
    facts: int = 0
    facts_updated: int = 0  # facts that lost some, not all, of their sources
    procedures: int = 0
    documents: int = 0  # keyed documents (LangGraph store items) of the user's scopes
    working_sessions: int = 0


async def _all(store: LongTermStore, tenant: str, flt: RecordFilter) -> list[StoredRecord]:
    rows: list[StoredRecord] = []
    cursor: str | None = None
    while True:
        page = await store.find(tenant, flt, limit=_PAGE, after=cursor)
        rows.extend(page)
        if len(page) < _PAGE:
            return rows
        cursor = page[-1].id


async def forget(
    longterm: LongTermStore,
    working: WorkingStore | None,
    tenant: str,
    *,
    user: str | None = None,
    session: str | None = None,
    before: datetime | None = None,
) -> ForgetReceipt:
    """Erase what matches (all given conditions at once) and say what was erased."""
    if user is None and session is None and before is None:
        raise ValidationError(
            "user", "name at least one of user, session, before", allowed="a condition"
        )
    if before is not None and before.tzinfo is None:
        raise ValidationError("before", "must be timezone-aware", allowed="aware datetime")
    cutoff = None if before is None else before.timestamp()
    episodes = await _all(
        longterm,
        tenant,
        RecordFilter(kind=records.EPISODE, user=user, session=session, occurred_before=cutoff),
    )
    erased = {row.id for row in episodes}
    whole_user = user is not None and session is None and before is None

    doomed_facts: set[str] = set()
    trimmed: list[StoredRecord] = []
    if whole_user:
        doomed_facts = {
            r.id for r in await _all(longterm, tenant, RecordFilter(kind=records.FACT, user=user))
        }
    ordered = sorted(erased)  # once: pages of it query provenance
    for start in range(0, len(ordered), _PAGE):
        chunk = tuple(ordered[start : start + _PAGE])
        derived = await _all(longterm, tenant, RecordFilter(kind=records.FACT, derived_from=chunk))
        for row in derived:
            if row.id in doomed_facts:
                continue
            if set(row.sources) <= erased:
                doomed_facts.add(row.id)
            else:
                trimmed.append(row)
    procedures: list[StoredRecord] = []
    documents: list[StoredRecord] = []
    if whole_user:
        procedures = await _all(longterm, tenant, RecordFilter(kind=records.PROCEDURE, user=user))
        documents = await _all(longterm, tenant, RecordFilter(kind=DOCUMENT, user=user))

    updated = 0
    for row in {r.id: r for r in trimmed if r.id not in doomed_facts}.values():
        await longterm.update_locked(
            tenant, f"fact-id:{row.id}", RecordFilter(ids=(row.id,)), _drop_sources(erased)
        )
        updated += 1
    removed_facts = await _delete(longterm, tenant, sorted(doomed_facts))
    removed_procedures = await _delete(longterm, tenant, [r.id for r in procedures])
    removed_documents = await _delete(longterm, tenant, [r.id for r in documents])
    removed_episodes = await _delete(longterm, tenant, ordered)
    sessions = 0
    if working is not None and whole_user:
        sessions = await working.drop_sessions(tenant, user)
    return ForgetReceipt(
        episodes=removed_episodes,
        facts=removed_facts,
        facts_updated=updated,
        procedures=removed_procedures,
        documents=removed_documents,
        working_sessions=sessions,
    )


def _drop_sources(erased: set[str]) -> Callable[[list[StoredRecord]], list[StoredRecord]]:
    """A decision removing erased episodes from a fact's provenance, keeping its vector."""

    def decide(rows: list[StoredRecord]) -> list[StoredRecord]:
        changed = []
        for row in rows:
            fact = records.fact_from_row(row)
            kept = [s for s in fact.source_episode_ids if s not in erased]
            changed.append(
                records.fact_row(fact.model_copy(update={"source_episode_ids": kept}), row.vector)
            )
        return changed

    return decide


async def _delete(store: LongTermStore, tenant: str, ids: Sequence[str]) -> int:
    total = 0
    for start in range(0, len(ids), _PAGE):
        total += await store.delete(tenant, ids[start : start + _PAGE])
    return total


async def export_user(longterm: LongTermStore, tenant: str, user: str | None) -> AsyncIterator[str]:
    """JSON Lines, one typed record a line: ``{"kind": ..., "record": {...}}``.

    Facts carry their provenance (``source_episode_ids``); episodes come first so a reader
    meets each source before the facts derived from it.
    """
    for kind in (records.EPISODE, records.FACT, records.PROCEDURE):
        flt = RecordFilter(kind=kind, user=user)
        cursor: str | None = None
        while True:
            page = await longterm.find(tenant, flt, limit=_PAGE, after=cursor)
            for row in page:
                if user is None and row.user is not None:
                    continue
                yield json.dumps({"kind": kind, "record": json.loads(row.body)}, sort_keys=True)
            if len(page) < _PAGE:
                break
            cursor = page[-1].id


async def import_records(
    longterm: LongTermStore,
    embedder: Embedder,
    tenant: str,
    lines: Iterable[str],
    *,
    progress: Callable[[int], None] | None = None,
) -> dict[str, int]:
    """Read what ``export_user`` wrote into ``tenant`` (ids kept, vectors recomputed).

    Every line is validated before anything is written; a bad line names its number.
    """
    parsed: list[Episode | Fact | Procedure] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            model = _KINDS[item["kind"]]
            record = model.model_validate(
                {**item["record"], "scope": {**item["record"].get("scope", {}), "tenant": tenant}}
            )
        except PydanticValidationError as exc:
            raise translate(exc, prefix=f"line {number}: ") from exc
        except (ValueError, KeyError, TypeError) as exc:
            raise ValidationError(f"line {number}", f"is not an exported record ({exc})") from exc
        parsed.append(record)
    counts = {records.EPISODE: 0, records.FACT: 0, records.PROCEDURE: 0}
    for start in range(0, len(parsed), _PAGE):
        batch = parsed[start : start + _PAGE]
        vectors = await embed_all(embedder, [_text(r) for r in batch])
        rows = [_row(r, v) for r, v in zip(batch, vectors, strict=True)]
        await longterm.put(tenant, rows)
        for row in rows:
            counts[row.kind] += 1
        if progress is not None:
            progress(len(batch))
    return counts


def _text(record: Episode | Fact | Procedure) -> str:
    if isinstance(record, Fact):
        return record.statement
    return record.search_text()


def _row(record: Episode | Fact | Procedure, vector: Vector) -> StoredRecord:
    if isinstance(record, Episode):
        return records.episode_row(record, vector)
    if isinstance(record, Fact):
        return records.fact_row(record, vector)
    return records.procedure_row(record, vector)
