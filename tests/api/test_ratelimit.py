"""Per-key rate limits: the token bucket on a clock the test moves, and the middleware."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from sedimem.api.edge import edge_middleware
from sedimem.api.ratelimit import RateLimit, RateLimiter, TokenBucket, limited, retry_after
from sedimem.clock import MonotonicClock
from sedimem.config import ServerSettings
from sedimem.testing import ManualClock

from .conftest import assert_problem


def test_a_bucket_allows_its_burst_then_refills_at_its_rate() -> None:
    bucket = TokenBucket(rate=2.0, burst=3, tokens=3.0, updated=0.0)
    assert [bucket.take(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take(0.0) == pytest.approx(0.5)  # one token every half second
    assert bucket.take(0.25) == pytest.approx(0.25)
    assert bucket.take(0.5) == 0.0
    assert bucket.take(100.0) == 0.0  # refilled, but never past the burst
    assert bucket.tokens == pytest.approx(2.0)


def test_a_clock_going_backwards_refills_nothing() -> None:
    bucket = TokenBucket(rate=1.0, burst=1, tokens=0.0, updated=10.0)
    assert bucket.take(5.0) == pytest.approx(1.0)


def test_the_limiter_keeps_one_bucket_per_key() -> None:
    clock = ManualClock(0.0)
    limiter = RateLimiter(0.5, 2, max_keys=10, clock=clock)
    assert [limiter.admit(b"a") for _ in range(2)] == [0.0, 0.0]
    assert limiter.admit(b"a") == pytest.approx(2.0)
    assert limiter.admit(b"b") == 0.0  # another key is not affected
    clock.advance(2.0)
    assert limiter.admit(b"a") == 0.0
    assert limiter.admit(b"a") == pytest.approx(2.0)


def test_the_limiter_forgets_the_least_recently_used_key_past_its_bound() -> None:
    clock = ManualClock(0.0)
    limiter = RateLimiter(1.0, 1, max_keys=2, clock=clock)
    assert limiter.admit(b"a") == 0.0
    assert limiter.admit(b"b") == 0.0
    assert limiter.admit(b"a") > 0  # a is now the most recently used
    assert limiter.admit(b"c") == 0.0  # b goes
    assert len(limiter) == 2
    assert limiter.admit(b"a") > 0  # a is still remembered (and still empty)
    assert limiter.admit(b"b") == 0.0  # b starts again with a full bucket
    assert len(limiter) == 2


@pytest.mark.parametrize(("rate", "burst", "keys"), [(0.0, 1, 1), (1.0, 0, 1), (1.0, 1, 0)])
def test_the_limiter_refuses_a_limit_that_is_none(rate: float, burst: int, keys: int) -> None:
    with pytest.raises(ValueError, match="rate"):
        RateLimiter(rate, burst, max_keys=keys)


def test_retry_after_is_whole_seconds_rounded_up() -> None:
    assert [retry_after(s) for s in (0.001, 1.0, 1.01, 19.5)] == [1, 1, 2, 20]


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/v1", True),
        ("/v1/recall", True),
        ("/mcp", True),
        ("/mcp/", True),
        ("/healthz", False),
        ("/readyz", False),
        ("/metrics", False),
        ("/ui/index.html", False),
        ("/docs", False),
        ("/v10", False),
        ("/mcpx", False),
    ],
)
def test_only_v1_and_mcp_are_limited(path: str, expected: bool) -> None:
    assert limited(path) is expected


def test_the_edge_has_a_limit_only_when_one_is_configured() -> None:
    always = ["AccessLog", "NoSniff", "ValidText"]
    unlimited = ServerSettings(auth_failure_rate=0)
    assert [m.cls.__name__ for m in edge_middleware(unlimited)] == always
    # failed authentication is throttled by default
    assert [m.cls.__name__ for m in edge_middleware(ServerSettings())] == [*always, "AuthThrottle"]
    configured = ServerSettings(rate_limit_per_second=5, rate_limit_burst=10, auth_failure_rate=0)
    assert [m.cls.__name__ for m in edge_middleware(configured)] == [*always, "RateLimit"]


async def _ok(request: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(0.0)


@pytest.fixture
async def limited_client(clock: ManualClock) -> AsyncIterator[httpx.AsyncClient]:
    paths = ["/v1/recall", "/mcp", "/healthz", "/metrics"]
    inner = Starlette(routes=[Route(p, _ok, methods=["GET", "POST"]) for p in paths])
    app = RateLimit(inner, RateLimiter(0.25, 2, max_keys=100, clock=clock))
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sedimem.test") as c:
        yield c


A = {"Authorization": "Bearer sdm_key_a"}
B = {"Authorization": "Bearer sdm_key_b"}


async def test_past_the_burst_a_key_gets_429_with_retry_after(
    limited_client: httpx.AsyncClient, clock: ManualClock
) -> None:
    for _ in range(2):
        assert (await limited_client.get("/v1/recall", headers=A)).status_code == 200
    refused = await limited_client.get("/v1/recall", headers=A)
    problem = assert_problem(refused, 429, field="Authorization")
    assert refused.headers["Retry-After"] == "4"  # 0.25 per second: a token in 4 s
    assert problem["type"] == "urn:sedimem:problem:rate-limited"
    assert problem["allowed"] == "0.25 requests per second per API key, bursts of 2"
    # MCP shares the key's bucket; other keys, probes and metrics are not affected
    assert (await limited_client.post("/mcp", headers=A, json={})).status_code == 429
    assert (await limited_client.get("/v1/recall", headers=B)).status_code == 200
    assert (await limited_client.get("/healthz", headers=A)).status_code == 200
    assert (await limited_client.get("/metrics", headers=A)).status_code == 200
    clock.advance(3.9)
    assert (await limited_client.get("/v1/recall", headers=A)).status_code == 429
    clock.advance(4.0)
    assert (await limited_client.get("/v1/recall", headers=A)).status_code == 200


async def test_requests_without_a_credential_are_left_to_authentication(
    limited_client: httpx.AsyncClient,
) -> None:
    for _ in range(5):
        assert (await limited_client.get("/v1/recall")).status_code == 200
        basic = {"Authorization": "Basic abc"}
        assert (await limited_client.get("/v1/recall", headers=basic)).status_code == 200


def test_the_default_clock_never_goes_backwards() -> None:
    clock = MonotonicClock()
    first = clock.now()
    assert clock.now() >= first
