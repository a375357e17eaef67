"""Who is calling: the API key of the current tool call, and the scopes it may address.

Over stdio the key is fixed for the process. Over HTTP the endpoint authenticates every
request and sets :data:`request_key` around it; the SDK runs a tool call in a copy of the
context of the request that carried it (also for a stateful session's later requests), so a
tool always sees the key of its own request.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from sedimem.errors import PermissionDenied
from sedimem.keys import ApiKey

__all__ = ["KeySource", "fixed_key", "request_key", "request_scoped_key"]

KeySource = Callable[[], ApiKey]
"""Returns the key of the tool call being served (raises ``PermissionDenied`` if none)."""

request_key: ContextVar[ApiKey | None] = ContextVar("sedimem_mcp_request_key", default=None)


def fixed_key(key: ApiKey) -> KeySource:
    """One key for every call (stdio: the process speaks for one caller)."""

    def source() -> ApiKey:
        return key

    return source


def request_scoped_key() -> ApiKey:
    """The key the HTTP endpoint authenticated for the current request."""
    key = request_key.get()
    if key is None:
        raise PermissionDenied("no authenticated API key for this call")
    return key
