"""``SedimemSession``: the OpenAI Agents SDK's conversation session over working memory.

The SDK's ``session_id`` is a session of the given scope; each conversation item is one key
of that session's working memory (``openai-agents/item/<UUIDv7>``, the id orders the items),
so the history lives in the SQLite file, Redis or in-process store, expires after
``session_ttl_seconds`` without a write, is erased by ``forget`` and, left idle, becomes an
episode like any session. Needs ``sedimem[openai-agents]``.

``pop_item`` is safe under concurrency: it claims the newest item by deleting it, and tries
the next one if another caller deleted it first, so one item is never returned twice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents.memory import SessionABC
from agents.memory.session_settings import SessionSettings, resolve_session_limit

from sedimem.errors import LimitExceeded, ValidationError
from sedimem.ids import new_id
from sedimem.integrations.loop import LoopBridge
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.working.memory import WorkingMemory

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

__all__ = ["SedimemSession"]

_PREFIX = "openai-agents/item/"


class SedimemSession(SessionABC):
    """The conversation history of ``session_id``, a session of ``scope``."""

    def __init__(
        self,
        session_id: str,
        memory: Memory,
        scope: Scope | None = None,
        *,
        bridge: LoopBridge | None = None,
        session_settings: SessionSettings | None = None,
    ) -> None:
        scope = scope or Scope()
        if scope.session is not None:
            raise ValidationError(
                "scope.session", "is set; session_id names the session", allowed="unset"
            )
        self.session_id = session_id
        self.session_settings = session_settings
        self._memory = memory
        self._working: WorkingMemory = memory.working(scope.with_session(session_id))
        self._bridge = bridge or LoopBridge.current()

    @property
    def working(self) -> WorkingMemory:
        """The working memory that holds the conversation."""
        return self._working

    async def _items(self) -> list[tuple[str, Any]]:
        values = await self._working.get_all()
        return sorted((k, v) for k, v in values.items() if k.startswith(_PREFIX))

    async def get_items(self, limit: int | None = None) -> list[TResponseInputItem]:
        """The history, oldest first; with ``limit``, its newest ``limit`` items (0: none;
        a negative limit means all, as in the SDK's SQLiteSession)."""
        effective = resolve_session_limit(limit, self.session_settings)
        items = [v for _, v in await self._bridge.run(self._items())]
        if effective is None or effective < 0:
            return items
        return items[max(len(items) - effective, 0) :] if effective else []

    async def add_items(self, items: list[TResponseInputItem]) -> None:
        await self._bridge.run(self._add(items))

    async def _add(self, items: list[TResponseInputItem]) -> None:
        if not items:
            return
        # refuse a batch that cannot fit before writing any of it: nothing half-written
        stats = await self._working.get_stats()
        room = self._memory.settings.working.max_keys_per_session - stats.keys
        if len(items) > room:
            raise LimitExceeded(
                "items", f"{len(items)} items do not fit", allowed=f"at most {room} more"
            )
        for item in items:
            await self._working.set(f"{_PREFIX}{new_id()}", item)

    async def pop_item(self) -> TResponseInputItem | None:
        return await self._bridge.run(self._pop())

    async def _pop(self) -> TResponseInputItem | None:
        while True:
            items = await self._items()
            if not items:
                return None
            key, value = items[-1]
            if await self._working.delete(key):
                item: TResponseInputItem = value
                return item
            # another caller popped it first: look again

    async def clear_session(self) -> None:
        await self._bridge.run(self._clear())

    async def _clear(self) -> None:
        for key, _ in await self._items():
            await self._working.delete(key)
