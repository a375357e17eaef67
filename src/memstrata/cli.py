"""The ``memstrata`` command line. Settings are built here, at the edge, and passed down."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer
from rich.console import Console

from memstrata.config import Settings
from memstrata.demo import run_demo

__all__ = ["app", "main"]

app = typer.Typer(
    name="memstrata",
    help="Layered memory for AI agents.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Layered memory for AI agents."""


@app.command()
def demo(
    url: Annotated[
        str | None,
        typer.Option(help="Working-memory URL (memory://, sqlite:///path, redis://...)."),
    ] = None,
) -> None:
    """Run a scripted agent session against working memory, printing each step."""
    settings = Settings()
    target = url or settings.resolved_working_url()
    asyncio.run(run_demo(target, settings.working, Console()))


def main() -> None:
    app()
