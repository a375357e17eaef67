"""Browsing long-term memory page by page: the current facts and the procedures a scope
sees, in the order they were created (what an inspector lists before anyone searches).

Search ranks by a query; a listing needs no query and must reach every record, so it pages
with the store's id cursor under the same visibility filter the searches use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from sedimem.clock import Clock, SystemClock
from sedimem.errors import ValidationError
from sedimem.limits import MAX_LISTING
from sedimem.longterm import records
from sedimem.longterm.arguments import check_text
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.types.longterm import Fact, Procedure
from sedimem.types.search import Page

__all__ = ["MAX_LISTING", "Catalog"]


T = TypeVar("T")


class Catalog:
    """Pages of the facts believed now and of the procedures visible to a scope."""

    def __init__(self, store: LongTermStore, *, clock: Clock | None = None) -> None:
        self._store = store
        self._clock = clock or SystemClock()

    async def facts(
        self,
        scope: Scope,
        *,
        subject: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page[Fact]:
        """The facts believed now and true in the world now (of one subject when given),
        a page at a time; a value superseded in the world is history, not current."""
        check_text("subject", subject)
        flt = RecordFilter(
            kind=records.FACT,
            visible_to=scope,
            subject=None if subject is None else records.normalise(subject),
            current=True,
            valid_at=self._clock.now(),
        )
        return await self._page(scope, flt, limit, cursor, records.fact_from_row)

    async def procedures(
        self, scope: Scope, *, limit: int = 100, cursor: str | None = None
    ) -> Page[Procedure]:
        """The procedures visible to ``scope`` (each at its latest version)."""
        flt = RecordFilter(kind=records.PROCEDURE, visible_to=scope)
        return await self._page(scope, flt, limit, cursor, records.procedure_from_row)

    async def _page(
        self,
        scope: Scope,
        flt: RecordFilter,
        limit: int,
        cursor: str | None,
        convert: Callable[[StoredRecord], T],
    ) -> Page[T]:
        if not 1 <= limit <= MAX_LISTING:
            raise ValidationError("limit", f"{limit} is out of range", allowed=f"1..{MAX_LISTING}")
        check_text("cursor", cursor)
        rows = await self._store.find(scope.tenant, flt, limit=limit + 1, after=cursor)
        items = [convert(r) for r in rows[:limit]]
        return Page(items=items, next_cursor=rows[limit - 1].id if len(rows) > limit else None)
