"""What the long-term services share: a store, an embedder, a clock and a searcher, and
the one way of addressing a record by its id or, for a read, its handle (tenant first,
then the scope's reach)."""

from __future__ import annotations

from collections.abc import Collection

from sedimem.clock import Clock, SystemClock
from sedimem.embed.base import Embedder
from sedimem.errors import NotFound, ValidationError
from sedimem.ids import is_handle
from sedimem.longterm.arguments import check_text
from sedimem.longterm.records import scope_of
from sedimem.longterm.search import Searcher
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord

__all__ = ["LongTermService", "locate", "tenant_of"]

#: Records read for a handle: two already make it ambiguous; a few more to say so clearly.
_SAME_HANDLE = 5


def tenant_of(tenant: str | None, scope: Scope | None) -> str:
    """The tenant a by-id call addresses: the scope's when one is given, else ``tenant``."""
    if scope is None:
        return tenant or "default"
    if tenant is not None and tenant != scope.tenant:
        raise ValidationError(
            "tenant", f"{tenant!r} differs from the scope's tenant", allowed=repr(scope.tenant)
        )
    return scope.tenant


async def locate(
    store: LongTermStore,
    tenant: str,
    record_id: str,
    kinds: Collection[str],
    scope: Scope | None,
    *,
    field: str,
    change: bool = False,
    by_handle: bool = False,
) -> StoredRecord:
    """The record of one of ``kinds`` with this id or, with ``by_handle``, this handle
    (:func:`sedimem.ids.handle`): ``NotFound`` when the tenant has none (another tenant's
    id included), ``PermissionDenied`` when ``scope`` does not reach it, ``ValidationError``
    (on ``field``) when a handle names several records ``scope`` reaches (with their ids)."""
    check_text(field, record_id)
    rows = [r for r in await store.get(tenant, [record_id]) if r.kind in kinds]
    if not rows and by_handle and is_handle(record_id):
        named = await store.find(tenant, RecordFilter(handle=record_id), limit=_SAME_HANDLE)
        rows = [r for r in named if r.kind in kinds]
        if len(rows) > 1 and scope is not None:
            rows = [r for r in rows if scope.reaches(scope_of(r), change=change)] or rows[:1]
        if len(rows) > 1:
            raise ValidationError(
                field,
                f"the handle {record_id!r} names {len(rows)} records: pass a whole id",
                allowed=", ".join(r.id for r in rows),
            )
    if not rows:
        raise NotFound(f"{' or '.join(sorted(kinds))} {record_id!r} does not exist")
    if scope is not None:
        scope.ensure_reaches(scope_of(rows[0]), f"{rows[0].kind} {record_id!r}", change=change)
    return rows[0]


class LongTermService:
    def __init__(
        self,
        store: LongTermStore,
        embedder: Embedder,
        *,
        settings: RetrievalSettings | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self._clock = clock or SystemClock()
        self._searcher = Searcher(store, embedder, settings or RetrievalSettings())

    async def _addressed(
        self,
        kind: str,
        record_id: str,
        *,
        tenant: str | None,
        scope: Scope | None,
        change: bool = False,
        by_handle: bool = False,
    ) -> StoredRecord:
        """The record of ``kind`` with this id (or handle): see :func:`locate`."""
        return await locate(
            self._store,
            tenant_of(tenant, scope),
            record_id,
            (kind,),
            scope,
            field=f"{kind}_id",
            change=change,
            by_handle=by_handle,
        )

    @staticmethod
    def _checked(kind: str, record_id: str, rows: list[StoredRecord]) -> StoredRecord | None:
        """Inside a locked decision: the record, unless it was deleted meanwhile."""
        if not rows or rows[0].kind != kind or rows[0].id != record_id:
            return None
        return rows[0]
