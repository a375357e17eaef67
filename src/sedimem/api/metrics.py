"""Prometheus metrics of one app, in a registry of its own (two apps never share counters).

- ``sedimem_http_requests_total{method, operation, status, backend}``
- ``sedimem_http_request_duration_seconds{method, operation, backend}`` (histogram)
- ``sedimem_working_fallback{backend}``: 1 while working memory runs on its fallback
- ``sedimem_consolidation_runs_total{status, dry_run}``
- ``sedimem_llm_requests_total{endpoint}``, ``sedimem_llm_retries_total{endpoint}``,
  ``sedimem_llm_failures_total{endpoint}``, ``sedimem_llm_invalid_replies_total{endpoint}``
  and ``sedimem_llm_tokens_total{endpoint, kind}`` (``kind``: prompt / completion): the
  calls of the configured model endpoints (``endpoint``: chat = the LLM extractor,
  embedding = an OpenAI-compatible embedder) over the process's life, from every caller
  (API, background consolidation); absent when none is configured

``operation`` is the route template (``/v1/episodes/{episode_id}``), never the raw path, so
the number of series stays bounded; requests matching no route count as ``unmatched``.
(Starlette's few fixed routes, such as ``/openapi.json``, are labelled with their path.)
``backend`` is the store that serves the route's tier.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sedimem.consolidation import ConsolidationReport
from sedimem.llm.usage import Metered

__all__ = ["CONTENT_TYPE", "Backends", "Metrics", "MetricsMiddleware"]

CONTENT_TYPE = CONTENT_TYPE_LATEST

#: Route tags whose routes are served by working memory; other /v1 routes by long-term.
WORKING_TAGS = frozenset({"working memory", "lifecycle"})

_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


@dataclass(frozen=True, slots=True)
class Backends:
    """The names of the stores behind the app, for the ``backend`` label."""

    working: str
    longterm: str

    def of(self, scope: Scope) -> str:
        route = scope.get("route")
        path = getattr(route, "path_format", "")
        if not path.startswith("/v1/"):
            return "none"
        if WORKING_TAGS.intersection(getattr(route, "tags", None) or ()):
            return self.working
        return self.longterm


class ModelCalls(Collector):
    """Reads the endpoints' running counts at scrape time (they count every caller)."""

    _COUNTS = (
        ("requests", "HTTP requests sent to the model endpoint, retries included."),
        ("retries", "Requests that retried an earlier one (timeout, 429, 5xx)."),
        ("failures", "Calls that failed after their retries, or were refused."),
        ("invalid_replies", "Chat replies that were not valid JSON of the facts schema."),
    )

    def __init__(self, models: Callable[[], Mapping[str, Metered]]) -> None:
        self._models = models

    def collect(self) -> Iterator[Metric]:
        models = self._models()
        if not models:
            return
        for name, help_text in self._COUNTS:
            family = CounterMetricFamily(f"sedimem_llm_{name}", help_text, labels=["endpoint"])
            for kind, model in sorted(models.items()):
                family.add_metric([kind], getattr(model.usage, name))
            yield family
        tokens = CounterMetricFamily(
            "sedimem_llm_tokens",
            "Tokens the model endpoint reported using (its answers' usage field).",
            labels=["endpoint", "kind"],
        )
        for kind, model in sorted(models.items()):
            tokens.add_metric([kind, "prompt"], model.usage.prompt_tokens)
            tokens.add_metric([kind, "completion"], model.usage.completion_tokens)
        yield tokens


class Metrics:
    def __init__(
        self,
        backends: Backends,
        using_fallback: Callable[[], bool],
        models: Callable[[], Mapping[str, Metered]] | None = None,
    ) -> None:
        self.backends = backends
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "sedimem_http_requests",
            "HTTP requests answered, by operation (route template), status and backend.",
            ["method", "operation", "status", "backend"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "sedimem_http_request_duration_seconds",
            "Time from the request's arrival to the end of its response.",
            ["method", "operation", "backend"],
            buckets=_BUCKETS,
            registry=self.registry,
        )
        fallback = Gauge(
            "sedimem_working_fallback",
            "1 while working memory is served by its in-process fallback, else 0.",
            ["backend"],
            registry=self.registry,
        )
        fallback.labels(backends.working).set_function(lambda: float(using_fallback()))
        self.consolidations = Counter(
            "sedimem_consolidation_runs",
            "Consolidation runs started through the API, by status.",
            ["status", "dry_run"],
            registry=self.registry,
        )
        if models is not None:
            self.registry.register(ModelCalls(models))

    def observe(self, scope: Scope, status: int, seconds: float) -> None:
        operation = _operation(scope, status)
        method = str(scope.get("method", ""))
        backend = self.backends.of(scope)
        self.requests.labels(method, operation, str(status), backend).inc()
        self.latency.labels(method, operation, backend).observe(seconds)

    def consolidated(self, report: ConsolidationReport) -> None:
        status = "ok" if report.ok else "failed"
        self.consolidations.labels(status, str(report.dry_run).lower()).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)


def _operation(scope: Scope, status: int) -> str:
    path_format = getattr(scope.get("route"), "path_format", None)
    if path_format:
        return str(path_format)
    # Starlette's own routes (the OpenAPI document, the docs) carry no route in the scope;
    # they are few and fixed. Anything else without a route (404, a 413 refused before
    # routing) would let clients invent label values: it is counted as one.
    return str(scope.get("path", "")) if status < 400 else "unmatched"


class MetricsMiddleware:
    """ASGI middleware timing every HTTP request and counting it by status."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client sees when the app raises before answering

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            self.metrics.observe(scope, status, time.perf_counter() - started)
