"""The ``memstrata`` command line. Settings are built here, at the edge, and passed down."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from memstrata.config import Settings
from memstrata.demo import run_demo
from memstrata.evaluation.run import run_locomo
from memstrata.memory import Memory

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
        typer.Option(help="One store URL for everything (default: the SQLite file in the home)."),
    ] = None,
    working: Annotated[
        str | None, typer.Option(help="Working-memory URL (memory://, sqlite:///, redis://).")
    ] = None,
    store: Annotated[
        str | None, typer.Option(help="Long-term store URL (sqlite:///, postgresql://).")
    ] = None,
) -> None:
    """A scripted agent: spawn, work, pause, resume, terminate, recall, assemble context."""

    async def main() -> None:
        settings = Settings()
        async with await Memory.open(url, working=working, store=store, settings=settings) as m:
            await run_demo(m, Console())

    asyncio.run(main())


eval_app = typer.Typer(help="Evaluate retrieval quality on public datasets.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")

_DEFAULT_LOCOMO = Path("../shared/data/locomo10.json")


@eval_app.command("locomo")
def eval_locomo(
    data: Annotated[
        Path | None,
        typer.Option(help="Path to locomo10.json (default: ../shared/data/locomo10.json)."),
    ] = None,
    store: Annotated[
        str | None, typer.Option(help="Long-term store URL (default: a temporary SQLite file).")
    ] = None,
) -> None:
    """Evidence recall@5/@10 and NDCG@10 for keyword-only, vector-only and hybrid retrieval."""
    path = data or _DEFAULT_LOCOMO
    if not path.exists():
        raise typer.BadParameter(f"{path} does not exist; pass --data PATH", param_hint="--data")
    asyncio.run(run_locomo(path, Console(), store_url=store))


def main() -> None:
    app()
