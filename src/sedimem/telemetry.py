"""OpenTelemetry traces of sedimem's spans (:mod:`sedimem.observe`), exported over OTLP/HTTP.

Off unless an endpoint is configured (``SEDIMEM_OTLP_ENDPOINT``, or the standard
``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``): then
:func:`start_tracing` imports the SDK (``sedimem[otel]``), installs a sink for the whole
process and returns what stops it. Unconfigured, nothing of the SDK is imported and every
span is the no-op of :mod:`sedimem.observe`.

A request span (kind server) holds the service operations it ran, each holding its store
and embedder calls (kind client / internal): ``POST /v1/recall`` -> ``recall.episodes`` ->
``fused_search``. Attributes name operations, backends, routes and statuses; the tenant is
its digest (``sedimem.tenant_hash``); no query, text or path of a request is exported, and
a failure is recorded by its exception type only (a message may quote user input).
"""

from __future__ import annotations

import importlib.metadata
import os
import socket
from collections.abc import Callable
from typing import Any

from opentelemetry import context, trace

from sedimem import observe
from sedimem.config import Settings
from sedimem.errors import ConfigurationError

__all__ = ["Tracing", "start_tracing", "traces_endpoint"]

_STANDARD = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")

_KINDS = {
    "request": trace.SpanKind.SERVER,
    "service": trace.SpanKind.INTERNAL,
    "store": trace.SpanKind.CLIENT,
    "embed": trace.SpanKind.INTERNAL,
}


class Tracing:
    """The sink turning sedimem's spans into OpenTelemetry spans of ``tracer``."""

    def __init__(self, tracer: trace.Tracer, shutdown: Callable[[], None]) -> None:
        self._tracer = tracer
        self._shutdown = shutdown

    def start(self, span: observe.Span) -> observe.Finish:
        started = self._tracer.start_span(
            span.name, kind=_KINDS[span.layer], attributes=dict(span.attributes)
        )
        token = context.attach(trace.set_span_in_context(started))

        def finish(span: observe.Span, seconds: float, error: BaseException | None) -> None:
            try:
                started.update_name(span.name)
                started.set_attributes(span.attributes)
                if error is not None:
                    started.set_attribute("error.type", type(error).__name__)
                    started.set_status(trace.StatusCode.ERROR, type(error).__name__)
            finally:
                context.detach(token)
                started.end()

        return finish

    def stop(self) -> None:
        """Stop observing, export what is buffered and close the exporter."""
        observe.uninstall(self)
        self._shutdown()


def traces_endpoint(settings: Settings) -> str | None:
    """Where spans go: ``SEDIMEM_OTLP_ENDPOINT`` + ``/v1/traces``; else the standard
    variables' choice (the exporter reads them); None: tracing is off."""
    if settings.otlp_endpoint is not None:
        return settings.otlp_endpoint.rstrip("/") + "/v1/traces"
    for name in _STANDARD:
        if os.environ.get(name):
            return ""  # the exporter resolves the standard variables itself
    return None


def _version() -> str:
    try:
        return importlib.metadata.version("sedimem")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "unknown"


def start_tracing(settings: Settings) -> Tracing | None:
    """Export every span of the process to the configured collector (None: not configured)."""
    endpoint = traces_endpoint(settings)
    if endpoint is None:
        return None
    sdk = _sdk()
    provider = sdk.TracerProvider(
        resource=sdk.Resource.create(
            {
                "service.name": settings.otlp_service_name,
                "service.version": _version(),
                # the process: serve --workers runs several behind one port
                "service.instance.id": f"{socket.gethostname()}:{os.getpid()}",
            }
        )
    )
    exporter = sdk.OTLPSpanExporter(endpoint=endpoint or None)
    provider.add_span_processor(sdk.BatchSpanProcessor(exporter))
    tracing = Tracing(provider.get_tracer("sedimem", _version()), provider.shutdown)
    observe.install(tracing)
    return tracing


class _SDK:
    def __init__(self) -> None:
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[import-untyped,unused-ignore]
                OTLPSpanExporter,
            )
            from opentelemetry.sdk.resources import Resource  # type: ignore[import-untyped,unused-ignore]
            from opentelemetry.sdk.trace import TracerProvider  # type: ignore[import-untyped,unused-ignore]
            from opentelemetry.sdk.trace.export import BatchSpanProcessor  # type: ignore[import-untyped,unused-ignore]
        except ImportError as exc:
            raise ConfigurationError(
                "tracing is configured (SEDIMEM_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_*) but "
                f"OpenTelemetry's SDK is not installed ({exc.name}): pip install 'sedimem[otel]'"
            ) from exc
        self.OTLPSpanExporter: Any = OTLPSpanExporter
        self.Resource: Any = Resource
        self.TracerProvider: Any = TracerProvider
        self.BatchSpanProcessor: Any = BatchSpanProcessor


def _sdk() -> _SDK:
    return _SDK()
