"""Episodic memory: what happened, how it ended, and what was learned."""

from __future__ import annotations

import asyncio
import builtins
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sedimem import observe
from sedimem.errors import NotFound, ValidationError
from sedimem.limits import MAX_EPISODE_PAGE
from sedimem.longterm import records
from sedimem.longterm.arguments import aware_timestamp, check_k, check_session, check_text
from sedimem.longterm.search import Mode
from sedimem.longterm.service import LongTermService
from sedimem.longterm.vectors import as_vector, embed_all
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter, StoredRecord, Vector
from sedimem.types.edits import EpisodeChanges
from sedimem.types.longterm import Episode, Outcome
from sedimem.types.search import Hit, Page

__all__ = ["EpisodicMemory"]

MAX_PAGE = MAX_EPISODE_PAGE
#: ``record_many`` writes at most this many batches at once.
WRITES_IN_FLIGHT = 2


class EpisodicMemory(LongTermService):
    @observe.operation("record.episode")
    async def record(
        self, episode: Episode, *, embedding: Sequence[float] | None = None
    ) -> Episode:
        """Store one episode (embedded with the configured embedder unless given)."""
        if embedding is not None:
            vector = as_vector(embedding, self._embedder.dimension)
            await self._store.put(episode.scope.tenant, [records.episode_row(episode, vector)])
            return episode
        return (await self.record_many([episode]))[0]

    @observe.operation("record.episodes")
    async def record_many(
        self,
        episodes: Sequence[Episode],
        *,
        batch_size: int = 512,
        progress: Callable[[int], None] | None = None,
    ) -> list[Episode]:
        """Store episodes in batches; each batch is written all or nothing.

        Batches overlap: while one is being written (a store with a pool writes it on its
        own connection, where the server's index inserts run), the next is embedded and
        then written beside it, at most :data:`WRITES_IN_FLIGHT` at once. A batch holding
        an episode id of a batch still in flight waits for it, so that the later version
        of a record is the one kept. The first failure is raised after the writes under
        way have ended (each batch still all or nothing)."""
        if not 1 <= batch_size <= 100_000:
            raise ValidationError(
                "batch_size", f"{batch_size} is out of range", allowed="1..100000"
            )
        for episode in episodes:
            if not isinstance(episode, Episode):
                raise ValidationError("episodes", "must be Episode records", allowed="Episode")
        in_flight: dict[asyncio.Task[int], frozenset[str]] = {}
        try:
            for start in range(0, len(episodes), batch_size):
                batch = episodes[start : start + batch_size]
                vectors = await embed_all(self._embedder, [e.search_text() for e in batch])
                ids = frozenset(e.id for e in batch)
                while in_flight and (
                    len(in_flight) >= WRITES_IN_FLIGHT
                    or any(ids & written for written in in_flight.values())
                ):
                    await self._settle(in_flight, progress)
                rows = [records.episode_row(e, v) for e, v in zip(batch, vectors, strict=True)]
                in_flight[asyncio.ensure_future(self._write(rows))] = ids
            while in_flight:
                await self._settle(in_flight, progress)
        finally:
            if in_flight:  # a failure: let the other writes end (or fail) before raising
                await asyncio.gather(*in_flight, return_exceptions=True)
        return list(episodes)

    async def _write(self, rows: builtins.list[StoredRecord]) -> int:
        by_tenant: dict[str, builtins.list[StoredRecord]] = {}
        for row in rows:
            by_tenant.setdefault(row.tenant, []).append(row)
        for tenant, tenant_rows in by_tenant.items():
            await self._store.put(tenant, tenant_rows)
        return len(rows)

    @staticmethod
    async def _settle(
        in_flight: dict[asyncio.Task[int], frozenset[str]],
        progress: Callable[[int], None] | None,
    ) -> None:
        """Wait for the first of the writes in flight to end; raise its error."""
        done, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            del in_flight[task]
            written = task.result()
            if progress is not None:
                progress(written)

    async def get(
        self, episode_id: str, *, tenant: str | None = None, scope: Scope | None = None
    ) -> Episode:
        """One episode by id or handle (``sedimem.ids``: a context's passage names its
        episode so); with ``scope``, only if the scope reaches it (``Scope.reaches``)."""
        row = await self._addressed(
            records.EPISODE, episode_id, tenant=tenant, scope=scope, by_handle=True
        )
        return records.episode_from_row(row)

    async def update(
        self,
        episode_id: str,
        changes: EpisodeChanges | Mapping[str, Any],
        *,
        tenant: str | None = None,
        scope: Scope | None = None,
    ) -> Episode:
        """Change fields of an episode in place (re-embedded when its text changes)."""
        if not isinstance(changes, EpisodeChanges):
            changes = EpisodeChanges(**changes)
        row = await self._addressed(
            records.EPISODE, episode_id, tenant=tenant, scope=scope, change=True
        )
        edited = _edited(records.episode_from_row(row), changes)
        vector: Vector | None = None
        if edited.search_text() != records.episode_from_row(row).search_text():
            (vector,) = await embed_all(self._embedder, [edited.search_text()])
        result: builtins.list[Episode] = []

        def decide(rows: builtins.list[StoredRecord]) -> Sequence[StoredRecord]:
            current = self._checked(records.EPISODE, episode_id, rows)
            if current is None:
                return []
            episode = _edited(records.episode_from_row(current), changes)
            result.append(episode)
            keep = current.vector if vector is None else vector
            return [records.episode_row(episode, keep, name=current.name)]

        await self._store.update_locked(
            row.tenant, f"episode-id:{episode_id}", RecordFilter(ids=(episode_id,)), decide
        )
        if not result:
            raise NotFound(f"episode {episode_id!r} does not exist")
        return result[0]

    async def list(
        self,
        scope: Scope,
        *,
        limit: int = 50,
        cursor: str | None = None,
        outcome: Outcome | str | None = None,
        task_type: str | None = None,
        time_range: tuple[datetime, datetime] | None = None,
        min_importance: float | None = None,
        newest_first: bool = False,
        session: str | None = None,
    ) -> Page[Episode]:
        """Episodes visible to ``scope`` (from every session of its owner; ``session``: only
        those recorded in that session), in creation order, a page at a time."""
        if not 1 <= limit <= MAX_PAGE:
            raise ValidationError("limit", f"{limit} is out of range", allowed=f"1..{MAX_PAGE}")
        flt = self._filter(scope, outcome, task_type, time_range, min_importance, session)
        rows = await self._store.find(
            scope.tenant, flt, limit=limit + 1, after=cursor, newest_first=newest_first
        )
        items = [records.episode_from_row(r) for r in rows[:limit]]
        return Page(items=items, next_cursor=items[-1].id if len(rows) > limit else None)

    @observe.operation("recall.episodes")
    async def recall(
        self,
        query: str,
        *,
        scope: Scope,
        k: int = 10,
        time_range: tuple[datetime, datetime] | None = None,
        outcome: Outcome | str | None = None,
        task_type: str | None = None,
        min_importance: float | None = None,
        mode: Mode = "hybrid",
        session: str | None = None,
    ) -> builtins.list[Hit[Episode]]:
        """The episodes that best match ``query`` among those visible to ``scope`` (from
        every session of its owner; ``session``: only those recorded in that session)."""
        check_k(k)
        flt = self._filter(scope, outcome, task_type, time_range, min_importance, session)
        found = await self._searcher.search(
            scope.tenant, flt, query, k, mode=mode, now=self._clock.now()
        )
        return [
            Hit(record=records.episode_from_row(row), score=why.score, explain=why)
            for row, why in found
        ]

    async def delete(
        self, episode_id: str, *, tenant: str | None = None, scope: Scope | None = None
    ) -> bool:
        """Delete an episode (false when there is none); with ``scope``, only one it may
        change (``PermissionDenied`` otherwise)."""
        try:
            row = await self._addressed(
                records.EPISODE, episode_id, tenant=tenant, scope=scope, change=True
            )
        except NotFound:
            return False
        return await self._store.delete(row.tenant, [episode_id]) > 0

    async def session_messages(
        self, scope: Scope, limit: int = 50
    ) -> builtins.list[dict[str, str]]:
        """User/assistant turns of the session's conversational episodes, oldest first."""
        scope.require_session()
        if not 1 <= limit <= MAX_PAGE:
            raise ValidationError("limit", f"{limit} is out of range", allowed=f"1..{MAX_PAGE}")
        flt = RecordFilter(kind=records.EPISODE, visible_to=scope, session=scope.session)
        rows = await self._store.find(scope.tenant, flt, limit=limit, newest_first=True)
        messages: builtins.list[dict[str, str]] = []
        for episode in sorted((records.episode_from_row(r) for r in rows), key=_when):
            if episode.input_text:
                messages.append({"role": "user", "content": episode.input_text})
            if episode.output_text:
                messages.append({"role": "assistant", "content": episode.output_text})
        return messages

    @staticmethod
    def _filter(
        scope: Scope,
        outcome: Outcome | str | None,
        task_type: str | None,
        time_range: tuple[datetime, datetime] | None,
        min_importance: float | None,
        session: str | None,
    ) -> RecordFilter:
        check_text("task_type", task_type)
        if outcome is not None:
            try:
                outcome = Outcome(outcome)
            except ValueError as exc:
                raise ValidationError(
                    "outcome", f"{outcome!r} is unknown", allowed="success, failure, partial, none"
                ) from exc
        start = end = None
        if time_range is not None:
            start, end = (aware_timestamp(t, "time_range") for t in time_range)
            if end < start:
                raise ValidationError("time_range", "ends before it starts", allowed="start <= end")
        if min_importance is not None and not 0 <= min_importance <= 1:
            raise ValidationError(
                "min_importance", f"{min_importance} is out of range", allowed="0..1"
            )
        return RecordFilter(
            kind=records.EPISODE,
            visible_to=scope,
            outcome=None if outcome is None else outcome.value,
            task_type=task_type,
            occurred_from=start,
            occurred_before=None if end is None else end + 1e-6,
            min_importance=min_importance,
            session=check_session(session),
        )


def _edited(episode: Episode, changes: EpisodeChanges) -> Episode:
    """The episode with the changes applied, validated as a whole."""
    return Episode(**{**episode.model_dump(), **changes.given()})


def _when(episode: Episode) -> tuple[datetime, str]:
    return (episode.occurred_at, episode.id)
