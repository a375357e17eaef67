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

Per service operation, store and embedder call (every request's, and those of the
background consolidation the server runs), timed by :mod:`sedimem.observe`:

- ``sedimem_operation_duration_seconds{operation, outcome}`` (histogram): ``recall.episodes``,
  ``recall.facts``, ``recall.procedures``, ``assemble``, ``ingest``, ``remember``,
  ``record.episode``, ``record.episodes``, ``record.procedure``, ``learn.fact``,
  ``consolidate.<job>``; ``outcome``: ok / error (raised)
- ``sedimem_store_call_duration_seconds{store, backend, call, outcome}`` (histogram):
  ``store`` working / longterm, ``call`` the store method (``fused_search``, ``put``...)
- ``sedimem_embed_duration_seconds{embedder, outcome}`` (histogram): embedder calls

Read from the stores at scrape time, recounted at most every
``server.metrics_refresh_seconds``:

- ``sedimem_records{tier}``: records per tier over every tenant (``episodes``, ``facts``
  every version, ``current_facts``, ``procedures``)
- ``sedimem_consolidation_lag_seconds{job}``: per job, the worst tenant's seconds since the
  job last succeeded for it, from the run log every process writes (tenants with no
  successful run of the job are left out; a job none completed has no series)
- ``sedimem_consolidation_jobs_total{job, status}``: job runs in this process (``ok``,
  ``skipped``, ``failed``), whoever started them (the API, the background worker)
- ``sedimem_metrics_refresh_failures_total``: recounts that failed (a store did not answer;
  the last figures stay)

From the embedder's vector cache (an ``openai`` embedder with ``embedder_cache_size`` > 0;
absent otherwise), over the process's life:

- ``sedimem_embed_cache_hits_total``: texts whose vector came from the cache (or repeated a
  text of the same batch): no request for them
- ``sedimem_embed_cache_misses_total``: texts sent to the endpoint (each distinct text of a
  batch once)
- ``sedimem_embed_cache_entries``: vectors held now (at most ``embedder_cache_size``)

``operation`` is the route template (``/v1/episodes/{episode_id}``), never the raw path, so
the number of series stays bounded; requests matching no route count as ``unmatched``.
(Starlette's few fixed routes, such as ``/openapi.json``, are labelled with their path.)
``backend`` is the store that serves the route's tier.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sedimem import observe
from sedimem.api.access_log import route_of
from sedimem.consolidation import ConsolidationReport
from sedimem.embed.cache import EmbeddingCache
from sedimem.llm.usage import Metered
from sedimem.memory import Memory

__all__ = [
    "CONTENT_TYPE",
    "Backends",
    "EmbedCacheCounts",
    "Metrics",
    "MetricsMiddleware",
    "Operations",
]

log = logging.getLogger(__name__)

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


class Operations:
    """The sink timing service operations, store and embedder calls into histograms."""

    def __init__(self, registry: CollectorRegistry) -> None:
        # the labelled histograms, by what labels them (``labels()`` costs microseconds)
        self._children: dict[tuple[object, ...], Histogram] = {}
        self.operations = Histogram(
            "sedimem_operation_duration_seconds",
            "Time of a service operation (recall, assemble, ingest, record...), by outcome.",
            ["operation", "outcome"],
            buckets=_BUCKETS,
            registry=registry,
        )
        self.store_calls = Histogram(
            "sedimem_store_call_duration_seconds",
            "Time of one store call, by store (working, longterm), backend and method.",
            ["store", "backend", "call", "outcome"],
            buckets=_BUCKETS,
            registry=registry,
        )
        self.embeds = Histogram(
            "sedimem_embed_duration_seconds",
            "Time of one embedder call (a batch of texts), by embedder.",
            ["embedder", "outcome"],
            buckets=_BUCKETS,
            registry=registry,
        )

    def start(self, span: observe.Span) -> observe.Finish:
        return self._finish

    def _finish(self, span: observe.Span, seconds: float, error: BaseException | None) -> None:
        if span.layer == "request":
            return  # counted by the HTTP metrics
        outcome = "ok" if error is None else "error"
        attributes = span.attributes
        key = (
            span.layer,
            span.name,
            outcome,
            attributes.get("sedimem.store"),
            attributes.get("sedimem.backend"),
            attributes.get("sedimem.embedder"),
        )
        child = self._children.get(key)
        if child is None:
            child = self._child(span, outcome)
            self._children[key] = child
        child.observe(seconds)

    def _child(self, span: observe.Span, outcome: str) -> Histogram:
        attributes = span.attributes
        if span.layer == "store":
            store = str(attributes.get("sedimem.store", ""))
            backend = str(attributes.get("sedimem.backend", ""))
            return self.store_calls.labels(store, backend, span.name, outcome)
        if span.layer == "embed":
            return self.embeds.labels(str(attributes.get("sedimem.embedder", "")), outcome)
        return self.operations.labels(span.name, outcome)


class ConsolidationJobs(Collector):
    """Reads the consolidator's tally of job runs at scrape time."""

    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(
            "sedimem_consolidation_jobs",
            "Consolidation job runs in this process (dry runs left out), by job and status.",
            labels=["job", "status"],
        )
        for (job, status), count in sorted(self._memory.consolidator.outcomes.items()):
            family.add_metric([job, status], count)
        yield family


class EmbedCacheCounts(Collector):
    """Reads the embedder's cache counts at scrape time (every caller's lookups)."""

    def __init__(self, cache: EmbeddingCache) -> None:
        self._cache = cache

    def collect(self) -> Iterator[Metric]:
        counts = self._cache.counts()
        yield CounterMetricFamily(
            "sedimem_embed_cache_hits",
            "Texts whose vector came from the embedder's cache: no request sent for them.",
            value=counts.hits,
        )
        yield CounterMetricFamily(
            "sedimem_embed_cache_misses",
            "Texts looked up in the embedder's cache and sent to the endpoint.",
            value=counts.misses,
        )
        yield GaugeMetricFamily(
            "sedimem_embed_cache_entries",
            "Vectors held by the embedder's cache (at most embedder_cache_size).",
            value=counts.entries,
        )


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
        self.sink = Operations(self.registry)
        self.records = Gauge(
            "sedimem_records",
            "Records per tier over every tenant (recounted at most every "
            "server.metrics_refresh_seconds).",
            ["tier"],
            registry=self.registry,
        )
        self.lag = Gauge(
            "sedimem_consolidation_lag_seconds",
            "Per job, the worst tenant's seconds since the job last succeeded for it.",
            ["job"],
            registry=self.registry,
        )
        self.refresh_failures = Counter(
            "sedimem_metrics_refresh_failures",
            "Recounts of records and consolidation lag that failed (the last figures stay).",
            registry=self.registry,
        )
        self._refreshed: float | None = None

    def watch(self, memory: Memory) -> None:
        """Export ``memory``'s consolidation job tally."""
        self.registry.register(ConsolidationJobs(memory))
        cache = getattr(memory.embedder, "cache", None)
        if isinstance(cache, EmbeddingCache) and cache.capacity:
            self.registry.register(EmbedCacheCounts(cache))

    async def refresh(self, memory: Memory, max_age: float) -> None:
        """Recount records per tier and the consolidation lag, unless done less than
        ``max_age`` seconds ago (the count queries cost one per tier and tenant)."""
        now = time.monotonic()
        if self._refreshed is not None and now - self._refreshed < max_age:
            return
        self._refreshed = now
        try:
            totals = await memory.record_totals()
            lag = await memory.consolidator.lag()
        except Exception as exc:  # a scrape reports what it has; the store's state shows
            self.refresh_failures.inc()
            log.warning("/metrics: recounting records and consolidation lag failed: %s", exc)
            return
        for tier, count in totals.model_dump().items():
            self.records.labels(tier).set(count)
        for job, seconds in lag.items():
            self.lag.labels(job).set(seconds)

    def observe(self, scope: Scope, operation: str, status: int, seconds: float) -> None:
        """One HTTP request, ``operation`` being its route template (:func:`route_of`)."""
        method = str(scope.get("method", ""))
        backend = self.backends.of(scope)
        self.requests.labels(method, operation, str(status), backend).inc()
        self.latency.labels(method, operation, backend).observe(seconds)

    def consolidated(self, report: ConsolidationReport) -> None:
        status = "ok" if report.ok else "failed"
        self.consolidations.labels(status, str(report.dry_run).lower()).inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)


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

        # this app's histograms see the operations of its requests (and only those)
        token = observe.attach(self.metrics.sink)
        method = str(scope.get("method", ""))
        request = observe.span("request", method, {"http.request.method": method})
        operation = "unmatched"
        try:
            with request:
                try:
                    await self.app(scope, receive, watched)
                finally:
                    operation = route_of(scope, status)
                    request.name = f"{method} {operation}"
                    request.set("http.route", operation)
                    request.set("http.response.status_code", status)
        finally:
            observe.detach(token)
            self.metrics.observe(scope, operation, status, time.perf_counter() - started)
