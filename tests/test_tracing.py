"""End to end: ``sedimem serve`` as a real process exports its traces over OTLP/HTTP to a
collector the test runs (an HTTP server on loopback decoding the protobuf requests).

A recall and an assemble each show request -> service -> store spans linked by parent ids;
the tenant is carried hashed; no query or episode text appears in any name or attribute.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from sedimem.scope import Scope
from sedimem.testing import SedimemServer

pytest.importorskip("opentelemetry.sdk.trace", reason="needs sedimem[otel]")
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

ADMIN = "admin-secret-for-the-tracing-test"
TENANT = "tracing-tenant-name"
QUERY = "zephyrine quokka migration"
EPISODE = "Moved the zephyrine quokka herd to the northern pasture"


@dataclass(frozen=True)
class Received:
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_id: str
    attributes: dict[str, Any]
    service: str
    instance: str


class Collector:
    """An OTLP/HTTP trace receiver on loopback: POST /v1/traces, protobuf bodies."""

    def __init__(self) -> None:
        self.spans: list[Received] = []
        self.paths: list[str] = []
        lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
                with lock:
                    collector.paths.append(self.path)
                    collector.spans.extend(_decode(request))
                reply = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Collector:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def _value(any_value: Any) -> Any:
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def _decode(request: ExportTraceServiceRequest) -> Iterator[Received]:
    for resource_spans in request.resource_spans:
        resource = {a.key: _value(a.value) for a in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield Received(
                    name=span.name,
                    kind=span.kind,
                    trace_id=span.trace_id.hex(),
                    span_id=span.span_id.hex(),
                    parent_id=span.parent_span_id.hex(),
                    attributes={a.key: _value(a.value) for a in span.attributes},
                    service=str(resource.get("service.name")),
                    instance=str(resource.get("service.instance.id")),
                )


@pytest.fixture(scope="module")
def exported() -> Iterator[list[Received]]:
    """The spans of one server's life: a key, an episode, a recall and an assemble."""
    with Collector() as collector:
        env = {
            "SEDIMEM_ADMIN_KEY": ADMIN,
            "SEDIMEM_EMBEDDER": "hash",
            "SEDIMEM_OTLP_ENDPOINT": collector.url,
            "SEDIMEM_OTLP_SERVICE_NAME": "sedimem-under-test",
        }
        with (
            SedimemServer(env=env) as server,
            httpx.Client(base_url=server.url, timeout=30) as client,
        ):
            admin = {"Authorization": f"Bearer {ADMIN}"}
            issued = client.post("/v1/keys", json={"tenant": TENANT}, headers=admin)
            assert issued.status_code == 201, issued.text
            auth = {"Authorization": f"Bearer {issued.json()['secret']}"}
            episode = {"description": EPISODE, "user": "ana"}
            assert client.post("/v1/episodes", json=episode, headers=auth).is_success
            query = {"query": QUERY, "user": "ana"}
            recalled = client.post("/v1/recall", json=query, headers=auth)
            assert recalled.status_code == 200, recalled.text
            assert recalled.json()["episodes"], "the episode is found"
            context = {**query, "budget_tokens": 400}
            assembled = client.post("/v1/context", json=context, headers=auth)
            assert assembled.status_code == 200, assembled.text
            asyncio.run(_mcp_recall(server.url, issued.json()["secret"]))
        # the server exported what it still buffered when it stopped
        assert set(collector.paths) == {"/v1/traces"}
        yield list(collector.spans)


async def _mcp_recall(url: str, key: str) -> None:
    import httpx2
    from mcp.client import Client
    from mcp.client.streamable_http import streamable_http_client

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as http,
        Client(streamable_http_client(url + "/mcp", http_client=http)) as client,
    ):
        found = await client.call_tool("recall", {"query": QUERY, "format": "json"})
        assert not found.is_error


SERVER, INTERNAL, CLIENT = 2, 1, 3  # opentelemetry.proto.trace.v1.Span.SpanKind


def _chain(spans: list[Received], route: str) -> tuple[Received, list[Received]]:
    """The request span of ``route`` and its descendants."""
    requests = [s for s in spans if s.name == f"POST {route}"]
    assert len(requests) == 1, [s.name for s in spans]
    request = requests[0]
    below: list[Received] = []
    parents = {request.span_id}
    changed = True
    while changed:
        changed = False
        for span in spans:
            if span.parent_id in parents and span not in below:
                below.append(span)
                parents.add(span.span_id)
                changed = True
    return request, below


def test_recall_is_request_then_service_then_store(exported: list[Received]) -> None:
    request, below = _chain(exported, "/v1/recall")
    assert request.kind == SERVER
    assert request.parent_id == ""  # a root: no trace came with the request
    assert request.attributes["http.route"] == "/v1/recall"
    assert request.attributes["http.response.status_code"] == 200
    assert request.service == "sedimem-under-test"
    services = {s.name: s for s in below if s.parent_id == request.span_id and s.kind == INTERNAL}
    assert {"recall.episodes", "recall.facts", "recall.procedures"} <= set(services)
    recall = services["recall.episodes"]
    stores = [s for s in below if s.parent_id == recall.span_id and s.kind == CLIENT]
    assert stores, "recall.episodes made store calls"
    assert {s.attributes["sedimem.store"] for s in stores} == {"longterm"}
    assert {s.attributes["sedimem.backend"] for s in stores} == {"sqlite"}
    assert all(s.trace_id == request.trace_id for s in below)
    embeds = [s for s in below if s.parent_id == recall.span_id and s.name == "aembed"]
    assert embeds, "the query was embedded under the recall"
    assert "hash" in embeds[0].attributes["sedimem.embedder"]


def test_assemble_is_request_then_service_then_store(exported: list[Received]) -> None:
    request, below = _chain(exported, "/v1/context")
    assembles = [s for s in below if s.name == "assemble"]
    assert len(assembles) == 1
    assemble = assembles[0]
    assert assemble.parent_id == request.span_id
    inner = {s.name for s in below if s.parent_id == assemble.span_id}
    assert {"recall.episodes", "recall.facts", "recall.procedures"} <= inner
    by_id = {s.span_id: s for s in below}
    stores = [s for s in below if s.kind == CLIENT]
    assert stores
    for store in stores:  # each store call climbs back to the request
        parent = store
        while parent.parent_id != request.span_id:
            parent = by_id[parent.parent_id]
        assert parent.kind in (INTERNAL, CLIENT)
    assert any(by_id[s.parent_id].name == "recall.facts" for s in stores if s.parent_id in by_id)


def test_the_tenant_is_hashed_and_no_user_text_is_exported(exported: list[Received]) -> None:
    digest = hashlib.blake2b(TENANT.encode(), digest_size=8).hexdigest()
    services = [s for s in exported if s.attributes.get("sedimem.operation")]
    assert services
    for span in services:
        if span.name.startswith("recall.") or span.name in ("assemble", "record.episodes"):
            assert span.attributes["sedimem.tenant_hash"] == digest, span.name
    secrets = (TENANT, QUERY, EPISODE, "zephyrine", "quokka", ADMIN, "sdm_")
    for span in exported:
        texts = [span.name, *map(str, span.attributes), *map(str, span.attributes.values())]
        for text in texts:
            for secret in secrets:
                assert secret not in text, (span.name, text)


def test_an_mcp_call_is_traced_too(exported: list[Received]) -> None:
    requests = [s for s in exported if s.name == "POST /mcp"]
    assert requests
    assert all(s.kind == SERVER for s in requests)
    recalls = [s for s in exported if s.name == "recall.episodes"]
    assert len(recalls) == 3  # REST recall, REST context, MCP recall
    by_mcp = [s for s in recalls if s.parent_id in {r.span_id for r in requests}]
    assert len(by_mcp) == 1
    assert any(s.parent_id == by_mcp[0].span_id and s.kind == CLIENT for s in exported)


async def test_start_tracing_exports_in_process_and_marks_failures_by_type(
    tmp_path: Path,
) -> None:
    from sedimem import observe
    from sedimem.config import Settings
    from sedimem.telemetry import start_tracing

    @observe.operation("demo.fails")
    async def fails(scope: Scope) -> None:
        with observe.span("store", "put", {"sedimem.store": "longterm"}):
            raise LookupError(f"no record for {QUERY}")

    with Collector() as collector:
        tracing = start_tracing(Settings(home=tmp_path, otlp_endpoint=collector.url))
        assert tracing is not None
        try:
            with pytest.raises(LookupError):
                await fails(Scope(tenant=TENANT))
        finally:
            tracing.stop()
        assert not observe.observing()
    service, store = (
        next(s for s in collector.spans if s.name == name) for name in ("demo.fails", "put")
    )
    assert store.parent_id == service.span_id
    assert store.kind == CLIENT
    assert service.parent_id == ""
    for span in (service, store):
        assert span.attributes["error.type"] == "LookupError"
        assert QUERY not in str(span.attributes)
    assert service.service == "sedimem"


def test_each_worker_of_serve_workers_exports_its_spans() -> None:
    with Collector() as collector:
        env = {
            "SEDIMEM_ADMIN_KEY": ADMIN,
            "SEDIMEM_EMBEDDER": "hash",
            "SEDIMEM_OTLP_ENDPOINT": collector.url,
        }
        with (
            SedimemServer(env=env, workers=2) as server,
            httpx.Client(base_url=server.url, timeout=30) as client,
        ):
            admin = {"Authorization": f"Bearer {ADMIN}"}
            issued = client.post("/v1/keys", json={"tenant": TENANT}, headers=admin)
            assert issued.status_code == 201, issued.text
            auth = {"Authorization": f"Bearer {issued.json()['secret']}"}
            for _ in range(4):
                found = client.post("/v1/recall", json={"query": QUERY}, headers=auth)
                assert found.status_code == 200, found.text
    recalls = [s for s in collector.spans if s.name == "POST /v1/recall"]
    assert len(recalls) == 4  # whichever worker answered, its spans were exported
    assert all(":" in s.instance for s in collector.spans)
    for request in recalls:
        assert any(s.parent_id == request.span_id for s in collector.spans)


def test_sedimem_worker_exports_its_consolidation_jobs(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {
        **os.environ,
        "SEDIMEM_HOME": str(tmp_path),
        "SEDIMEM_EMBEDDER": "hash",
        "OTEL_BSP_SCHEDULE_DELAY": "200",  # export every 0.2 s, not only at the end
    }
    with Collector() as collector:
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = collector.url  # the standard variable
        with (tmp_path / "worker.log").open("wb") as log:
            worker = subprocess.Popen(
                [sys.executable, "-m", "sedimem", "worker", "--tenant", TENANT, "--interval", "1"],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                deadline = time.monotonic() + 120
                while not any(s.name == "consolidate.decay" for s in collector.spans):
                    assert worker.poll() is None, (tmp_path / "worker.log").read_text()
                    assert time.monotonic() < deadline, "no consolidation span arrived"
                    time.sleep(0.1)
            finally:
                worker.send_signal(signal.SIGINT)
                assert worker.wait(timeout=60) == 0, (tmp_path / "worker.log").read_text()
    spans = list(collector.spans)
    jobs = {s.name: s for s in spans if s.name.startswith("consolidate.")}
    assert {"consolidate.facts", "consolidate.decay"} <= set(jobs)
    digest = hashlib.blake2b(TENANT.encode(), digest_size=8).hexdigest()
    for job in jobs.values():
        assert job.parent_id == ""  # each job run is a trace of its own
        assert job.attributes["sedimem.tenant_hash"] == digest
        assert job.attributes["sedimem.status"] == "ok"
    facts = jobs["consolidate.facts"]
    assert any(s.parent_id == facts.span_id and s.kind == CLIENT for s in spans)
    assert all(TENANT not in str(s.attributes) for s in spans)
