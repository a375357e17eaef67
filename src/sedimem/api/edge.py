"""What the server puts in front of REST and MCP alike: request ids and the access log,
then the per-key rate limit. A list for ``Starlette(middleware=...)``, outermost first."""

from __future__ import annotations

from starlette.middleware import Middleware

from sedimem.api.access_log import AccessLog
from sedimem.api.ratelimit import RateLimit, RateLimiter
from sedimem.config import ServerSettings

__all__ = ["edge_middleware"]


def edge_middleware(settings: ServerSettings) -> list[Middleware]:
    """The access log (and request ids) outermost, so it sees the 429s too."""
    stack = [Middleware(AccessLog, to=settings.access_log)]
    if settings.rate_limit_per_second > 0:
        limiter = RateLimiter(
            settings.rate_limit_per_second,
            settings.rate_limit_burst,
            max_keys=settings.rate_limit_keys,
        )
        stack.append(Middleware(RateLimit, limiter=limiter))
    return stack
