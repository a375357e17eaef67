"""``SyncMemory``: the same ``Memory``, for code that is not async.

One event loop runs in a background thread; every call is sent to it and waited for. There
is no second implementation: attribute access returns the same objects, their coroutine
methods become blocking calls, and the services they return are wrapped in turn. Calling it
from inside a running event loop would block that loop, so it is refused.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
from collections.abc import Coroutine
from types import TracebackType
from typing import Any, Self

from sedimem.errors import ConfigurationError
from sedimem.memory import Memory

__all__ = ["SyncMemory"]

# Values returned as they are (data, not services to wrap).
_PLAIN = (str, bytes, int, float, bool, type(None), list, dict, tuple, set, frozenset)


class _Loop:
    """An event loop of its own, in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, name="sedimem-sync", daemon=True
        )
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            coro.close()
            raise ConfigurationError(
                "SyncMemory was called inside a running event loop, which it would block; "
                "use sedimem.Memory (async) there"
            )
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class _Blocking:
    """Wraps an object: coroutine methods block; services it hands out are wrapped too."""

    def __init__(self, target: Any, loop: _Loop) -> None:
        self._target = target
        self._loop = loop

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if inspect.iscoroutinefunction(value):

            @functools.wraps(value)
            def call(*args: Any, **kwargs: Any) -> Any:
                return self._wrap(self._loop.run(value(*args, **kwargs)))

            return call
        if callable(value) and not isinstance(value, type):

            @functools.wraps(value)
            def plain(*args: Any, **kwargs: Any) -> Any:
                return self._wrap(value(*args, **kwargs))

            return plain
        return self._wrap(value)

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, _PLAIN) or hasattr(value, "model_dump"):
            return value
        if inspect.isasyncgen(value):
            return list(self._loop.run(_collect(value)))
        if hasattr(value, "__dict__") and type(value).__module__.startswith("sedimem."):
            return _Blocking(value, self._loop)
        return value

    def __repr__(self) -> str:
        return f"<blocking {self._target!r}>"


async def _collect(agen: Any) -> list[Any]:
    return [item async for item in agen]


class SyncMemory(_Blocking):
    """A blocking ``Memory``: ``SyncMemory.open(...)`` takes the arguments of ``Memory.open``."""

    @classmethod
    def open(cls, *args: Any, **kwargs: Any) -> Self:
        loop = _Loop()
        try:
            memory = loop.run(Memory.open(*args, **kwargs))
        except BaseException:
            loop.stop()
            raise
        return cls(memory, loop)

    def close(self) -> None:
        try:
            self._loop.run(self._target.aclose())
        finally:
            self._loop.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
