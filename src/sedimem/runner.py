"""``LoopRunner``: an event loop of its own, in a daemon thread, for callers that are not async.

The one loop runner of the package: ``SyncMemory`` sends every call to it, and the
framework integrations' ``BackgroundMemory`` keeps its ``Memory`` on it. A store's
connections belong to the loop that opened them, so everything a memory does runs on this
one loop, whichever thread asks.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from sedimem.errors import ConfigurationError

__all__ = ["LoopRunner"]

T = TypeVar("T")
P = ParamSpec("P")


class LoopRunner:
    """Runs coroutines (and plain calls) on a loop in a thread of its own, and waits."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="sedimem-sync", daemon=True
        )
        self.thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the loop; the future says when it is done."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def run(self, work: Awaitable[T]) -> T:
        """Run ``work`` (a coroutine, or what an observed service method returns) on the
        loop and wait for its result (or its exception).

        Refused inside a running event loop: waiting there would block that loop."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            if inspect.iscoroutine(work):
                work.close()  # never awaited: no "was never awaited" warning
            raise ConfigurationError(
                "SyncMemory was called inside a running event loop, which it would block; "
                "use sedimem.Memory (async) there"
            )
        return self.submit(_awaited(work)).result()

    def call(self, function: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """Call a plain ``function`` on the loop's thread (what it starts belongs to the
        loop: ``asyncio.get_running_loop()`` inside it finds this loop)."""

        async def on_loop() -> T:
            return function(*args, **kwargs)

        return self.run(on_loop())

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


async def _awaited(work: Awaitable[T]) -> T:
    return await work
