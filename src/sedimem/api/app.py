"""``create_app``: the REST interface over one ``Memory``.

The app owns nothing it did not make: the caller opened ``memory`` (in the event loop the
app will serve from) and closes it. Metrics live in a registry of the app's own, so any
number of apps can run side by side in one process, as the tests do.
"""

from __future__ import annotations

from typing import Any

from fastapi import Depends, FastAPI

from sedimem import __version__
from sedimem.api import docs_pages, handlers, ui
from sedimem.api.limits import BodyLimit
from sedimem.api.metrics import Backends, Metrics, MetricsMiddleware
from sedimem.api.openapi import build_openapi
from sedimem.api.routes import (
    admin,
    blocks,
    episodes,
    facts,
    gdpr,
    lifecycle,
    messages,
    ops,
    procedures,
    search,
    working,
)
from sedimem.api.state import AppState
from sedimem.api.validation import reject_unknown_query
from sedimem.api.wire import NoSniff, ValidText
from sedimem.config import Settings
from sedimem.memory import Memory

__all__ = ["SedimemAPI", "create_app"]

_DESCRIPTION = """\
Layered memory for AI agents: working memory per session, episodes, bi-temporal facts,
procedures, pinned blocks, context assembly, GDPR erasure and export.

Every `/v1` route except `/v1/keys` takes an API key (`Authorization: Bearer sdm_...`);
the key decides the tenant. Errors are `application/problem+json`.
"""


class SedimemAPI(FastAPI):
    """A FastAPI app whose OpenAPI document lists the problem responses of every route."""

    def openapi(self) -> dict[str, Any]:
        if self.openapi_schema is None:
            self.openapi_schema = build_openapi(self)
        return self.openapi_schema


def create_app(memory: Memory, settings: Settings) -> FastAPI:
    """A REST app serving ``memory`` with the limits of ``settings.server``."""
    backends = Backends(memory.working_store.name, memory.longterm_store.name)
    working_store = memory.working_store
    metrics = Metrics(backends, lambda: working_store.using_fallback, memory.model_usage)
    metrics.watch(memory)

    app = SedimemAPI(
        title="sedimem",
        version=__version__,
        summary="Layered memory for AI agents",
        description=_DESCRIPTION,
        openapi_url="/openapi.json",
        docs_url=None,  # served from the package by docs_pages, not from a CDN
        redoc_url=None,
        dependencies=[Depends(reject_unknown_query)],
    )
    app.state.sedimem = AppState(memory=memory, settings=settings, metrics=metrics)
    handlers.install(app)
    docs_pages.install(app)
    ui.install(app)
    # added last = outermost: metrics see every answer, the 413s included
    app.add_middleware(BodyLimit, max_bytes=settings.server.max_body_bytes)
    app.add_middleware(ValidText)
    app.add_middleware(MetricsMiddleware, metrics=metrics)
    app.add_middleware(NoSniff)

    app.include_router(ops.probes)
    app.include_router(admin.router)
    app.include_router(working.listing)
    app.include_router(working.router)
    app.include_router(lifecycle.router)
    app.include_router(episodes.router(settings.server.max_page_size))
    app.include_router(facts.router)
    app.include_router(messages.router)
    app.include_router(procedures.router)
    app.include_router(search.router)
    app.include_router(blocks.router)
    app.include_router(gdpr.router)
    app.include_router(ops.router)
    return app
