"""The observation hooks: no-op without a sink, per-context sinks, the instrumented proxy,
and tracing off (nothing of OpenTelemetry's SDK imported) unless configured."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sedimem import observe
from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.embed.base import CachingEmbedder, Embedder
from sedimem.scope import Scope
from sedimem.storage.longterm.base import FusedSearch, LongTermStore
from sedimem.telemetry import traces_endpoint


class Recorder:
    """A sink keeping what it saw: (layer, name, attributes, error type)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, dict[str, observe.Value], str | None]] = []

    def start(self, span: observe.Span) -> observe.Finish:
        def finish(span: observe.Span, seconds: float, error: BaseException | None) -> None:
            assert seconds >= 0
            kind = type(error).__name__ if error is not None else None
            self.seen.append((span.layer, span.name, dict(span.attributes), kind))

        return finish


def test_without_a_sink_a_span_is_the_shared_no_op() -> None:
    assert not observe.observing()
    first = observe.span("service", "a", {"x": 1})
    second = observe.span("store", "b")
    assert first is second
    with first as entered:
        entered.set("y", 2)
    assert first.attributes == {}


async def test_an_attached_sink_sees_its_context_and_tasks_only() -> None:
    recorder = Recorder()

    @observe.operation("demo")
    async def work(scope: Scope) -> int:
        with observe.span("store", "inner"):
            pass
        return 7

    async def unobserved() -> None:
        await work(Scope(tenant="other"))

    outside = asyncio.create_task(unobserved())  # started before the sink: never sees it
    token = observe.attach(recorder)
    try:
        assert observe.observing()
        assert await work(Scope(tenant="acme")) == 7
        await asyncio.create_task(work(Scope(tenant="acme")))
    finally:
        observe.detach(token)
    await outside
    await work(Scope(tenant="acme"))
    digest = observe.tenant_digest("acme")
    assert (
        recorder.seen
        == [
            ("store", "inner", {}, None),
            ("service", "demo", {"sedimem.operation": "demo", observe.TENANT: digest}, None),
        ]
        * 2
    )
    assert digest != "acme"
    assert len(digest) == 16


async def test_a_process_sink_sees_failures_by_type() -> None:
    recorder = Recorder()
    observe.install(recorder)
    observe.install(recorder)  # once only
    try:

        @observe.operation("fails")
        async def fails() -> None:
            raise KeyError("user text")

        with pytest.raises(KeyError):
            await fails()
    finally:
        observe.uninstall(recorder)
    assert not observe.observing()
    assert recorder.seen == [("service", "fails", {"sedimem.operation": "fails"}, "KeyError")]


async def test_the_instrumented_proxy_times_calls_and_keeps_protocols(tmp_path: Path) -> None:
    from sedimem.storage.longterm.sqlite.store import SqliteLongTermStore

    store = await SqliteLongTermStore.open(str(tmp_path / "lt.db"))
    try:
        proxy = observe.instrumented(store, "store", {"sedimem.backend": store.name})
        assert isinstance(proxy, LongTermStore)
        assert isinstance(proxy, FusedSearch) == isinstance(store, FusedSearch)
        assert proxy.name == store.name
        assert "instrumented(" in repr(proxy)
        recorder = Recorder()
        token = observe.attach(recorder)
        try:
            assert await proxy.tenants() == []
        finally:
            observe.detach(token)
        assert await proxy.tenants() == []  # unobserved: straight through
        assert recorder.seen == [("store", "tenants", {"sedimem.backend": store.name}, None)]
    finally:
        await store.aclose()


def test_the_instrumented_embedder_times_sync_calls() -> None:
    embedder = HashEmbedder(8)
    proxy = observe.instrumented(embedder, "embed", {"sedimem.embedder": embedder.name})
    assert isinstance(proxy, Embedder)
    assert isinstance(proxy, CachingEmbedder) == isinstance(embedder, CachingEmbedder)
    recorder = Recorder()
    token = observe.attach(recorder)
    try:
        assert proxy.embed(["a", "b"]).shape == (2, 8)
    finally:
        observe.detach(token)
    assert [(layer, name) for layer, name, _, _ in recorder.seen] == [("embed", "embed")]


def test_the_traces_endpoint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    assert traces_endpoint(Settings(home=tmp_path)) is None
    configured = Settings(home=tmp_path, otlp_endpoint="http://127.0.0.1:4318/")
    assert traces_endpoint(configured) == "http://127.0.0.1:4318/v1/traces"
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
    assert traces_endpoint(Settings(home=tmp_path)) == ""  # the exporter reads it
    with pytest.raises(ValueError, match="http"):
        Settings(home=tmp_path, otlp_endpoint="collector:4318")


def test_tracing_is_off_and_imports_no_sdk_unless_configured(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from sedimem.config import Settings\n"
        "from sedimem.telemetry import start_tracing\n"
        "import sedimem.server\n"
        "assert start_tracing(Settings()) is None\n"
        "from sedimem import observe\n"
        "assert not observe.observing()\n"
        "loaded = sorted(m for m in sys.modules if m.startswith('opentelemetry.sdk'))\n"
        "assert not loaded, loaded\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "SEDIMEM_"))}
    env["SEDIMEM_HOME"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
