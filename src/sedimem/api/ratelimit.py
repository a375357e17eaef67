"""Per-key rate limits: a token bucket per API key, 429 with ``Retry-After`` past it.

Each key may make ``rate`` requests per second on average and ``burst`` at once after being
idle. A request to ``/v1`` or ``/mcp`` that finds its key's bucket empty is refused before
anything reads its body or asks a store: ``429`` problem+json naming the limit, and
``Retry-After`` (whole seconds, rounded up) saying when a token will be there. Probes,
metrics, the docs and the inspector's static files are never limited.

The bucket is chosen by the credential presented (``Authorization: Bearer ...``, kept only
as a hash): one per API key, shared by REST and MCP, and one for the admin key. A request
without a credential is not limited here (it gets 401 anyway).

Buckets live in the memory of each server process: with several processes each enforces
its own bucket, so a key spread over N processes may reach N times the rate. At most
``max_keys`` buckets are kept, least recently used dropped first; a dropped bucket that
had been idle for ``burst / rate`` seconds was full anyway, so nothing is forgotten unless
more than ``max_keys`` keys are active within that time.
"""

from __future__ import annotations

import hashlib
import math
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from sedimem.api.problems import Problem, problem_type, respond
from sedimem.clock import Clock, MonotonicClock

__all__ = ["LIMITED_PREFIXES", "Buckets", "RateLimit", "RateLimiter", "TokenBucket"]

K = TypeVar("K", bound=Hashable)

#: Paths under these prefixes are limited (each prefix itself and everything below it).
LIMITED_PREFIXES = ("/v1", "/mcp")


@dataclass(slots=True)
class TokenBucket:
    """``tokens`` refill at ``rate`` per second up to ``burst``; a request takes one."""

    rate: float
    burst: int
    tokens: float
    updated: float

    def take(self, now: float) -> float:
        """0 if a token was taken, else the seconds until one will be there."""
        elapsed = max(0.0, now - self.updated)
        self.tokens = min(float(self.burst), self.tokens + elapsed * self.rate)
        self.updated = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate

    def wait(self, now: float) -> float:
        """0 if a token is there, else the seconds until one will be (none is taken)."""
        tokens = min(float(self.burst), self.tokens + max(0.0, now - self.updated) * self.rate)
        return 0.0 if tokens >= 1 else (1 - tokens) / self.rate


class Buckets(Generic[K]):
    """A :class:`TokenBucket` per key, created full on first use, at most ``max_keys`` of
    them (least recently used dropped first): what a per-key limit and the per-address
    failure throttle (:mod:`sedimem.api.throttle`) both keep."""

    def __init__(
        self, rate: float, burst: int, *, max_keys: int, clock: Clock | None = None
    ) -> None:
        if rate <= 0 or burst < 1 or max_keys < 1:
            raise ValueError("rate must be > 0, burst and max_keys >= 1")
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self._clock = clock or MonotonicClock()  # a wall clock set back would refill nothing
        self._buckets: OrderedDict[K, TokenBucket] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def now(self) -> float:
        return self._clock.now()

    def peek(self, key: K) -> TokenBucket | None:
        """The bucket of ``key``, if it has one (its place in the LRU order unchanged)."""
        return self._buckets.get(key)

    def bucket(self, key: K, now: float) -> TokenBucket:
        """The bucket of ``key``, created full when it has none; made the most recent."""
        found = self._buckets.get(key)
        if found is None:
            found = TokenBucket(self.rate, self.burst, float(self.burst), now)
            self._buckets[key] = found
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return found


class RateLimiter(Buckets[bytes]):
    """One :class:`TokenBucket` per identity, at most ``max_keys`` of them (LRU)."""

    def admit(self, identity: bytes) -> float:
        """0 if ``identity`` may go ahead now, else the seconds it should wait."""
        now = self.now()
        return self.bucket(identity, now).take(now)

    def describe(self) -> str:
        return f"{self.rate:g} requests per second per API key, bursts of {self.burst}"


def retry_after(seconds: float) -> int:
    """``Retry-After`` in whole seconds, rounded up (never 0: the token is not there yet)."""
    return max(1, math.ceil(seconds))


def limited(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in LIMITED_PREFIXES)


def credential(scope: Scope) -> bytes | None:
    """A hash of the bearer credential the request presents (None: it presents none)."""
    scheme, _, secret = (Headers(scope=scope).get("authorization") or "").partition(" ")
    secret = secret.strip()
    if scheme.lower() != "bearer" or not secret:
        return None
    return hashlib.blake2b(secret.encode("latin-1"), digest_size=16).digest()


class RateLimit:
    """ASGI middleware refusing a key's requests to ``/v1`` and ``/mcp`` past its limit."""

    def __init__(self, app: ASGIApp, limiter: RateLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and limited(str(scope.get("path", ""))):
            identity = credential(scope)
            wait = 0.0 if identity is None else self.limiter.admit(identity)
            if wait > 0:
                await self._refuse(wait)(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _refuse(self, wait: float) -> ASGIApp:
        seconds = retry_after(wait)
        problem = Problem(
            type=problem_type("rate-limited"),
            title="Too many requests",
            status=429,
            detail=f"this API key is over its rate limit; retry in {seconds} s",
            field="Authorization",
            allowed=self.limiter.describe(),
        )
        return respond(problem, {"Retry-After": str(seconds)})
