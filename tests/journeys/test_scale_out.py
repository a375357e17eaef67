"""Many server processes over shared stores: ``sedimem serve --workers N`` and several
``serve`` processes on different ports, as real processes, over SQLite and over a real
Redis + PostgreSQL.

Which worker of ``--workers N`` takes a connection is the kernel's choice; each request
opens a new connection and ``/healthz`` names the process that answered, so the tests see
the workers apart and check that what one worker wrote, another one reads.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

from sedimem.testing import SedimemServer

ADMIN = "admin-secret-for-the-scale-out-test"
#: how long every worker may take to answer once (one may still be starting on a busy
#: machine while the other takes every connection)
WORKERS_UP_S = 60.0
#: sessions and episodes written, each on a new connection
WRITES = 20

pytestmark = pytest.mark.slow


@contextmanager
def _tenant_client(server: SedimemServer) -> Iterator[httpx.Client]:
    with httpx.Client(
        base_url=server.url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60
    ) as admin:
        created = admin.post("/v1/keys", json={"tenant": "acme"})
        assert created.status_code == 201, created.text
        secret = created.json()["secret"]
    with httpx.Client(
        base_url=server.url,
        headers={"Authorization": f"Bearer {secret}"},
        timeout=60,
        limits=httpx.Limits(max_keepalive_connections=0),  # a new connection per request
    ) as client:
        yield client


def _every_worker_answers(client: httpx.Client, workers: int) -> None:
    pids: set[int] = set()
    deadline = time.monotonic() + WORKERS_UP_S
    while len(pids) < workers:
        assert time.monotonic() < deadline, f"only workers {pids} answered"
        pids.add(client.get("/healthz").json()["pid"])
        time.sleep(0.01)


def _writes_and_reads_across_workers(server: SedimemServer, workers: int) -> None:
    with _tenant_client(server) as client:
        _every_worker_answers(client, workers)
        writer_of: dict[int, int] = {}  # session number -> pid of the worker that wrote
        for n in range(WRITES):
            pid = client.get("/healthz").json()["pid"]
            put = client.put(f"/v1/sessions/s{n}/kv/plan", json={"value": {"step": n}})
            assert put.status_code == 204, put.text
            writer_of[n] = pid
            recorded = client.post("/v1/episodes", json={"description": f"trip {n} to Oslo"})
            assert recorded.status_code == 201, recorded.text
        assert server.running
        read_elsewhere = 0
        deadline = time.monotonic() + WORKERS_UP_S
        reads = 0
        # every session once, then on until one read lands on another worker than the one
        # that wrote it (a busy machine may hand a run of connections to one worker)
        while reads < WRITES or not read_elsewhere:
            assert time.monotonic() < deadline, "no read reached another worker than its writer"
            session = reads % WRITES
            reader = client.get("/healthz").json()["pid"]
            got = client.get(f"/v1/sessions/s{session}/kv/plan")
            assert got.status_code == 200, got.text
            assert got.json()["value"] == {"step": session}
            read_elsewhere += reader != writer_of[session]
            reads += 1
        query = {"query": "trip to Oslo", "tiers": ["episodes"], "k": 200}
        found = client.post("/v1/recall", json=query)
        assert found.status_code == 200, found.text
        assert len(found.json()["episodes"]) == WRITES  # every one, whichever worker wrote it


def test_serve_workers_share_one_sqlite_file() -> None:
    """--workers 2 on the default SQLite file: WAL and a busy timeout let both write."""
    env = {"SEDIMEM_ADMIN_KEY": ADMIN, "SEDIMEM_EMBEDDER": "hash"}
    with SedimemServer(env=env, workers=2) as server:
        assert server.printed_key is not None  # created once, by the parent
        assert server.output.count("Created an API key") == 1
        _writes_and_reads_across_workers(server, 2)
        server.kill()  # the supervisor, as a crash would: no worker serves on behind it
        # refused, or reset: a connection the kernel queued on a listening socket torn down
        # as its process exited is reset, not refused; either way nobody answered
        with pytest.raises((httpx.ConnectError, httpx.ReadError)):
            httpx.get(f"{server.url}/healthz", timeout=10)


@pytest.mark.redis
@pytest.mark.postgres
def test_serve_workers_over_redis_and_postgres(redis_url: str, postgres_url: str) -> None:
    env = {
        "SEDIMEM_ADMIN_KEY": ADMIN,
        "SEDIMEM_EMBEDDER": "hash",
        "SEDIMEM_WORKING_URL": redis_url,
        "SEDIMEM_STORE_URL": postgres_url,
    }
    with SedimemServer(env=env, workers=2) as server:
        _writes_and_reads_across_workers(server, 2)


@pytest.mark.redis
@pytest.mark.postgres
def test_two_servers_see_each_others_writes(redis_url: str, postgres_url: str) -> None:
    env = {
        "SEDIMEM_ADMIN_KEY": ADMIN,
        "SEDIMEM_EMBEDDER": "hash",
        "SEDIMEM_WORKING_URL": redis_url,
        "SEDIMEM_STORE_URL": postgres_url,
    }
    with SedimemServer(env=env) as one, SedimemServer(env=env) as two:
        assert one.port != two.port
        with _tenant_client(one) as first:
            headers = dict(first.headers)
            put = first.put("/v1/sessions/live/kv/plan", json={"value": "from one"})
            assert put.status_code == 204, put.text
            recorded = first.post("/v1/episodes", json={"description": "Booked the Oslo train"})
            assert recorded.status_code == 201, recorded.text
        with httpx.Client(base_url=two.url, headers=headers, timeout=60) as second:
            assert second.get("/v1/sessions/live/kv/plan").json()["value"] == "from one"
            hits = second.post("/v1/recall", json={"query": "Oslo train"}).json()["episodes"]
            assert [h["record"]["description"] for h in hits][:1] == ["Booked the Oslo train"]
            put = second.put("/v1/sessions/live/kv/plan", json={"value": "from two"})
            assert put.status_code == 204, put.text
        with httpx.Client(base_url=one.url, headers=headers, timeout=60) as first_again:
            assert first_again.get("/v1/sessions/live/kv/plan").json()["value"] == "from two"
