"""What every request and response is on the wire, whatever route it reaches.

- :class:`ValidText`: a path or query string whose percent-escapes do not decode as UTF-8
  (``/v1/sessions/%FF/...``, or a lone surrogate written as ``%ED%A0%80``) is refused
  with 422 before any route sees it. Decoded leniently, ``%FF`` and ``%FE`` would both
  become U+FFFD and name the same session: two keys would collide.
- :class:`NoSniff`: every response says ``X-Content-Type-Options: nosniff``, so a browser
  never runs a JSON answer (which may echo what a user stored) as HTML or script.
"""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sedimem.api.problems import Problem, problem_type, respond

__all__ = ["NoSniff", "ValidText", "invalid_part"]

_NOSNIFF = (b"x-content-type-options", b"nosniff")


def _is_utf8(raw: bytes) -> bool:
    try:
        unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def invalid_part(scope: Scope) -> str | None:
    """``"path"`` or ``"query"`` when that part of the request is not UTF-8, else None."""
    raw = scope.get("raw_path")
    # some servers keep the query string in raw_path: only the part before it is the path
    if isinstance(raw, bytes) and not _is_utf8(raw.partition(b"?")[0]):
        return "path"
    query = scope.get("query_string", b"")
    if isinstance(query, bytes) and query and not _is_utf8(query.replace(b"+", b" ")):
        return "query"
    return None


class ValidText:
    """ASGI middleware refusing a path or query string that is not UTF-8 (422)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        part = invalid_part(scope) if scope["type"] == "http" else None
        if part is None:
            await self.app(scope, receive, send)
            return
        problem = Problem(
            type=problem_type("validation"),
            title="Invalid request",
            status=422,
            detail=f"{part}: its percent-escapes do not decode as UTF-8",
            field=part,
            allowed="percent-encoded UTF-8 (no lone surrogates)",
        )
        await respond(problem)(scope, receive, send)


class NoSniff:
    """ASGI middleware adding ``X-Content-Type-Options: nosniff`` to every response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def marked(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if not any(name.lower() == _NOSNIFF[0] for name, _ in headers):
                    headers.append(_NOSNIFF)
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, marked)
