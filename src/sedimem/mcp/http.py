"""MCP over streamable HTTP at ``/mcp``, every request authenticated by an API key.

The host mounts :attr:`McpHttpApp.app` for paths ``/mcp`` and ``/mcp/...`` and enters
:meth:`McpHttpApp.lifespan` around serving. Each request must carry
``Authorization: Bearer <key>``; the key is checked with ``memory.keys.authenticate`` on
every request (a revoked key stops working at once, also inside an open session) and
decides the tenant and narrowing of the tool calls the request carries. Anything else gets
``401`` with an ``application/problem+json`` body and never reaches the MCP server.

Stateless by default. In the SDK's stateful mode every session lives in the memory of the
process that opened it (a load balancer then needs session affinity, and a restart drops
every session), while stateless mode serves each request on its own, so any number of
replicas can serve any client. Our tools need nothing a stateful session gives (no
server-to-client requests, no resumable streams: all state is in ``Memory``), and the
2026-07-28 protocol revision, which the SDK also serves on this endpoint, is stateless by
design. ``stateless=False`` is there for clients that insist on sessions; the SDK then binds
each session to the key that opened it (another key gets 404 for it).
"""

from __future__ import annotations

import logging
from contextlib import AbstractAsyncContextManager
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sedimem.errors import PermissionDenied, StoreError
from sedimem.mcp.access import request_key, request_scoped_key
from sedimem.mcp.server import MemoryServer, build_server
from sedimem.memory import Memory

__all__ = ["MCP_PATH", "McpHttpApp", "create_http_app"]

logger = logging.getLogger("sedimem.mcp")

MCP_PATH = "/mcp"
_PATHS = frozenset({MCP_PATH, MCP_PATH + "/"})
_PROBLEM = "application/problem+json"


class McpHttpApp:
    """The streamable HTTP endpoint: :attr:`app` (ASGI) and :meth:`lifespan`."""

    def __init__(
        self,
        memory: Memory,
        *,
        stateless: bool = True,
        json_response: bool = True,
        transport_security: TransportSecuritySettings | None = None,
    ) -> None:
        self.stateless = stateless
        self.server: MemoryServer = build_server(memory, request_scoped_key)
        # Builds the SDK's session manager (the Starlette app it returns is not used: our
        # ``app`` authenticates first). DNS-rebinding protection is off unless asked for:
        # a page in a browser cannot present the bearer key, and the endpoint serves no one
        # without it, so the Host check would only refuse legitimate hosts and proxies.
        self.server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            stateless_http=stateless,
            json_response=json_response,
            max_request_body_size=memory.settings.server.max_body_bytes,
            transport_security=transport_security
            or TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.app: ASGIApp = _Endpoint(memory, self.server.session_manager)
        """ASGI: ``/mcp`` (and ``/mcp/``) for authenticated requests, problem JSON otherwise.
        An object, not a method, so Starlette's ``Route`` mounts it as an ASGI app."""

    def lifespan(self) -> AbstractAsyncContextManager[None]:
        """Runs the SDK's session manager; enter it once, around serving."""
        return self.server.session_manager.run()


class _Endpoint:
    """Authenticates each request, then hands it to the SDK's session manager."""

    def __init__(self, memory: Memory, manager: StreamableHTTPSessionManager) -> None:
        self._memory = memory
        self._manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return  # the ASGI lifespan is the host's: it enters McpHttpApp.lifespan()
        if scope["path"] not in _PATHS:
            detail = f"the MCP endpoint is {MCP_PATH}"
            await _problem(404, "not-found", "Not found", detail)(scope, receive, send)
            return
        scheme, _, secret = (Headers(scope=scope).get("authorization") or "").partition(" ")
        secret = secret.strip()
        if scheme.lower() != "bearer" or not secret:
            detail = "an API key is required: send 'Authorization: Bearer <key>'"
            await _unauthenticated(detail, presented=False)(scope, receive, send)
            return
        try:
            key = await self._memory.keys.authenticate(secret)
        except PermissionDenied as exc:
            await _unauthenticated(str(exc), presented=True)(scope, receive, send)
            return
        except StoreError:
            logger.warning("MCP request refused: the key store failed", exc_info=True)
            detail = "the key store is unavailable; retry later"
            problem = _problem(503, "store-unavailable", "Store unavailable", detail)
            await problem(scope, receive, send)
            return
        # ``user`` lets the SDK bind a stateful session to the key that opened it.
        token = AccessToken(token=key.id, client_id=key.id, scopes=[], subject=key.tenant)
        reset = request_key.set(key)
        try:
            await self._manager.handle_request(
                {**scope, "user": AuthenticatedUser(token)}, receive, self._problems(scope, send)
            )
        finally:
            request_key.reset(reset)

    def _problems(self, scope: Scope, send: Send) -> Send:
        """``send`` with the SDK's plain-text 413 (a body over the limit) replaced by our
        problem JSON, as every other refusal is."""
        limit = self._memory.settings.server.max_body_bytes
        replaced = False

        async def nothing() -> Message:
            return {"type": "http.disconnect"}

        async def sending(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 413:
                replaced = True
                detail = f"the request body exceeds {limit} bytes"
                problem = _problem(
                    413,
                    "too-large",
                    "Content too large",
                    detail,
                    {"Connection": "close"},
                    field="body",
                    allowed=f"at most {limit} bytes",
                )
                await problem(scope, nothing, send)
                return
            if not replaced:  # the SDK's own text body is dropped
                await send(message)

        return sending


def create_http_app(memory: Memory, *, stateless: bool = True) -> McpHttpApp:
    """The MCP endpoint for ``memory`` (stateless unless ``stateless=False``)."""
    return McpHttpApp(memory, stateless=stateless)


def _problem(
    status: int,
    slug: str,
    title: str,
    detail: str,
    headers: dict[str, str] | None = None,
    **extra: str,
) -> JSONResponse:
    """RFC 9457 problem JSON, typed as the REST API types its problems (``extra``: the
    ``field`` and ``allowed`` of a refused input)."""
    body: dict[str, Any] = {"type": f"urn:sedimem:problem:{slug}", "title": title}
    body.update(status=status, detail=detail, **extra)
    return JSONResponse(body, status_code=status, headers=headers, media_type=_PROBLEM)


def _unauthenticated(detail: str, *, presented: bool) -> JSONResponse:
    challenge = 'Bearer realm="sedimem"'
    if presented:
        challenge += ', error="invalid_token"'
    return _problem(
        401, "unauthenticated", "Unauthenticated", detail, {"WWW-Authenticate": challenge}
    )
