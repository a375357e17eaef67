"""The ``sedimem`` command: every sub-command registered in one place."""

from __future__ import annotations

from typing import Annotated

import typer

from sedimem.cli import data, ops, serve, worker
from sedimem.cli.keys import keys_app

__all__ = ["app", "main"]

app = typer.Typer(
    name="sedimem",
    help="Layered memory for AI agents: serve it (REST + MCP), inspect it, erase or export it.",
    no_args_is_help=True,
    add_completion=False,
    # Plain help and usage errors: typer's rich formatting imports rich's markdown, syntax
    # highlighting and traceback modules, which made `sedimem --help` take ~1 s.
    rich_markup_mode=None,
)


def _print_version(value: bool) -> None:
    if value:
        import sedimem

        typer.echo(f"sedimem {sedimem.__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", is_eager=True, callback=_print_version
        ),
    ] = False,
) -> None:
    """Layered memory for AI agents: serve it (REST + MCP), inspect it, erase or export it."""


app.command()(serve.serve)
app.command()(serve.mcp)
app.command()(worker.worker)
app.command()(ops.demo)
app.command()(ops.stats)
app.command()(ops.consolidate)
app.command()(ops.doctor)
app.command()(ops.bench)
app.command()(data.export)
app.command("import")(data.import_)
app.command()(data.forget)
app.add_typer(keys_app, name="keys")
app.add_typer(ops.eval_app, name="eval")


def main() -> None:
    app()
