"""End to end: the access log and per-key rate limits of a real ``sedimem serve`` process.

The server's output (stdout and stderr) is read back line by line; the access log lines are
the JSON objects among them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from sedimem.observe import tenant_digest
from sedimem.testing import SedimemServer
from tests.mcp.conftest import ACCEPT, INITIALIZE

ADMIN = "admin-secret-for-the-edge-test"
BURST = 5
RATE = 0.1  # a token every 10 s: the test's own steps refill (next to) nothing


@pytest.fixture(scope="module")
def server() -> Iterator[SedimemServer]:
    env = {
        "SEDIMEM_ADMIN_KEY": ADMIN,
        "SEDIMEM_SERVER__RATE_LIMIT_PER_SECOND": str(RATE),
        "SEDIMEM_SERVER__RATE_LIMIT_BURST": str(BURST),
    }
    with SedimemServer(env=env) as running:
        yield running


def _client(server: SedimemServer, key: str | None = None) -> httpx.Client:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.Client(base_url=server.url, headers=headers, timeout=30)


def _new_key(server: SedimemServer, tenant: str) -> tuple[str, str]:
    """A new key of ``tenant``: (secret, key id)."""
    with _client(server, ADMIN) as admin:
        response = admin.post("/v1/keys", json={"tenant": tenant})
    assert response.status_code == 201, response.text
    issued = response.json()
    return issued["secret"], issued["key"]["id"]


def _access_lines(server: SedimemServer, request_ids: set[str]) -> dict[str, dict[str, Any]]:
    """The access log lines of ``request_ids``, waiting for them (a line is written once
    its response has been sent, so it may trail the response a little)."""
    deadline = time.monotonic() + 30
    while True:
        found = {}
        for text in server.output.splitlines():
            if text.startswith("{"):
                line = json.loads(text)
                if line.get("request_id") in request_ids:
                    found[line["request_id"]] = line
        if found.keys() == request_ids or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def test_every_request_is_one_json_line_with_its_request_id(server: SedimemServer) -> None:
    secret, key_id = _new_key(server, "logged-tenant")
    marker = "QueryTextNeverLogged"
    body_text = "Body text that is never logged either"
    with _client(server, secret) as client:
        stats = client.get("/v1/stats", headers={"X-Request-ID": "e2e-stats-1"})
        listed = client.get("/v1/episodes", params={"task_type": marker})
        recorded = client.post("/v1/episodes", json={"description": body_text})
        mcp = client.post("/mcp", json=INITIALIZE, headers=ACCEPT)
    with _client(server) as anonymous:
        refused = anonymous.get("/v1/stats")
    assert stats.status_code == 200, stats.text
    assert stats.headers["X-Request-ID"] == "e2e-stats-1"
    assert (listed.status_code, recorded.status_code, mcp.status_code) == (200, 201, 200)
    assert refused.status_code == 401
    assert refused.json()["request_id"] == refused.headers["X-Request-ID"]

    responses = {"stats": stats, "listed": listed, "recorded": recorded, "mcp": mcp}
    ids = {name: r.headers["X-Request-ID"] for name, r in responses.items()}
    ids["refused"] = refused.headers["X-Request-ID"]
    assert len(set(ids.values())) == len(ids)  # one id per request
    lines = _access_lines(server, set(ids.values()))
    by_name = {name: lines[request_id] for name, request_id in ids.items()}
    expected = {
        "stats": ("GET", "/v1/stats", 200),
        "listed": ("GET", "/v1/episodes", 200),
        "recorded": ("POST", "/v1/episodes", 201),
        "mcp": ("POST", "/mcp", 200),
        "refused": ("GET", "/v1/stats", 401),
    }
    for name, (method, route, status) in expected.items():
        line = by_name[name]
        assert (line["method"], line["route"], line["status"]) == (method, route, status)
        assert line["client"] == "127.0.0.1"
        assert isinstance(line["duration_ms"], float | int)
        assert line["ts"].endswith("+00:00")
        if name == "refused":
            assert (line["tenant"], line["key_id"]) == (None, None)
        else:
            assert (line["tenant"], line["key_id"]) == (tenant_digest("logged-tenant"), key_id)
    output = server.output
    for never in (secret, marker, body_text, "logged-tenant"):
        assert never not in output
    # uvicorn's own access log is off: no request is logged twice
    assert '"GET /v1/stats HTTP/1.1"' not in output


@pytest.mark.slow
def test_past_its_burst_a_key_gets_429_until_it_waits(server: SedimemServer) -> None:
    key_a, key_a_id = _new_key(server, "limited-a")
    key_b, _ = _new_key(server, "limited-b")
    with _client(server, key_a) as a, _client(server, key_b) as b:
        answered = [a.get("/v1/stats") for _ in range(BURST + 3)]
        statuses = [r.status_code for r in answered]
        assert 429 in statuses, statuses
        first = statuses.index(429)
        assert first >= BURST, statuses
        assert set(statuses[:first]) == {200}, statuses
        refused = answered[first]
        assert refused.headers["content-type"] == "application/problem+json"
        problem = refused.json()
        assert problem["type"] == "urn:sedimem:problem:rate-limited"
        assert problem["field"] == "Authorization"
        assert problem["allowed"] == f"{RATE:g} requests per second per API key, bursts of {BURST}"
        assert problem["request_id"] == refused.headers["X-Request-ID"]
        assert 1 <= int(refused.headers["Retry-After"]) <= 10

        # MCP over HTTP takes from the same bucket
        mcp = a.post("/mcp", json=INITIALIZE, headers=ACCEPT)
        assert mcp.status_code == 429, mcp.text
        wait = int(mcp.headers["Retry-After"])
        # another key, the probes and the metrics are not affected
        assert b.get("/v1/stats").status_code == 200
        assert b.post("/mcp", json=INITIALIZE, headers=ACCEPT).status_code == 200
        for path in ("/healthz", "/readyz", "/metrics"):
            assert a.get(path).status_code == 200, path

        time.sleep(wait)
        again = a.get("/v1/stats")
        assert again.status_code == 200, again.text
    # refused before the key was looked up, yet attributed to it, on the route it asked for
    lines = _access_lines(server, {refused.headers["X-Request-ID"], mcp.headers["X-Request-ID"]})
    assert sorted((x["route"], x["status"], x["key_id"]) for x in lines.values()) == [
        ("/mcp", 429, key_a_id),
        ("/v1/stats", 429, key_a_id),
    ]


@pytest.mark.slow
def test_every_worker_process_writes_its_lines() -> None:
    with SedimemServer(env={"SEDIMEM_ADMIN_KEY": ADMIN}, workers=2) as workers:
        secret, key_id = _new_key(workers, "worker-tenant")
        sent: dict[str, str] = {}
        for n in range(6):
            # new connections each time, so the kernel may hand them to either worker
            with _client(workers) as anonymous, _client(workers, secret) as client:
                probe = anonymous.get("/healthz", headers={"X-Request-ID": f"probe-{n}"})
                stats = client.get("/v1/stats")
            assert stats.status_code == 200, stats.text
            sent[probe.headers["X-Request-ID"]] = "/healthz"
            sent[stats.headers["X-Request-ID"]] = "/v1/stats"
        lines = _access_lines(workers, set(sent))
    assert sorted(lines) == sorted(sent)  # whichever worker served it wrote its line
    for request_id, route in sent.items():
        line = lines[request_id]
        assert (line["route"], line["status"]) == (route, 200)
        assert line["key_id"] == (key_id if route == "/v1/stats" else None)
