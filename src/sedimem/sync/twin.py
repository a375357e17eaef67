"""What every blocking twin shares: the async object it runs, and the loop it runs it on."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Generic, TypeVar

from sedimem.runner import LoopRunner

__all__ = ["Twin", "collect"]

T = TypeVar("T")


class Twin(Generic[T]):
    """The blocking twin of an async service: each call runs on ``runner``'s loop."""

    def __init__(self, target: T, runner: LoopRunner) -> None:
        self._target = target
        self._runner = runner

    @property
    def async_(self) -> T:
        """The async object itself (to be used on the runner's loop only)."""
        return self._target

    def __repr__(self) -> str:
        return f"<blocking {self._target!r}>"


async def collect(items: AsyncIterator[T]) -> list[T]:
    """An async iterator's items, in a list: what a twin returns for one."""
    return [item async for item in items]
