"""``SedimemSession``: the OpenAI Agents SDK's conversation session over working memory.

The SDK's ``session_id`` is a session of the given scope; each conversation item is one key
of that session's working memory (``openai-agents/item/<UUIDv7>``, the id orders the items),
so the history lives in the SQLite file, Redis or in-process store and is erased by
``forget``. Like the SDK's own ``SQLiteSession``, it is durable: kept until it is cleared or
deleted (``ttl_seconds`` sets an idle lifetime instead), and never removed by the
consolidation ``sessions`` job (its keys are framework state,
``ConsolidationSettings.framework_key_prefixes``). Needs ``sedimem[openai-agents]``.

With ``ingest="inline"`` (or ``"background"``), ``add_items`` also files each chat turn it
adds (an item with a ``role`` of user, assistant, system or developer, and text content) as
a conversational episode of the session through :meth:`sedimem.memory.Memory.ingest`, and
learns the facts it states, at once (or in a background job); the item's own key is the
turn's id, so every turn is filed once. ``names`` gives the speakers' names per role
(``{"user": "Ana", "assistant": "Shopbot"}``): first-person statements ("I live in Oslo") are
facts about the speaker, so a role without a name yields none of them. Other items (tool
calls, reasoning) stay in the history only; what ingesting did is in ``last_ingest``.

``pop_item`` is safe under concurrency: it claims the newest item by deleting it, and tries
the next one if another caller deleted it first, so one item is never returned twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from agents.memory import SessionABC
from agents.memory.session_settings import SessionSettings, resolve_session_limit

from sedimem.errors import LimitExceeded, ValidationError
from sedimem.ids import new_id
from sedimem.integrations.loop import LoopBridge
from sedimem.limits import KEPT_SESSION_TTL_SECONDS, MAX_MESSAGE_CHARS, MAX_MESSAGES
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.conversation import IngestResult, Message, Role
from sedimem.working.memory import WorkingMemory

if TYPE_CHECKING:
    from agents.items import TResponseInputItem

__all__ = ["IngestMode", "SedimemSession"]

_PREFIX = "openai-agents/item/"

#: How ``add_items`` files the turns into episodic memory (``None``: it does not).
IngestMode = Literal["inline", "background"]

# the SDK's message roles, as sedimem's chat turns know them
_ROLES: dict[str, Role] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
}


def _text(content: object) -> str:
    """A message's text: its string content, or the text of its content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(t for t in parts if isinstance(t, str) and t)
    return ""


def _turn(item_id: str, item: object, names: Mapping[str, str]) -> dict[str, str] | None:
    """The chat turn an item is, or None (tool calls, reasoning, empty text)."""
    if not isinstance(item, dict) or item.get("role") not in _ROLES:
        return None
    text = _text(item.get("content")).replace("\x00", "").strip()
    if not text:
        return None
    # a longer message is filed by its beginning; the history keeps it whole
    turn = {"role": _ROLES[item["role"]], "content": text[:MAX_MESSAGE_CHARS], "id": item_id}
    if (name := names.get(item["role"])) is not None:
        turn["name"] = name
    return turn


def _check_names(names: Mapping[str, str]) -> dict[str, str]:
    for role, name in names.items():
        if role not in _ROLES:
            allowed = ", ".join(_ROLES)
            raise ValidationError("names", f"{role!r} is not a message role", allowed=allowed)
        Message(role=_ROLES[role], content="-", name=name)  # a valid name, or ValidationError
    return dict(names)


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
        ingest: IngestMode | None = None,
        names: Mapping[str, str] | None = None,
        ttl_seconds: float | None = None,
    ) -> None:
        scope = scope or Scope()
        if scope.session is not None:
            raise ValidationError(
                "scope.session", "is set; session_id names the session", allowed="unset"
            )
        if ingest not in (None, "inline", "background"):
            raise ValidationError("ingest", f"{ingest!r} is unknown", allowed="inline, background")
        self.session_id = session_id
        self.session_settings = session_settings
        self.ingest: IngestMode | None = ingest
        self.names = _check_names(names or {})
        #: What the last ``add_items`` filed and learned (``ingest`` set, turns among them).
        self.last_ingest: IngestResult | None = None
        self._memory = memory
        # kept until cleared, unless an idle lifetime is given
        ttl = KEPT_SESSION_TTL_SECONDS if ttl_seconds is None else ttl_seconds
        self._working: WorkingMemory = memory.working(
            scope.with_session(session_id), session_ttl_seconds=ttl
        )
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
        turns: list[dict[str, str]] = []
        for item in items:
            item_id = new_id()
            await self._working.set(f"{_PREFIX}{item_id}", item)
            if self.ingest is not None and (turn := _turn(item_id, item, self.names)) is not None:
                turns.append(turn)
        for start in range(0, len(turns), MAX_MESSAGES):
            self.last_ingest = await self._memory.ingest(
                turns[start : start + MAX_MESSAGES],
                self._working.scope,
                background=self.ingest == "background",
            )

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
