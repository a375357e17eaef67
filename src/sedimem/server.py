"""The process host: opens ``Memory``, puts REST and MCP on one port, and serves them.

The interfaces never import each other; this module is where they meet. It opens the
stores once, in the event loop that serves, and hands the same ``Memory`` to the REST app
(``sedimem.api``) and the MCP server (``sedimem.mcp``).

With several worker processes (``serve --workers N``), the parent opens the stores only to
create the first key, binds the port, and leaves serving to uvicorn's supervisor: each
worker builds its app with :func:`worker_app` (settings from the environment) and opens its
own ``Memory`` in the app's lifespan. The workers share the listening socket and the stores.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from sedimem import observe
from sedimem.config import Settings
from sedimem.errors import ConfigurationError
from sedimem.keys import ApiKey, IssuedKey
from sedimem.memory import Memory

__all__ = [
    "Announcement",
    "build_app",
    "check_admin_key",
    "is_loopback",
    "local_key",
    "run_mcp_stdio",
    "serve",
    "serve_workers",
    "worker_app",
]

#: The tenant of the key ``serve`` creates on first start, and of ``sedimem mcp``.
DEFAULT_TENANT = "default"
#: An admin key shorter than this is refused by ``serve`` (unless allowed by a setting).
MIN_ADMIN_KEY_CHARS = 16
#: Admin keys that appeared as examples in sedimem's documentation: refused the same way.
EXAMPLE_ADMIN_KEYS = frozenset({"change-me", "changeme", "admin", "secret", "password"})


def check_admin_key(settings: Settings) -> None:
    """Refuse to serve with a guessable admin key (too short, or a documented example),
    unless ``server.allow_weak_admin_key`` says so. No admin key at all is fine: the
    admin routes then refuse everyone."""
    if settings.admin_key is None or settings.server.allow_weak_admin_key:
        return
    key = settings.admin_key.get_secret_value()
    if key.strip().lower() in EXAMPLE_ADMIN_KEYS:
        problem = "is an example from the documentation"
    elif len(key) < MIN_ADMIN_KEY_CHARS:
        problem = f"is {len(key)} characters long; at least {MIN_ADMIN_KEY_CHARS} are needed"
    else:
        return
    raise ConfigurationError(
        f"SEDIMEM_ADMIN_KEY {problem}: generate one, e.g. `openssl rand -hex 32` (or set "
        "SEDIMEM_SERVER__ALLOW_WEAK_ADMIN_KEY=true for a throwaway local setup)"
    )


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
    from sedimem.api.edge import edge_lifespan, edge_middleware
    from sedimem.api.handlers import http_error
    from sedimem.mcp import create_http_app

    rest = create_app(memory, settings)
    mcp = create_http_app(memory)
    interval = settings.server.consolidation_interval_seconds

    # the REST app's /metrics times the work of MCP calls and background consolidation too
    sink = rest.state.sedimem.metrics.sink

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        # tasks started here (MCP's sessions, the consolidation worker) keep this context
        token = observe.attach(sink)
        try:
            async with mcp.lifespan(), edge_lifespan(settings.server):
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
        finally:
            observe.detach(token)

    mcp_app: ASGIApp = _Observed(mcp.app, sink)
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
        # request ids, the access log and per-key rate limits: REST and MCP alike
        middleware=edge_middleware(settings.server),
        lifespan=lifespan,
    )


class _Observed:
    """``app`` (MCP) with each HTTP request a request span, its work timed by ``sink``.

    A class, not a function: Starlette's ``Route`` calls a function endpoint with a request."""

    def __init__(self, app: ASGIApp, sink: observe.Sink) -> None:
        self._app = app
        self._sink = sink

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        token = observe.attach(self._sink)
        method = str(scope.get("method", ""))
        attributes: dict[str, observe.Value] = {"http.request.method": method}
        attributes["http.route"] = "/mcp"
        try:
            with observe.span("request", f"{method} /mcp", attributes):
                await self._app(scope, receive, send)
        finally:
            observe.detach(token)


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
    """Open the stores, create the first key if needed, and serve until interrupted;
    export traces meanwhile when an OTLP endpoint is configured."""
    from sedimem.telemetry import start_tracing

    check_admin_key(settings)
    tracing = start_tracing(settings)  # None unless an OTLP endpoint is configured
    try:
        await _serve(settings, announce=announce, host=host, port=port)
    finally:
        if tracing is not None:
            tracing.stop()  # exports the spans still buffered


async def _serve(
    settings: Settings, *, announce: Callable[[Announcement], None], host: str, port: int
) -> None:
    import uvicorn

    async with await Memory.open(settings=settings) as memory:
        first, live = await _first_key(memory, host)
        sock = _bind(host, port)
        bound_port = sock.getsockname()[1]
        shown_host = f"[{host}]" if ":" in host else host
        config = uvicorn.Config(
            build_app(memory, settings),
            lifespan="on",
            log_level="info",
            access_log=False,
            timeout_keep_alive=settings.server.keep_alive_seconds,
        )
        server = uvicorn.Server(config)

        def stop() -> None:
            server.should_exit = True

        announce(Announcement(f"http://{shown_host}:{bound_port}", first, live, stop))
        try:
            await server.serve(sockets=[sock])
        finally:
            sock.close()


async def _first_key(memory: Memory, host: str) -> tuple[IssuedKey | None, int]:
    """The key created on a fresh loopback install (else None), and the live keys before."""
    live = len(await memory.keys.list())
    if live or not is_loopback(host):
        return None, live
    # A fresh embedded install: a key for the default tenant, so the operator can start at
    # once; without any key nothing is served (every /v1 route needs one).
    return await memory.keys.create(DEFAULT_TENANT, label="created by first serve"), live


async def _prepare(settings: Settings, host: str) -> tuple[IssuedKey | None, int]:
    # Once, in the parent, before any worker starts: the stores' migrations and the first
    # key happen here, never raced by N workers.
    async with await Memory.open(settings=settings) as memory:
        return await _first_key(memory, host)


def serve_workers(
    settings: Settings,
    *,
    announce: Callable[[Announcement], None],
    host: str,
    port: int,
    workers: int,
) -> None:
    """Serve with ``workers`` processes on one port until interrupted (SIGINT / SIGTERM).

    Blocks; call it outside an event loop, from the main thread (the supervisor handles
    the signals). Each worker builds its app with :func:`worker_app`.
    """
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    if workers < 2:
        raise ConfigurationError(f"--workers {workers}: serve_workers needs 2 or more")
    check_admin_key(settings)
    first, live = asyncio.run(_prepare(settings, host))
    sock = _bind(host, port)
    try:
        bound_port = sock.getsockname()[1]
        shown_host = f"[{host}]" if ":" in host else host
        config = uvicorn.Config(
            f"{__name__}:worker_app",
            factory=True,
            workers=workers,
            lifespan="on",
            log_level="info",
            access_log=False,
            timeout_keep_alive=settings.server.keep_alive_seconds,
        )
        supervisor = Multiprocess(config, sockets=[sock])
        announce(
            Announcement(
                f"http://{shown_host}:{bound_port}", first, live, supervisor.should_exit.set
            )
        )
        supervisor.run()
    finally:
        sock.close()


def worker_app() -> ASGIApp:
    """The app of one worker process of ``serve --workers N`` (uvicorn's app factory).

    Settings come from the environment (``SEDIMEM_*``, as the parent read them); the
    stores open in the app's lifespan, in the worker's own event loop.
    """
    from sedimem.config import load_settings

    return _WorkerApp(load_settings())


class _WorkerApp:
    """Opens ``Memory`` at lifespan startup, then serves :func:`build_app` around it."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._app: Starlette | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if self._app is None:  # uvicorn serves only after the startup completed
            raise ConfigurationError("the worker's stores are not open")
        await self._app(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        await receive()  # lifespan.startup
        async with AsyncExitStack() as stack:
            try:
                from sedimem.telemetry import start_tracing

                tracing = start_tracing(self._settings)  # each worker exports its own spans
                if tracing is not None:
                    stack.callback(tracing.stop)
                memory = await stack.enter_async_context(await Memory.open(settings=self._settings))
                app = build_app(memory, self._settings)
                await stack.enter_async_context(app.router.lifespan_context(app))
            except Exception as exc:
                await send({"type": "lifespan.startup.failed", "message": str(exc)})
                return
            self._app = app
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
        await send({"type": "lifespan.shutdown.complete"})


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
