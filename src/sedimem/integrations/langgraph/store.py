"""``SedimemStore``: LangGraph's ``BaseStore`` over sedimem's long-term memory.

Mapping: the store is bound to one sedimem scope (tenant, and optionally project, user,
agent type, agent); every LangGraph namespace is a path *inside* that scope. Items are the
scope's documents (:mod:`sedimem.longterm.documents`): durable long-term records, searched
by keywords and meaning (hybrid, like every sedimem search). Two
stores on different scopes never see each other's items, whatever their namespaces; an
agent's namespaces such as ``("memories", user_id)`` work unchanged inside its scope.

TTL: ``ttl`` on ``put`` (minutes, LangGraph's unit) or ``ttl_config={"default_ttl": ...}``;
reads refresh it unless ``refresh_on_read`` is False or the read says ``refresh_ttl=False``;
expired items are never returned and are removed when met (``sweep_ttl`` removes them all).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langgraph.store.base import (
    NOT_PROVIDED,
    BaseStore,
    GetOp,
    IndexConfig,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from sedimem.errors import ValidationError
from sedimem.integrations.loop import LoopBridge
from sedimem.longterm.documents import Document, Documents
from sedimem.memory import Memory
from sedimem.scope import Scope

__all__ = ["SedimemStore"]


def _item(doc: Document) -> Item:
    return Item(
        value=doc.value,
        key=doc.key,
        namespace=doc.namespace,
        created_at=doc.created_at,
        updated_at=doc.updated_at,
    )


class SedimemStore(BaseStore):
    """Long-term memory of ``scope`` as a LangGraph store.

    ``index={"fields": [...]}`` chooses what search sees of each value (default: all of its
    text); sedimem's own embedder embeds it, so no embedding model needs configuring.
    """

    supports_ttl = True

    def __init__(
        self,
        memory: Memory,
        scope: Scope | None = None,
        *,
        bridge: LoopBridge | None = None,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        self.memory = memory
        self.scope = (scope or Scope()).owner
        self.documents: Documents = memory.documents(self.scope)
        self.bridge = bridge or LoopBridge.current()
        fields = (index or {}).get("fields")
        self.index_fields = list(fields) if fields else None
        self.ttl_config = ttl

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return self.bridge.block(self._batch(list(ops)))

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await self.bridge.run(self._batch(list(ops)))

    def sweep_ttl(self) -> int:
        """Remove the scope's expired items now; return how many live items remain."""
        return self.bridge.block(self._sweep())

    async def asweep_ttl(self) -> int:
        return await self.bridge.run(self._sweep())

    async def _sweep(self) -> int:
        return len(await self.documents.search((), limit=2**31, refresh=False))

    def _ttl_seconds(self, ttl: float | Any | None) -> float | None:
        minutes = (self.ttl_config or {}).get("default_ttl") if ttl is NOT_PROVIDED else ttl
        return None if minutes is None else float(minutes) * 60.0

    async def _batch(self, ops: list[Op]) -> list[Result]:
        # reads see the state before the batch's writes, and the last write to a key wins,
        # as in LangGraph's own stores
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, GetOp):
                doc = await self.documents.get(op.namespace, op.key, refresh=op.refresh_ttl)
                results.append(None if doc is None else _item(doc))
            elif isinstance(op, SearchOp):
                results.append(await self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(await self._namespaces(op))
            elif isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
                results.append(None)
            else:
                raise ValidationError("op", f"{type(op).__name__} is unknown", allowed="store ops")
        for op in puts.values():
            if op.value is None:
                await self.documents.delete(op.namespace, op.key)
                continue
            index = self.index_fields if op.index is None else op.index
            await self.documents.put(
                op.namespace,
                op.key,
                dict(op.value),
                index=index,
                ttl_seconds=self._ttl_seconds(op.ttl),
            )
        return results

    async def _search(self, op: SearchOp) -> list[SearchItem]:
        found = await self.documents.search(
            op.namespace_prefix,
            filter=op.filter,
            query=op.query,
            limit=op.limit,
            offset=op.offset,
            refresh=op.refresh_ttl,
        )
        return [
            SearchItem(
                namespace=doc.namespace,
                key=doc.key,
                value=doc.value,
                created_at=doc.created_at,
                updated_at=doc.updated_at,
                score=score,
            )
            for doc, score in found
        ]

    async def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        patterns: dict[str, tuple[str, ...]] = {}
        for condition in op.match_conditions or ():
            if condition.match_type in patterns:
                raise ValidationError(
                    "match_conditions",
                    f"more than one {condition.match_type} condition",
                    allowed="at most one prefix and one suffix",
                )
            patterns[condition.match_type] = tuple(condition.path)
        return await self.documents.namespaces(
            prefix=patterns.get("prefix"),
            suffix=patterns.get("suffix"),
            max_depth=op.max_depth,
            limit=op.limit,
            offset=op.offset,
        )
