"""Credential guessing throttled per client address: the limiter on a clock the test moves,
the middleware in front of the real REST app, and a real ``sedimem serve`` process."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from fastapi import FastAPI

from sedimem.api.throttle import AuthThrottle, FailureLimiter
from sedimem.memory import Memory
from sedimem.testing import ManualClock, SedimemServer

from .conftest import ADMIN, assert_problem, bearer


def test_an_address_fails_its_burst_then_waits_for_its_rate() -> None:
    clock = ManualClock(0.0)
    limiter = FailureLimiter(0.5, 3, max_addresses=10, clock=clock)
    assert limiter.wait("10.0.0.1") == 0.0  # never failed: no bucket at all
    assert len(limiter) == 0
    for _ in range(3):
        assert limiter.wait("10.0.0.1") == 0.0
        limiter.fail("10.0.0.1")
    assert limiter.wait("10.0.0.1") == pytest.approx(2.0)  # one failure every 2 s
    assert limiter.wait("10.0.0.2") == 0.0  # another address is not affected
    clock.advance(2.0)
    assert limiter.wait("10.0.0.1") == 0.0
    limiter.fail("10.0.0.1")
    limiter.fail("10.0.0.1")  # failing on an empty bucket keeps it empty
    assert limiter.wait("10.0.0.1") == pytest.approx(2.0)


def test_the_limiter_forgets_the_least_recently_failed_address() -> None:
    limiter = FailureLimiter(1.0, 1, max_addresses=2, clock=ManualClock(0.0))
    for address in ("a", "b", "c"):
        limiter.fail(address)
    assert len(limiter) == 2
    assert limiter.wait("a") == 0.0  # forgotten
    assert limiter.wait("c") > 0


def test_a_limiter_needs_positive_limits() -> None:
    with pytest.raises(ValueError, match="rate must be > 0"):
        FailureLimiter(0, 1, max_addresses=1)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(0.0)


@pytest.fixture
async def throttled(app: FastAPI, clock: ManualClock) -> AsyncIterator[httpx.AsyncClient]:
    """The REST app behind the throttle: 3 failures at once, then one every 4 s."""
    guarded = AuthThrottle(app, FailureLimiter(0.25, 3, max_addresses=100, clock=clock))
    transport = httpx.ASGITransport(guarded, client=("192.0.2.7", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://sedimem.test") as c:
        yield c


async def test_wrong_admin_keys_are_throttled_then_every_request_waits(
    throttled: httpx.AsyncClient, memory: Memory, clock: ManualClock
) -> None:
    good = await bearer(memory)
    wrong = {"Authorization": "Bearer not-the-admin-key-at-all"}
    for _ in range(3):  # refused the admin key (403): each counts as a failure
        assert (
            await throttled.post("/v1/keys", headers=wrong, json={"tenant": "t"})
        ).status_code == 403
    refused = await throttled.post("/v1/keys", headers=wrong, json={"tenant": "t"})
    problem = assert_problem(refused, 429, field="Authorization")
    assert refused.headers["Retry-After"] == "4"
    assert problem["type"] == "urn:sedimem:problem:rate-limited"
    assert "per client address" in str(problem["allowed"])
    # while throttled, the address gets nothing checked: not even the real admin key or a
    # valid API key (a guess made now could not tell a right answer from a wrong one)
    assert (await throttled.get("/v1/keys", headers=ADMIN)).status_code == 429
    assert (await throttled.get("/v1/stats", headers=good)).status_code == 429
    # probes and docs are not behind the throttle
    assert (await throttled.get("/healthz")).status_code == 200
    clock.advance(4.0)
    assert (await throttled.get("/v1/keys", headers=ADMIN)).status_code == 200
    # a success takes nothing: the address still has the one token it earned back
    assert (await throttled.get("/v1/stats", headers=good)).status_code == 200
    assert (await throttled.get("/v1/stats", headers=wrong)).status_code == 401
    assert (await throttled.get("/v1/stats", headers=good)).status_code == 429


async def test_unknown_api_keys_and_missing_ones_count_as_failures(
    throttled: httpx.AsyncClient, memory: Memory
) -> None:
    good = await bearer(memory)
    assert (await throttled.get("/v1/stats")).status_code == 401
    assert (
        await throttled.get("/v1/stats", headers={"Authorization": "Bearer sdm_x"})
    ).status_code == 401
    assert (await throttled.get("/v1/stats", headers=good)).status_code == 200
    assert (
        await throttled.get("/v1/stats", headers={"Authorization": "Bearer sdm_y"})
    ).status_code == 401
    assert (await throttled.get("/v1/stats", headers=good)).status_code == 429


ADMIN_KEY = "admin-secret-for-the-throttle-test"


@pytest.fixture(scope="module")
def server() -> Iterator[SedimemServer]:
    # the default burst (20); a slow refill, so that a loaded machine taking seconds over
    # the hundred requests does not earn the guesser tokens the test did not count
    env = {"SEDIMEM_ADMIN_KEY": ADMIN_KEY, "SEDIMEM_SERVER__AUTH_FAILURE_RATE": "0.02"}
    with SedimemServer(env=env) as running:
        yield running


def test_a_hundred_wrong_admin_keys_in_a_second_are_answered_429(server: SedimemServer) -> None:
    def guess(n: int) -> httpx.Response:
        headers = {"Authorization": f"Bearer guess-number-{n:04d}-of-the-admin-key"}
        with httpx.Client(base_url=server.url, timeout=30) as client:
            return client.get("/v1/keys", headers=headers)

    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(guess, range(100)))
    statuses = [a.status_code for a in answers]
    assert set(statuses) <= {403, 429}
    # the default burst is 20 failures (plus at most the 8 in flight when it ran out): the
    # rest are refused unchecked
    assert statuses.count(429) >= 100 - 20 - 8 - 1, statuses
    refused = next(a for a in answers if a.status_code == 429)
    assert refused.headers["content-type"] == "application/problem+json"
    assert int(refused.headers["Retry-After"]) >= 1
    # the real admin key from the same address waits too, then works
    with httpx.Client(base_url=server.url, timeout=30) as client:
        admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
        assert client.get("/v1/keys", headers=admin).status_code == 429
        # MCP is behind the same throttle
        assert client.post("/mcp", json={}, headers=admin).status_code == 429
