"""``SyncMemory``: the same ``Memory``, for code that is not async.

One event loop runs in a background thread (:class:`sedimem.runner.LoopRunner`); every
call is sent to it and waited for. There is no second implementation: each method of the
facade and of the services it hands out (``memory.working(scope)``, ``memory.episodes``,
``memory.facts``...) has a blocking twin with the same signature (:mod:`sedimem.sync.twins`,
generated from the async classes and checked against them by the tests), so mypy checks a
blocking call as it checks an async one. Calling it from inside a running event loop would
block that loop, so it is refused.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Self

from sedimem.memory import Memory
from sedimem.runner import LoopRunner
from sedimem.sync.twins import (
    SyncApiKeys,
    SyncBlocks,
    SyncCatalog,
    SyncConsolidationWorker,
    SyncConsolidator,
    SyncConversations,
    SyncDocuments,
    SyncEpisodicMemory,
    SyncLifecycle,
    SyncMemoryMethods,
    SyncProceduralMemory,
    SyncReflection,
    SyncSemanticMemory,
    SyncWorkingMemory,
)

if TYPE_CHECKING:
    from sedimem.clock import Clock
    from sedimem.config import Settings
    from sedimem.consolidation import Extractor
    from sedimem.embed.base import Embedder

__all__ = [
    "SyncApiKeys",
    "SyncBlocks",
    "SyncCatalog",
    "SyncConsolidationWorker",
    "SyncConsolidator",
    "SyncConversations",
    "SyncDocuments",
    "SyncEpisodicMemory",
    "SyncLifecycle",
    "SyncMemory",
    "SyncProceduralMemory",
    "SyncReflection",
    "SyncSemanticMemory",
    "SyncWorkingMemory",
]


class SyncMemory(SyncMemoryMethods):
    """A blocking ``Memory``: ``SyncMemory.open(...)`` takes the arguments of ``Memory.open``."""

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        working: str | None = None,
        store: str | None = None,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
        clock: Clock | None = None,
    ) -> Self:
        """Blocking :meth:`sedimem.memory.Memory.open`, on a loop of its own."""
        runner = LoopRunner()
        try:
            memory = runner.run(
                Memory.open(
                    url,
                    working=working,
                    store=store,
                    settings=settings,
                    embedder=embedder,
                    extractor=extractor,
                    clock=clock,
                )
            )
        except BaseException:
            runner.stop()
            raise
        return cls(memory, runner)

    @classmethod
    def from_env(cls) -> Self:
        """Blocking :meth:`sedimem.memory.Memory.from_env`: everything from ``SEDIMEM_*``."""
        return cls.open()

    def close(self) -> None:
        """Close the memory and stop its loop."""
        try:
            self._runner.run(self._target.aclose())
        finally:
            self._runner.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
