"""What every command shares: settings built at the edge, the stores, clean error exits."""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from sedimem.errors import SedimemError

# rich's console and asyncio are imported when a command first needs them: `sedimem
# --help` and `import sedimem.cli` stay cheap (see benchmarks/startup.py).
if TYPE_CHECKING:
    from rich.console import Console

    from sedimem.config import Settings
    from sedimem.memory import Memory

__all__ = [
    "Store",
    "Tenant",
    "Working",
    "console",
    "err_console",
    "load_settings",
    "open_memory",
    "run",
]

T = TypeVar("T")


class LazyConsole:
    """A rich ``Console`` made on first use; attributes are the console's."""

    def __init__(self, *, stderr: bool = False) -> None:
        self._stderr = stderr
        self._console: Console | None = None

    def get(self) -> Console:
        """The console itself (for rich objects that take one)."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=self._stderr)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)


console = LazyConsole()
err_console = LazyConsole(stderr=True)

Working = Annotated[
    str | None,
    typer.Option(help="Working-memory URL: memory://, sqlite:///PATH, redis://HOST:PORT/DB."),
]
Store = Annotated[
    str | None, typer.Option(help="Long-term store URL: sqlite:///PATH, postgresql://...")
]
Tenant = Annotated[str, typer.Option(help="The tenant to act on.")]


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a command's coroutine; our errors end the command with their message, exit 1."""
    import asyncio

    try:
        return asyncio.run(coroutine)
    except SedimemError as exc:
        err_console.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(1) from exc


def load_settings() -> Settings:
    """``SEDIMEM_*`` validated now: a bad setting ends the command, naming it, exit 1."""
    from sedimem.config import load_settings as load

    try:
        return load()
    except SedimemError as exc:
        err_console.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(1) from exc


@asynccontextmanager
async def open_memory(
    working: str | None = None, store: str | None = None
) -> AsyncIterator[Memory]:
    """The stores named on the command line, else ``SEDIMEM_*``, else the home's SQLite file."""
    # Imported here, not at the top: `sedimem --help` must not load the facade.
    from sedimem.memory import Memory

    settings = load_settings()
    async with await Memory.open(working=working, store=store, settings=settings) as memory:
        yield memory
