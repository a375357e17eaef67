"""The access log: one JSON line per HTTP request, and the request's id on its response.

Each line is a JSON object with ``ts`` (UTC, ISO 8601), ``request_id``, ``method``,
``route`` (the route template, ``/v1/episodes/{episode_id}``; ``unmatched`` for a path no
route serves), ``status``, ``duration_ms``, ``tenant`` (a hash of the caller's tenant),
``key_id`` (the id of the caller's API key, never its secret) and ``client`` (the peer's
address). The raw path, the query string, headers and bodies are never written.

Every response carries ``X-Request-ID``: the caller's own when it is safe
(:mod:`sedimem.api.request_id`), else a new one; problem bodies carry it as ``request_id``.

Lines go to the ``sedimem.access`` logger. While the server's app lives (its lifespan, in
every server process), they are written as they are, one object per line, to stderr or
stdout (:func:`log_to`); outside it (an app driven in-process by a test) they propagate to
the root logger like any other record.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sys
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Literal

from fastapi import FastAPI
from starlette.datastructures import Headers, MutableHeaders
from starlette.routing import BaseRoute, Match, Mount, compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sedimem import observe
from sedimem.api.ratelimit import credential
from sedimem.api.request_id import HEADER, accept_request_id, current_request_id
from sedimem.keys import ApiKey, recording_callers

__all__ = ["LOGGER_NAME", "AccessLog", "Target", "log_to", "route_of"]

LOGGER_NAME = "sedimem.access"

logger = logging.getLogger(LOGGER_NAME)

#: What a line says of its caller: the key's id and the digest of its tenant.
Caller = tuple[str, str]


def route_of(scope: Scope, status: int) -> str:
    """The route template that served the request, never the raw path."""
    path_format = getattr(scope.get("route"), "path_format", None)
    if path_format:
        return str(path_format)
    # Refused before routing (429), or served outside the REST router (MCP): the app's
    # routes say which template the path matches
    matched = _match(getattr(scope.get("app"), "routes", ()), scope)
    if matched is not None:
        return matched
    # nothing matches: a few fixed paths of Starlette's (the docs), else not named
    return str(scope.get("path", "")) if status < 400 else "unmatched"


def _match(routes: Iterable[BaseRoute], scope: Scope) -> str | None:
    for route in routes:
        match, child = route.matches(scope)
        if match is Match.NONE:
            continue
        if isinstance(route, Mount):
            inner = {**scope, **child}
            found = _match(route.routes, inner) or _documented(route.app, inner)
            if found is not None:
                return found
            continue
        path_format = getattr(child.get("route", route), "path_format", None)
        if match is Match.FULL and path_format:
            return str(path_format)
    return None


def _documented(app: ASGIApp, scope: Scope) -> str | None:
    """The path of ``app``'s OpenAPI document that the request matches (FastAPI keeps the
    routes of included routers to itself; the document lists them all)."""
    if not isinstance(app, FastAPI):
        return None
    method = str(scope.get("method", "")).lower()
    path, root = str(scope.get("path", "")), str(scope.get("root_path", ""))
    path = path[len(root) :] if root and path.startswith(root) else path
    for template, operations in app.openapi().get("paths", {}).items():
        if method in operations and _pattern(template).fullmatch(path):
            return str(template)
    return None


@functools.lru_cache(maxsize=1024)
def _pattern(template: str) -> re.Pattern[str]:
    return compile_path(template)[0]


class AccessLog:
    """ASGI middleware: a request id for every HTTP request, and a log line once answered.

    The caller is the key the request authenticated with. A request refused before its key
    was looked up (429) is attributed by its credential to the key that credential
    authenticated as before: up to ``max_keys`` of those are remembered (as hashes).
    """

    def __init__(self, app: ASGIApp, *, enabled: bool = True, max_keys: int = 10_000) -> None:
        self.app = app
        self.enabled = enabled
        self.max_keys = max_keys
        self._known: OrderedDict[bytes, Caller] = OrderedDict()

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
                        caller = self._caller(scope, callers)
                        elapsed = time.perf_counter() - started
                        self._log(scope, request_id, status, elapsed, caller)
        finally:
            current_request_id.reset(token)

    def _caller(self, scope: Scope, callers: list[ApiKey]) -> Caller | None:
        """The (key id, tenant digest) of the caller: only those are kept, nothing else of
        the key (its narrowing to a user, say, which an erasure must not leave behind)."""
        caller = (callers[-1].id, observe.tenant_digest(callers[-1].tenant)) if callers else None
        identity = credential(scope)
        if identity is None:
            return caller
        if caller is not None:
            self._known[identity] = caller
            if len(self._known) > self.max_keys:
                self._known.popitem(last=False)
        elif identity in self._known:
            self._known.move_to_end(identity)
        return self._known.get(identity)

    def _log(
        self, scope: Scope, request_id: str, status: int, seconds: float, caller: Caller | None
    ) -> None:
        client = scope.get("client")
        key_id, tenant = caller or (None, None)
        entry: dict[str, Any] = {
            "ts": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "request_id": request_id,
            "method": str(scope.get("method", "")),
            "route": route_of(scope, status),
            "status": status,
            "duration_ms": round(seconds * 1000, 3),
            "tenant": tenant,
            "key_id": key_id,
            "client": str(client[0]) if client else None,
        }
        logger.info(json.dumps(entry, separators=(",", ":")))


Target = Literal["stderr", "stdout", "off"]


@contextmanager
def log_to(target: Target) -> Iterator[None]:
    """Within, access log lines go to ``target`` as they are (``off``: nowhere).

    Nested and concurrent uses (several apps in one process) share one handler per target,
    so a line is written once; the logger is as before when the last use ends.
    """
    if target == "off":
        yield
        return
    _sinks.acquire(target)
    try:
        yield
    finally:
        _sinks.release(target)


class _Sinks:
    """The handlers of :func:`log_to`, counted by their users."""

    def __init__(self) -> None:
        self._handlers: dict[str, tuple[logging.Handler, int]] = {}
        self._saved = (logger.level, logger.propagate)

    def acquire(self, target: str) -> None:
        if not self._handlers:
            self._saved = (logger.level, logger.propagate)
            logger.setLevel(logging.INFO)
            logger.propagate = False  # written once, here, whatever the root logger does
        handler, users = self._handlers.get(target, (None, 0))
        if handler is None:
            handler = logging.StreamHandler(sys.stderr if target == "stderr" else sys.stdout)
            handler.setFormatter(logging.Formatter("%(message)s"))
            logger.addHandler(handler)
        self._handlers[target] = (handler, users + 1)

    def release(self, target: str) -> None:
        handler, users = self._handlers[target]
        if users > 1:
            self._handlers[target] = (handler, users - 1)
            return
        del self._handlers[target]
        logger.removeHandler(handler)
        if not self._handlers:
            logger.setLevel(self._saved[0])
            logger.propagate = self._saved[1]


_sinks = _Sinks()
