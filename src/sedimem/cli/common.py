"""What every command shares: settings built at the edge, the stores, clean error exits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console

from sedimem.errors import SedimemError

if TYPE_CHECKING:
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

console = Console()
err_console = Console(stderr=True)

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
