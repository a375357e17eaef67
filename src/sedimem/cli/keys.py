"""``sedimem keys create|list|revoke``: API keys, administered on the store directly."""

from typing import Annotated

import typer

from sedimem.cli.common import Store, console, open_memory, run

__all__ = ["keys_app"]

keys_app = typer.Typer(
    help="Create, list and revoke API keys.", no_args_is_help=True, rich_markup_mode=None
)


@keys_app.command("create")
def create(
    tenant: Annotated[str, typer.Option(help="The tenant the key acts for.")],
    project: Annotated[str | None, typer.Option(help="Restrict the key to a project.")] = None,
    user: Annotated[str | None, typer.Option(help="Restrict the key to a user.")] = None,
    agent: Annotated[str | None, typer.Option(help="Restrict the key to an agent.")] = None,
    label: Annotated[str | None, typer.Option(help="A note to recognise the key by.")] = None,
    read_only: Annotated[
        bool, typer.Option("--read-only", help="A key that reads but never writes or erases.")
    ] = False,
    store: Store = None,
) -> None:
    """Create a key and print it once (only its hash is stored)."""

    async def main() -> None:
        async with open_memory(store=store) as memory:
            issued = await memory.keys.create(
                tenant,
                project=project,
                user=user,
                agent=agent,
                label=label,
                read_only=read_only,
            )
        console.print(f"key id: {issued.key.id}", highlight=False)
        console.print(issued.secret, highlight=False, soft_wrap=True)

    run(main())


@keys_app.command("list")
def list_keys(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's keys.")] = None,
    revoked: Annotated[bool, typer.Option(help="Include revoked keys.")] = False,
    store: Store = None,
) -> None:
    """List keys (never their secrets)."""

    async def main() -> None:
        async with open_memory(store=store) as memory:
            keys = await memory.keys.list(tenant, include_revoked=revoked)
        # one line a key: ids stay whole and greppable in any terminal width
        for key in keys:
            narrowing = [
                f"{name}={value}"
                for name, value in (
                    ("project", key.project),
                    ("user", key.user),
                    ("agent", key.agent),
                )
                if value is not None
            ]
            parts = [key.id, f"tenant={key.tenant}", *narrowing]
            parts.append(f"created={key.created_at.isoformat(timespec='seconds')}")
            if key.revoked_at:
                parts.append(f"revoked={key.revoked_at.isoformat(timespec='seconds')}")
            if key.label:
                parts.append(f"label={key.label!r}")
            if key.read_only:
                parts.append("read-only")
            console.print("  ".join(parts), highlight=False, soft_wrap=True)
        if not keys:
            console.print("no keys", highlight=False)

    run(main())


@keys_app.command("revoke")
def revoke(
    key_id: Annotated[str, typer.Argument(help="The key's id (see `keys list`).")],
    store: Store = None,
) -> None:
    """Revoke a key: requests with it are refused from now on."""

    async def main() -> None:
        async with open_memory(store=store) as memory:
            key = await memory.keys.revoke(key_id)
        console.print(f"revoked {key.id} (tenant {key.tenant})", highlight=False)

    run(main())
