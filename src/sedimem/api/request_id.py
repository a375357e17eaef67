"""The id of the request being served: the caller's ``X-Request-ID`` if it is safe, else new.

An incoming id is kept when it is 1 to :data:`MAX_REQUEST_ID_CHARS` characters of letters,
digits and ``-_.:`` (a UUID, a trace id, most proxies' ids); anything else is replaced by
a fresh UUIDv7, so a client cannot put arbitrary text into the logs. The host's access log
sets :data:`current_request_id` around each request; problem bodies carry it.
"""

from __future__ import annotations

import re
from contextvars import ContextVar

from sedimem.ids import new_id

__all__ = ["HEADER", "MAX_REQUEST_ID_CHARS", "accept_request_id", "current_request_id"]

HEADER = "X-Request-ID"
MAX_REQUEST_ID_CHARS = 128

_SAFE = re.compile(rf"[A-Za-z0-9._:-]{{1,{MAX_REQUEST_ID_CHARS}}}")

#: The id of the request this task serves (None outside a request).
current_request_id: ContextVar[str | None] = ContextVar("sedimem_request_id", default=None)


def accept_request_id(sent: str | None) -> str:
    """``sent`` when it is a safe id, else a new one."""
    if sent is not None and _SAFE.fullmatch(sent):
        return sent
    return new_id()
