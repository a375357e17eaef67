"""The request body limit: larger bodies get 413 before anything acts on them.

A declared ``Content-Length`` over the limit is refused at once, without reading a byte. A
body without one (chunked) is counted as it streams in, and reading stops at the first byte
over the limit: the client cannot make the server buffer more than the limit either way.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sedimem.api.problems import Problem, problem_type, respond

__all__ = ["BodyLimit", "BodyTooLarge"]


class BodyTooLarge(HTTPException):
    """Raised from ``receive`` once the body passes the limit.

    An ``HTTPException`` on purpose: FastAPI's body reader re-raises those as they are
    (anything else becomes a 400), so the app's own handler answers with the 413 problem.
    """

    def __init__(self, limit: int) -> None:
        super().__init__(status_code=413, detail=f"the request body exceeds {limit} bytes")
        self.problem = Problem(
            type=problem_type("too-large"),
            title="Content too large",
            status=413,
            detail=self.detail,
            field="body",
            allowed=f"at most {limit} bytes",
        )


class BodyLimit:
    """ASGI middleware refusing request bodies over ``max_bytes``."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except BodyTooLarge:
            if started:  # too late for a status line; the connection just ends
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = respond(BodyTooLarge(self.max_bytes).problem, {"Connection": "close"})
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    value = Headers(scope=scope).get("content-length")
    try:
        return None if value is None else int(value)
    except ValueError:
        return None  # the server refuses a malformed length before we are called
