"""The access log: one JSON line per HTTP request, and the request's id on its response.

Each line is a JSON object with ``ts`` (UTC, ISO 8601), ``request_id``, ``method``,
``route`` (the route template, ``/v1/episodes/{episode_id}``; ``unmatched`` for a path no
route serves), ``status``, ``duration_ms``, ``tenant`` (a hash of the caller's tenant),
``key_id`` (the id of the caller's API key, never its secret) and ``client`` (the peer's
address). The raw path, the query string, headers and bodies are never written.

Every response carries ``X-Request-ID``: the caller's own when it is safe
(:mod:`sedimem.api.request_id`), else a new one; problem bodies carry it as ``request_id``.

Lines go to the ``sedimem.access`` logger; ``sedimem serve`` sends them to stderr (or
stdout) as they are, one object per line (:func:`log_to`).
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Literal

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sedimem.api.request_id import HEADER, accept_request_id, current_request_id
from sedimem.keys import ApiKey, recording_callers

__all__ = ["LOGGER_NAME", "AccessLog", "log_to", "route_of", "tenant_digest"]

LOGGER_NAME = "sedimem.access"

logger = logging.getLogger(LOGGER_NAME)


def tenant_digest(tenant: str) -> str:
    """A short stable hash of ``tenant``: lines of one tenant can be told apart and counted
    without the log naming it (a pseudonym: a known name can be hashed and compared)."""
    return hashlib.blake2b(tenant.encode(), digest_size=8).hexdigest()


def route_of(scope: Scope, status: int) -> str:
    """The route template that served the request, never the raw path."""
    route = scope.get("route")
    path_format = getattr(route, "path_format", None)
    if path_format:
        return str(path_format)
    path = str(scope.get("path", ""))
    # routes outside the REST app's router (MCP, the OpenAPI document, the docs) carry no
    # route in the scope: they are a few fixed paths; anything else is not named
    if path == "/mcp" or path.startswith("/mcp/"):
        return "/mcp"
    return path if status < 400 else "unmatched"


class AccessLog:
    """ASGI middleware: a request id for every HTTP request, and a log line once answered."""

    def __init__(self, app: ASGIApp, *, enabled: bool = True) -> None:
        self.app = app
        self.enabled = enabled

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = accept_request_id(Headers(scope=scope).get(HEADER))
        started = time.perf_counter()
        status = 500  # what the client sees when the app raises before answering

        async def stamped(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                MutableHeaders(scope=message)[HEADER] = request_id
            await send(message)

        token = current_request_id.set(request_id)
        try:
            with recording_callers() as callers:
                try:
                    await self.app(scope, receive, stamped)
                finally:
                    if self.enabled:
                        elapsed = time.perf_counter() - started
                        self._log(scope, request_id, status, elapsed, callers)
        finally:
            current_request_id.reset(token)

    def _log(
        self, scope: Scope, request_id: str, status: int, seconds: float, callers: list[ApiKey]
    ) -> None:
        caller = callers[-1] if callers else None
        client = scope.get("client")
        entry: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "request_id": request_id,
            "method": str(scope.get("method", "")),
            "route": route_of(scope, status),
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "tenant": tenant_digest(caller.tenant) if caller else None,
            "key_id": caller.id if caller else None,
            "client": str(client[0]) if client else None,
        }
        logger.info(json.dumps(entry, separators=(",", ":")))


@contextmanager
def log_to(target: Literal["stderr", "stdout", "off"]) -> Iterator[None]:
    """Within, access log lines go to ``target`` as they are (``off``: nowhere)."""
    if target == "off":
        yield
        return
    handler = logging.StreamHandler(sys.stderr if target == "stderr" else sys.stdout)
    handler.setFormatter(logging.Formatter("%(message)s"))
    level, propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False  # written once, here, whatever the root logger does
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate
