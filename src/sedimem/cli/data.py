"""GDPR from the command line: ``export``, ``import`` and ``forget``."""

from datetime import datetime
from pathlib import Path
from typing import Annotated

import typer

from sedimem.cli.common import Store, Tenant, Working, console, open_memory, run

__all__ = ["export", "forget", "import_"]


def export(
    user: Annotated[str, typer.Option(help="The user whose records to export.")],
    out: Annotated[Path, typer.Option(help="The JSON Lines file to write.")],
    tenant: Tenant = "default",
    store: Store = None,
) -> None:
    """Write a user's episodes, facts and procedures as JSON Lines (one record a line)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    async def main() -> int:
        from sedimem.access import Access

        written = 0
        partial = out.with_name(out.name + ".partial")
        async with open_memory(store=store) as memory:
            columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
            with (
                Progress(*columns, console=console.get(), transient=True) as progress,
                partial.open("w", encoding="utf-8") as file,
            ):
                task = progress.add_task("exporting", total=None)
                async for line in memory.export(Access.local(tenant), user):
                    file.write(line + "\n")
                    written += 1
                    progress.update(task, description=f"exporting: {written} records")
        partial.replace(out)  # a crash never leaves a truncated file under the real name
        return written

    count = run(main())
    console.print(f"exported {count} records of user {user!r} to {out}", highlight=False)


def import_(
    file: Annotated[
        Path, typer.Argument(exists=True, dir_okay=False, help="A file written by `export`.")
    ],
    tenant: Tenant = "default",
    store: Store = None,
) -> None:
    """Read records written by `export` (validated first: a bad line writes nothing)."""
    from rich.progress import Progress

    lines = file.read_text(encoding="utf-8").splitlines()

    async def main() -> dict[str, int]:
        from sedimem.access import Access

        async with open_memory(store=store) as memory:
            with Progress(console=console.get(), transient=True) as progress:
                task = progress.add_task("importing", total=sum(1 for x in lines if x.strip()))
                return await memory.import_(
                    Access.local(tenant), lines, progress=lambda n: progress.advance(task, n)
                )

    counts = run(main())
    summary = ", ".join(f"{n} {kind}s" for kind, n in counts.items())
    console.print(f"imported {summary} into tenant {tenant!r}", highlight=False)


def forget(
    user: Annotated[str | None, typer.Option(help="Erase everything of this user.")] = None,
    session: Annotated[str | None, typer.Option(help="Erase this session's records.")] = None,
    before: Annotated[
        datetime | None, typer.Option(help="Only records older than this (ISO 8601, UTC).")
    ] = None,
    tenant: Tenant = "default",
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    working: Working = None,
    store: Store = None,
) -> None:
    """Erase a user's (or a session's) memories in every store, and print the receipt."""
    if user is None and session is None:
        raise typer.BadParameter("name a --user or a --session", param_hint="--user")
    what = " and ".join(
        f"{name} {value!r}" for name, value in (("user", user), ("session", session)) if value
    )
    if not yes:
        typer.confirm(f"Erase every memory of {what} in tenant {tenant!r}?", abort=True)
    cutoff = None
    if before is not None:
        if before.tzinfo is None:
            before = before.astimezone()  # a bare date/time means the local zone
        cutoff = before

    async def main() -> None:
        from sedimem.access import Access

        async with open_memory(working, store) as memory:
            receipt = await memory.forget(
                Access.local(tenant), user=user, session=session, before=cutoff
            )
        for kind, count in receipt.model_dump().items():
            console.print(f"{kind}: {count}", highlight=False)

    run(main())
