"""``sedimem serve`` (REST + MCP over HTTP) and ``sedimem mcp`` (MCP over stdio)."""

import os
from types import ModuleType
from typing import TYPE_CHECKING, Annotated

import typer

from sedimem.cli.common import console, err_console, load_settings, run
from sedimem.errors import SedimemError

if TYPE_CHECKING:
    from sedimem.server import Announcement

__all__ = ["mcp", "serve", "try_it"]


def serve(
    host: Annotated[str | None, typer.Option(help="Address to listen on [127.0.0.1].")] = None,
    port: Annotated[
        int | None, typer.Option(min=0, max=65535, help="Port (0: any free port) [8077].")
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Worker processes sharing the port, each with its own connections to the "
            "stores [1].",
        ),
    ] = None,
) -> None:
    """Serve the REST API (/v1, docs at /docs), the web inspector (/ui) and MCP (/mcp) on
    one port.

    Stores come from SEDIMEM_* (default: one SQLite file under SEDIMEM_HOME); the admin
    key (POST /v1/keys) from SEDIMEM_ADMIN_KEY. On first start on a loopback address, a key
    for tenant "default" is created and printed once (before the workers start).
    """
    settings = load_settings()
    server = _server_module()
    host = host or settings.server.host
    port = settings.server.port if port is None else port
    workers = workers or settings.server.workers
    if workers == 1:
        run(server.serve(settings, announce=_announce, host=host, port=port))
        return
    try:
        server.serve_workers(settings, announce=_announce, host=host, port=port, workers=workers)
    except SedimemError as exc:
        err_console.print(f"[red]error:[/] {exc}", highlight=False)
        raise typer.Exit(1) from exc


def _announce(what: "Announcement") -> None:
    console.print(f"[bold]sedimem[/] serving on {what.base_url}", highlight=False)
    console.print(f"  REST API docs: {what.docs_url}", highlight=False)
    console.print(f"  OpenAPI:       {what.base_url}/openapi.json", highlight=False)
    console.print(f"  Inspector:     {what.base_url}/ui", highlight=False)
    console.print(
        f"  MCP endpoint:  {what.mcp_url}  (streamable HTTP, Bearer key)", highlight=False
    )
    if what.first_key is not None:
        secret = what.first_key.secret
        console.print(
            f"\nCreated an API key for tenant [bold]{what.first_key.key.tenant}[/] "
            "(shown once, stored hashed):",
            highlight=False,
        )
        console.print(f"  {secret}\n", highlight=False, soft_wrap=True)
        console.print("Try it: tell it something about a user, then ask:", highlight=False)
        for command in try_it(what.base_url, secret):
            console.print(f"  {command}", highlight=False, soft_wrap=True)
    elif what.keys == 0:
        console.print(
            "\n[yellow]No API key exists:[/] every /v1 route will refuse. Create one with "
            "`sedimem keys create --tenant NAME`.",
            highlight=False,
        )


#: What the banner's example files for a user, and asks back.
_TRY_TURN = '{"role": "user", "name": "Ana", "content": "I live in Lisbon and I love trains."}'
_TRY_MESSAGES = '{"user": "ana", "session": "hello", "messages": [' + _TRY_TURN + "]}"
_TRY_RECALL = '{"user": "ana", "query": "Where does Ana live?", "k": 3}'


def try_it(base_url: str, secret: str) -> list[str]:
    """The banner's example, as shell commands that work as printed: file a chat turn for
    the user ``ana``, then recall what was learned about her (a fact and the turn)."""
    headers = f"-H 'Authorization: Bearer {secret}' -H 'Content-Type: application/json'"
    return [
        f"curl -s -X POST {base_url}/v1/messages {headers} -d '{_TRY_MESSAGES}'",
        f"curl -s -X POST {base_url}/v1/recall {headers} -d '{_TRY_RECALL}'",
    ]


def mcp(
    tenant: Annotated[
        str, typer.Option(help="Tenant of this local session, when SEDIMEM_API_KEY is unset.")
    ] = "default",
) -> None:
    """Serve MCP over stdio (for an MCP host such as Claude Desktop or an IDE).

    With SEDIMEM_API_KEY set, the key decides the tenant and narrowing; otherwise the
    session acts for --tenant on the local store.
    """
    settings = load_settings()
    api_key = os.environ.get("SEDIMEM_API_KEY") or None
    run(_server_module().run_mcp_stdio(settings, api_key=api_key, tenant=tenant))


def _server_module() -> ModuleType:
    """The server, imported on use: its dependencies are the ``server`` extra, which
    ``pip install sedimem`` alone does not bring (the other commands work without it)."""
    try:
        import sedimem.server
    except ImportError as exc:
        err_console.print(
            f"[red]error:[/] this command needs the server extra ({exc.name} is not"
            " installed): pip install 'sedimem[server]'",
            highlight=False,
        )
        raise typer.Exit(1) from exc
    return sedimem.server
