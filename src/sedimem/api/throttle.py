"""Credential guessing throttled: failed authentication is limited per client address.

API keys are 256-bit and cannot be guessed, but the admin key is what the operator chose;
without a limit a client could try hundreds of them a second. Each client address has a
token bucket of failures (``burst`` at once, refilled at ``rate`` per second): every
request to ``/v1`` or ``/mcp`` answered 401 (no or an unknown credential) or refused the
admin key takes a token. While the bucket is empty, every request from that address to
``/v1`` and ``/mcp`` is answered ``429`` problem+json with ``Retry-After``, before any
credential is looked at: a guess made then is not even checked.

The bucket is per address, not per credential: a per-credential bucket is what a guesser
gets a fresh one of with every guess. Buckets live in each server process (with N workers
an address may fail N times as often) and at most ``max_addresses`` are kept, least
recently used dropped first.

A small in-process token bucket (the one of :mod:`sedimem.api.ratelimit`) rather than the
``limits`` package: the per-key limit already keeps its buckets so, nothing here needs a
shared store, and two mechanisms for one idea would be one too many.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sedimem.api.problems import Problem, problem_type, respond
from sedimem.api.ratelimit import Buckets, limited, retry_after
from sedimem.clock import Clock

__all__ = ["AuthThrottle", "FailureLimiter", "mark_failed"]

#: Set in the request's scope by the authentication that refused a credential with 403
#: (a wrong admin key); a 401 counts without it.
_FAILED = "sedimem.auth_failed"


def mark_failed(connection: HTTPConnection) -> None:
    """Count this request as a failed authentication, whatever status it ends with."""
    connection.scope[_FAILED] = True


class FailureLimiter(Buckets[str]):
    """One :class:`TokenBucket` of failures per client address, at most ``max_addresses``."""

    def __init__(
        self, rate: float, burst: int, *, max_addresses: int, clock: Clock | None = None
    ) -> None:
        if max_addresses < 1:
            raise ValueError("rate must be > 0, burst and max_addresses >= 1")
        super().__init__(rate, burst, max_keys=max_addresses, clock=clock)

    @property
    def max_addresses(self) -> int:
        return self.max_keys

    def wait(self, address: str) -> float:
        """0 if ``address`` may try now, else the seconds until it may."""
        bucket = self.peek(address)
        return 0.0 if bucket is None else bucket.wait(self.now())

    def fail(self, address: str) -> None:
        """Count one failed authentication of ``address``."""
        now = self.now()
        self.bucket(address, now).take(now)

    def describe(self) -> str:
        return (
            f"{self.burst} failed authentications per client address at once, then "
            f"{self.rate:g} per second"
        )


def _address(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


class AuthThrottle:
    """ASGI middleware refusing an address's requests to ``/v1`` and ``/mcp`` while it has
    failed authentication too often."""

    def __init__(self, app: ASGIApp, limiter: FailureLimiter) -> None:
        self.app = app
        self.limiter = limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not limited(str(scope.get("path", ""))):
            await self.app(scope, receive, send)
            return
        address = _address(scope)
        wait = self.limiter.wait(address)
        if wait > 0:
            await self._refuse(wait)(scope, receive, send)
            return
        status = 0

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            if status == 401 or scope.get(_FAILED):
                self.limiter.fail(address)

    def _refuse(self, wait: float) -> ASGIApp:
        seconds = retry_after(wait)
        problem = Problem(
            type=problem_type("rate-limited"),
            title="Too many requests",
            status=429,
            detail=f"too many failed authentications from this address; retry in {seconds} s",
            field="Authorization",
            allowed=self.limiter.describe(),
        )
        return respond(problem, {"Retry-After": str(seconds)})
