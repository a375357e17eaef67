"""What the long-term services share: a store, an embedder, a clock and a searcher, and
the one way of addressing a record by its id (tenant first, then the scope's reach)."""

from __future__ import annotations

from sedimem.clock import Clock, SystemClock
from sedimem.embed.base import Embedder
from sedimem.errors import NotFound, ValidationError
from sedimem.longterm.arguments import check_text
from sedimem.longterm.records import scope_of
from sedimem.longterm.search import Searcher
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, StoredRecord

__all__ = ["LongTermService", "tenant_of"]


def tenant_of(tenant: str | None, scope: Scope | None) -> str:
    """The tenant a by-id call addresses: the scope's when one is given, else ``tenant``."""
    if scope is None:
        return tenant or "default"
    if tenant is not None and tenant != scope.tenant:
        raise ValidationError(
            "tenant", f"{tenant!r} differs from the scope's tenant", allowed=repr(scope.tenant)
        )
    return scope.tenant


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
    ) -> StoredRecord:
        """The record of ``kind`` with this id: ``NotFound`` when the tenant has none (another
        tenant's id included), ``PermissionDenied`` when ``scope`` does not reach it."""
        check_text(f"{kind}_id", record_id)
        rows = await self._store.get(tenant_of(tenant, scope), [record_id])
        if not rows or rows[0].kind != kind:
            raise NotFound(f"{kind} {record_id!r} does not exist")
        if scope is not None:
            scope.ensure_reaches(scope_of(rows[0]), f"{kind} {record_id!r}", change=change)
        return rows[0]

    @staticmethod
    def _checked(kind: str, record_id: str, rows: list[StoredRecord]) -> StoredRecord | None:
        """Inside a locked decision: the record, unless it was deleted meanwhile."""
        if not rows or rows[0].kind != kind or rows[0].id != record_id:
            return None
        return rows[0]
