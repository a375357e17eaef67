"""What the server puts in front of REST and MCP alike: request ids and the access log,
``nosniff`` and UTF-8 paths, then the throttle of failed authentication and the per-key
rate limit (:func:`edge_middleware`, for ``Starlette(middleware=...)``), and where the
access log goes while the app lives (:func:`edge_lifespan`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.middleware import Middleware

from sedimem.api.access_log import AccessLog, log_to
from sedimem.api.ratelimit import RateLimit, RateLimiter
from sedimem.api.throttle import AuthThrottle, FailureLimiter
from sedimem.api.wire import NoSniff, ValidText
from sedimem.config import ServerSettings

__all__ = ["edge_lifespan", "edge_middleware"]


def edge_middleware(settings: ServerSettings) -> list[Middleware]:
    """The access log (and request ids) outermost, so it sees the 429s too."""
    stack = [
        Middleware(AccessLog, enabled=settings.access_log != "off"),
        # /mcp too: every response says nosniff, every path and query is UTF-8
        Middleware(NoSniff),
        Middleware(ValidText),
    ]
    if settings.auth_failure_rate > 0:
        # before the per-key limit: a guess must not take a token of the key it names
        failures = FailureLimiter(
            settings.auth_failure_rate,
            settings.auth_failure_burst,
            max_addresses=settings.rate_limit_keys,
        )
        stack.append(Middleware(AuthThrottle, limiter=failures))
    if settings.rate_limit_per_second > 0:
        limiter = RateLimiter(
            settings.rate_limit_per_second,
            settings.rate_limit_burst,
            max_keys=settings.rate_limit_keys,
        )
        stack.append(Middleware(RateLimit, limiter=limiter))
    return stack


@asynccontextmanager
async def edge_lifespan(settings: ServerSettings) -> AsyncIterator[None]:
    """Enter around the app's life in each server process: the access log is written to
    ``settings.access_log`` meanwhile."""
    with log_to(settings.access_log):
        yield
