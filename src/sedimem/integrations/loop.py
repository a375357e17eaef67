"""One event loop for an adapter, whichever thread or loop its framework calls it from.

A store's connections belong to the event loop that opened them (a Redis client cannot be
used from another loop). An adapter therefore remembers the loop its ``Memory`` lives on and
runs every operation there: awaited directly when the caller is on that loop, handed over
(and awaited, or waited for) from any other loop or thread. A blocking call made on the
memory's own loop would wait for itself forever, so it is refused with a clear error.

Sync code (a LangGraph graph run with ``invoke``) opens its memory with
:meth:`BackgroundMemory.open`: a ``Memory`` living on a loop in a thread of its own (the
package's one :class:`~sedimem.runner.LoopRunner`, which ``SyncMemory`` runs on too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from types import TracebackType
from typing import Any, Self, TypeVar

from sedimem.errors import ConfigurationError
from sedimem.memory import Memory
from sedimem.runner import LoopRunner

__all__ = ["BackgroundMemory", "LoopBridge"]

T = TypeVar("T")


class LoopBridge:
    """Runs coroutines on the loop that owns the memory."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop

    @classmethod
    def current(cls) -> LoopBridge:
        """The running loop: the adapter is built in async code, next to its memory."""
        try:
            return cls(asyncio.get_running_loop())
        except RuntimeError as exc:
            raise ConfigurationError(
                "no running event loop: build the adapter in async code, or pass the bridge "
                "of a BackgroundMemory"
            ) from exc

    def _on_own_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self._loop
        except RuntimeError:
            return False

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on the memory's loop, from any loop."""
        if self._on_own_loop():
            return await coro
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def block(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the memory's loop and wait for it (sync callers)."""
        if self._on_own_loop():
            coro.close()
            raise ConfigurationError(
                "a blocking method was called on the event loop the memory runs on, which it "
                "would block forever; call the async method (a-prefixed) there"
            )
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()


class BackgroundMemory:
    """A ``Memory`` on an event loop in a daemon thread, for adapters used from sync code."""

    def __init__(self, memory: Memory, runner: LoopRunner) -> None:
        self.memory = memory
        self.bridge = LoopBridge(runner.loop)
        self._runner = runner

    @classmethod
    def open(cls, *args: Any, **kwargs: Any) -> Self:
        """Takes the arguments of ``Memory.open``."""
        runner = LoopRunner()
        try:
            memory = runner.submit(Memory.open(*args, **kwargs)).result()
        except BaseException:
            runner.stop()
            raise
        return cls(memory, runner)

    def close(self) -> None:
        try:
            self._runner.submit(self.memory.aclose()).result()
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
