"""The process host: opens ``Memory``, puts REST and MCP on one port, and serves them.

The interfaces never import each other; this module is where they meet. It opens the
stores once, in the event loop that serves, and hands the same ``Memory`` to the REST app
(``sedimem.api``) and the MCP server (``sedimem.mcp``).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount, Route
from starlette.types import ASGIApp

from sedimem.config import Settings
from sedimem.errors import ConfigurationError
from sedimem.keys import ApiKey, IssuedKey
from sedimem.memory import Memory

__all__ = ["Announcement", "build_app", "is_loopback", "local_key", "run_mcp_stdio", "serve"]

#: The tenant of the key ``serve`` creates on first start, and of ``sedimem mcp``.
DEFAULT_TENANT = "default"


@dataclass(frozen=True)
class Announcement:
    """What ``serve`` tells the operator once it listens."""

    base_url: str
    first_key: IssuedKey | None  # created on this start (shown once), else None
    keys: int  # live keys before this start
    stop: Callable[[], None]  # ask the server to shut down gracefully

    @property
    def docs_url(self) -> str:
        return f"{self.base_url}/docs"

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"


def build_app(memory: Memory, settings: Settings) -> Starlette:
    """REST under ``/`` and MCP (streamable HTTP) at ``/mcp``, one lifespan for both."""
    from sedimem.api import create_app
    from sedimem.api.handlers import http_error
    from sedimem.mcp import create_http_app

    rest = create_app(memory, settings)
    mcp = create_http_app(memory)
    interval = settings.server.consolidation_interval_seconds

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with mcp.lifespan():
            tenants = sorted({key.tenant for key in await memory.keys.list()})
            worker = None
            if interval > 0 and tenants:
                worker = memory.consolidation_worker(tenants, interval)
                worker.start()
            try:
                yield
            finally:
                if worker is not None:
                    await worker.stop()

    mcp_app: ASGIApp = mcp.app
    return Starlette(
        routes=[
            # Route (not Mount) keeps the path as is: the MCP app answers at "/mcp".
            Route("/mcp", mcp_app),
            Route("/mcp/{rest:path}", mcp_app),
            Mount("/", rest),
        ],
        # a path the mount cannot match (its pattern stops at a newline: "/x%0A") is
        # answered here: problem+json too, never Starlette's text/plain
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def serve(
    settings: Settings, *, announce: Callable[[Announcement], None], host: str, port: int
) -> None:
    """Open the stores, create the first key if needed, and serve until interrupted."""
    import uvicorn

    async with await Memory.open(settings=settings) as memory:
        live = await memory.keys.list()
        first = None
        if not live and is_loopback(host):
            # A fresh embedded install: a key for the default tenant, so the operator can
            # start at once; without any key nothing is served (every /v1 route needs one).
            first = await memory.keys.create(DEFAULT_TENANT, label="created by first serve")
        sock = _bind(host, port)
        bound_port = sock.getsockname()[1]
        shown_host = f"[{host}]" if ":" in host else host
        config = uvicorn.Config(
            build_app(memory, settings), lifespan="on", log_level="info", access_log=False
        )
        server = uvicorn.Server(config)

        def stop() -> None:
            server.should_exit = True

        announce(Announcement(f"http://{shown_host}:{bound_port}", first, len(live), stop))
        try:
            await server.serve(sockets=[sock])
        finally:
            sock.close()


def _bind(host: str, port: int) -> socket.socket:
    # Bind before announcing, so a busy port fails loudly and port 0 shows the real port.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP, not 0: asyncio sets TCP_NODELAY only on sockets that say they are
    # TCP. Without it, Nagle holds a response's body (written after its headers) until the
    # client acknowledges the headers, and a delayed ACK makes that ~40 ms per response.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigurationError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def local_key(tenant: str = DEFAULT_TENANT) -> ApiKey:
    """The credential of a local stdio session: the OS user who can open the store file."""
    return ApiKey(id="local", tenant=tenant, created_at=datetime.now(UTC))


async def run_mcp_stdio(settings: Settings, *, api_key: str | None, tenant: str) -> None:
    """MCP over stdio, scoped by ``api_key`` when given, else by ``tenant``."""
    from sedimem.mcp import run_stdio

    async with await Memory.open(settings=settings) as memory:
        key = await memory.keys.authenticate(api_key) if api_key else local_key(tenant)
        await run_stdio(memory, key)
