"""Procedural memory: named, versioned steps that worked, ranked by how often they did."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sedimem import observe
from sedimem.clock import utc_from_timestamp
from sedimem.errors import NotFound, ValidationError
from sedimem.limits import MAX_PROCEDURE_USES
from sedimem.longterm import records
from sedimem.longterm.arguments import MAX_K, check_k, check_session, check_text
from sedimem.longterm.provenance import check_sources
from sedimem.longterm.search import Mode
from sedimem.longterm.service import LongTermService
from sedimem.longterm.vectors import embed_all
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter, StoredRecord, Vector
from sedimem.types.edits import ProcedureChanges
from sedimem.types.longterm import Procedure
from sedimem.types.search import Hit

__all__ = ["ProceduralMemory"]

_Change = Callable[[Procedure], Procedure]


class ProceduralMemory(LongTermService):
    @observe.operation("record.procedure")
    async def record(self, procedure: Procedure) -> Procedure:
        """Store a procedure; one with the same name (and owner) becomes its next version."""
        await check_sources(self._store, procedure.scope, procedure.source_episode_ids)
        (vector,) = await embed_all(self._embedder, [procedure.search_text()])
        now = utc_from_timestamp(self._clock.now())
        name = records.normalise(procedure.name)
        result: list[Procedure] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            rows_by_id = {row.id: row for row in rows}
            same = [
                p
                for p in map(records.procedure_from_row, rows)
                if p.scope.owner == procedure.scope.owner
            ]
            if not same:
                fresh = procedure.model_copy(update={"created_at": now, "updated_at": now})
                result.append(fresh)
                return [records.procedure_row(fresh, vector)]
            known = min(same, key=lambda p: p.id)
            if known.steps == procedure.steps and known.trigger == procedure.trigger:
                sources = _union(known.source_episode_ids, procedure.source_episode_ids)
                if sources == known.source_episode_ids:
                    result.append(known)
                    return []
                # the same steps seen in more episodes: only the provenance grows
                grown = known.model_copy(update={"source_episode_ids": sources})
                result.append(grown)
                return [records.procedure_row(grown, rows_by_id[known.id].vector)]
            merged = _new_version(known, procedure.steps, now).model_copy(
                update={
                    "source_episode_ids": procedure.source_episode_ids,
                    "trigger": procedure.trigger,
                    "metadata": {**known.metadata, **procedure.metadata,
                                 "history": _history(known)},
                }
            )  # fmt: skip
            result.append(merged)
            return [records.procedure_row(merged, vector)]

        await self._store.update_locked(
            procedure.scope.tenant,
            f"procedure:{name}",
            RecordFilter(kind=records.PROCEDURE, name=name, user=procedure.scope.user),
            decide,
        )
        return result[0]

    async def get(
        self, procedure_id: str, *, tenant: str | None = None, scope: Scope | None = None
    ) -> Procedure:
        """One procedure by id or handle (``sedimem.ids``); with ``scope``, only if the
        scope reaches it (``Scope.reaches``)."""
        row = await self._addressed(
            records.PROCEDURE, procedure_id, tenant=tenant, scope=scope, by_handle=True
        )
        return records.procedure_from_row(row)

    @observe.operation("recall.procedures")
    async def find_matching(
        self,
        task_description: str,
        *,
        scope: Scope,
        agent_type: str | None = None,
        k: int = 5,
        mode: Mode = "hybrid",
        session: str | None = None,
    ) -> list[Hit[Procedure]]:
        """Procedures for a task, ranked by how well they match times how often they worked
        (from every session of the scope's owner; ``session``: only that session's)."""
        check_k(k)
        if agent_type is not None:
            scope = scope.model_copy(update={"agent_type": agent_type})
        flt = RecordFilter(kind=records.PROCEDURE, visible_to=scope, session=check_session(session))
        # more candidates than asked: success rate re-ranks them (within the search's own bound)
        candidates = min(4 * k, MAX_K)
        found = await self._searcher.search(
            scope.tenant, flt, task_description, candidates, mode=mode, now=self._clock.now()
        )
        # A row's importance is its procedure's success rate (``records.procedure_row``):
        # the top k are chosen on the rows, and only they are read whole (4 k were found).
        found.sort(key=lambda pair: (-pair[1].fused * pair[0].importance, pair[0].id))
        hits = []
        for row, why in found[:k]:
            procedure = records.procedure_from_row(row)
            score = why.fused * procedure.success_rate
            hits.append(
                Hit(record=procedure, score=score, explain=why.model_copy(update={"score": score}))
            )
        hits.sort(key=lambda h: (-h.score, h.record.id))
        return hits

    async def best(self, task_description: str, *, scope: Scope) -> Procedure | None:
        hits = await self.find_matching(task_description, scope=scope, k=1)
        return hits[0].record if hits else None

    async def record_outcome(
        self,
        procedure_id: str,
        success: bool,
        *,
        tenant: str | None = None,
        scope: Scope | None = None,
    ) -> Procedure:
        """Count a use of the procedure, atomically (any scope that reads a procedure may
        count its uses: agents share what was filed at agent-type level). The last
        ``MAX_PROCEDURE_USES`` uses are kept with their time and outcome in
        ``metadata["uses"]`` (oldest first): the success rate over time."""
        if not isinstance(success, bool):
            raise ValidationError("success", "must be true or false", allowed="a boolean")
        row = await self._addressed(records.PROCEDURE, procedure_id, tenant=tenant, scope=scope)
        now = utc_from_timestamp(self._clock.now())

        def change(p: Procedure) -> Procedure:
            return p.model_copy(
                update={
                    "success_count": p.success_count + int(success),
                    "failure_count": p.failure_count + int(not success),
                    "last_used_at": now,
                    "metadata": {**p.metadata, "uses": _uses(p, success, now)},
                }
            )

        return await self._update(row.tenant, procedure_id, change)

    async def update_steps(
        self,
        procedure_id: str,
        steps: list[str],
        *,
        tenant: str | None = None,
        scope: Scope | None = None,
    ) -> Procedure:
        """Replace the steps; the procedure moves to its next version."""
        if not steps or not all(isinstance(s, str) and s.strip() for s in steps):
            raise ValidationError("steps", "must be non-empty text", allowed="1+ non-empty steps")
        return await self.update(
            procedure_id, ProcedureChanges(steps=steps), tenant=tenant, scope=scope
        )

    async def update(
        self,
        procedure_id: str,
        changes: ProcedureChanges | Mapping[str, Any],
        *,
        tenant: str | None = None,
        scope: Scope | None = None,
    ) -> Procedure:
        """Change a procedure: new steps make its next version (the old steps go to its
        history); a new trigger or metadata are changed in place."""
        if not isinstance(changes, ProcedureChanges):
            changes = ProcedureChanges(**changes)
        row = await self._addressed(
            records.PROCEDURE, procedure_id, tenant=tenant, scope=scope, change=True
        )
        now = utc_from_timestamp(self._clock.now())
        before = records.procedure_from_row(row)
        preview = _changed(before, changes, now)
        vector: Vector | None = None
        if preview.search_text() != before.search_text():
            (vector,) = await embed_all(self._embedder, [preview.search_text()])
        return await self._update(
            row.tenant, procedure_id, lambda p: _changed(p, changes, now), vector=vector
        )

    async def delete(
        self, procedure_id: str, *, tenant: str | None = None, scope: Scope | None = None
    ) -> bool:
        """Delete a procedure (false when there is none); with ``scope``, only one it may
        change (``PermissionDenied`` otherwise)."""
        try:
            row = await self._addressed(
                records.PROCEDURE, procedure_id, tenant=tenant, scope=scope, change=True
            )
        except NotFound:
            return False
        return await self._store.delete(row.tenant, [procedure_id]) > 0

    async def _update(
        self, tenant: str, procedure_id: str, change: _Change, *, vector: Vector | None = None
    ) -> Procedure:
        check_text("procedure_id", procedure_id)
        result: list[Procedure] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            current = self._checked(records.PROCEDURE, procedure_id, rows)
            if current is None:
                return []
            changed = change(records.procedure_from_row(current))
            result.append(changed)
            keep = current.vector if vector is None else vector
            return [records.procedure_row(changed, keep)]

        await self._store.update_locked(
            tenant, f"procedure-id:{procedure_id}", RecordFilter(ids=(procedure_id,)), decide
        )
        if not result:
            raise NotFound(f"procedure {procedure_id!r} does not exist")
        return result[0]


def _union(known: list[str], more: list[str]) -> list[str]:
    """``known`` followed by the ids of ``more`` it lacks (order kept: stable rows)."""
    seen = set(known)
    return [*known, *(s for s in more if s not in seen)]


def _uses(p: Procedure, success: bool, now: datetime) -> list[dict[str, object]]:
    earlier = p.metadata.get("uses", [])
    past = list(earlier) if isinstance(earlier, list) else []
    return [*past, {"at": now.isoformat(), "success": success}][-MAX_PROCEDURE_USES:]


#: Kept by the procedure through a metadata edit: its earlier versions and its logged uses.
_OWN_METADATA = ("history", "uses")


def _history(p: Procedure) -> list[dict[str, object]]:
    earlier = p.metadata.get("history", [])
    past = list(earlier) if isinstance(earlier, list) else []
    return [*past, {"version": p.version, "steps": p.steps}]


def _changed(p: Procedure, changes: ProcedureChanges, now: datetime) -> Procedure:
    given = changes.given()
    steps = given.pop("steps", None)
    if steps is not None and steps != p.steps:
        p = _new_version(p, steps, now)
    if "metadata" in given:
        own = {k: p.metadata[k] for k in _OWN_METADATA if p.metadata.get(k)}
        given["metadata"] = {k: v for k, v in given["metadata"].items() if k not in _OWN_METADATA}
        given["metadata"] |= own
    if not given:
        return p
    return Procedure(**{**p.model_dump(), **given, "updated_at": now})


def _new_version(p: Procedure, steps: list[str], now: datetime) -> Procedure:
    return p.model_copy(
        update={
            "steps": list(steps),
            "version": p.version + 1,
            "updated_at": now,
            "metadata": {**p.metadata, "history": _history(p)},
        }
    )
