"""``SedimemSaver.from_conn_string(url)``: a saver that opens, and closes, its own memory.

LangGraph's savers are built from a connection string in a context manager
(``SqliteSaver.from_conn_string``, ``AsyncPostgresSaver.from_conn_string``); the saver lives
as long as the block. One ``SedimemSaver`` serves sync and async graphs, so the object
returned is both kinds of context manager:

- ``with SedimemSaver.from_conn_string(url) as saver:`` opens the memory on a loop in a
  thread of its own (:class:`~sedimem.integrations.loop.BackgroundMemory`), for
  ``graph.invoke``;
- ``async with SedimemSaver.from_conn_string(url) as saver:`` opens it on the running loop,
  for ``graph.ainvoke``.

``url`` names the working store the threads live in (``sqlite:///path``, ``redis://...``,
``memory://``). A ``Memory`` also needs a long-term store: ``store`` when given, else the same
file for a SQLite URL, else the configured default (``SEDIMEM_STORE_URL`` or the home's file).
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

from sedimem.integrations.loop import BackgroundMemory, LoopBridge
from sedimem.memory import Memory
from sedimem.scope import Scope

if TYPE_CHECKING:
    from sedimem.integrations.langgraph.saver import SedimemSaver

__all__ = ["SaverConnection"]


class SaverConnection:
    """The context manager ``SedimemSaver.from_conn_string`` returns (sync and async)."""

    def __init__(
        self,
        url: str,
        *,
        scope: Scope | None,
        store: str | None,
        ttl_seconds: float | None,
        memory_options: dict[str, Any],
    ) -> None:
        self._open = {
            "working": url,
            "store": store or (url if url.startswith("sqlite:") else None),
            **memory_options,
        }
        self._scope = scope
        self._ttl = ttl_seconds
        self._background: BackgroundMemory | None = None
        self._memory: Memory | None = None

    def _saver(self, memory: Memory, bridge: LoopBridge) -> SedimemSaver:
        from sedimem.integrations.langgraph.saver import SedimemSaver

        return SedimemSaver(memory, self._scope, bridge=bridge, ttl_seconds=self._ttl)

    def __enter__(self) -> SedimemSaver:
        background = BackgroundMemory.open(**self._open)
        try:
            saver = self._saver(background.memory, background.bridge)
        except BaseException:
            background.close()
            raise
        self._background = background
        return saver

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        background, self._background = self._background, None
        if background is not None:
            background.close()

    async def __aenter__(self) -> SedimemSaver:
        memory = await Memory.open(**self._open)
        try:
            saver = self._saver(memory, LoopBridge.current())
        except BaseException:
            await memory.aclose()
            raise
        self._memory = memory
        return saver

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        memory, self._memory = self._memory, None
        if memory is not None:
            await memory.aclose()
