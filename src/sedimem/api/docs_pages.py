"""``/docs`` and ``/redoc`` served from installed files: no CDN, so they work offline.

FastAPI's own pages load Swagger UI and ReDoc from a CDN, which an air-gapped deployment (or a
laptop on a train) cannot reach. The ``fastapi-offline`` package carries the same assets; we
serve them under ``/docs/static`` and point FastAPI's page builders at them. The Swagger
validator badge is switched off: it would send the spec to an outside service.

Each page carries a Content-Security-Policy allowing this server only: its scripts, plus
the one inline script each page is built with, allowed by its SHA-256 (nothing else inline
runs); styles may be inline (ReDoc writes its styles at run time, and a style runs no code);
images may be data: URLs (Swagger's icons); ReDoc's search may run in a blob: worker.
"""

from __future__ import annotations

import base64
import hashlib
import re
from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.responses import HTMLResponse

__all__ = ["DOCS_URL", "REDOC_URL", "STATIC_URL", "install"]

DOCS_URL = "/docs"
REDOC_URL = "/redoc"
STATIC_URL = "/docs/static"
_OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"
_ASSETS = files("fastapi_offline") / "static"
_INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.DOTALL)


def csp_for(html: str) -> str:
    """The Content-Security-Policy of a page: this server, and its inline scripts by hash."""
    hashes = " ".join(
        f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'"
        for s in _INLINE_SCRIPT.findall(html)
    )
    return (
        f"default-src 'self'; script-src 'self'{' ' + hashes if hashes else ''}; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
        "connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; "
        "frame-ancestors 'none'; form-action 'self'"
    )


def _secured(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = csp_for(bytes(page.body).decode())
    page.headers["Referrer-Policy"] = "no-referrer"
    return page


def install(app: FastAPI) -> None:
    """Add the two documentation pages and their assets to ``app`` (built with
    ``docs_url=None, redoc_url=None``)."""
    app.mount(STATIC_URL, StaticFiles(directory=str(_ASSETS)), name="docs-static")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(DOCS_URL, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _secured(
            get_swagger_ui_html(
                openapi_url=f"{root}{openapi_url}",
                title=f"{app.title} - Swagger UI",
                oauth2_redirect_url=f"{root}{_OAUTH2_REDIRECT_URL}",
                swagger_js_url=f"{root}{STATIC_URL}/swagger-ui-bundle.js",
                swagger_css_url=f"{root}{STATIC_URL}/swagger-ui.css",
                swagger_favicon_url=f"{root}{STATIC_URL}/favicon.png",
                swagger_ui_parameters={"validatorUrl": None},
            )
        )

    @app.get(_OAUTH2_REDIRECT_URL, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return _secured(get_swagger_ui_oauth2_redirect_html())

    @app.get(REDOC_URL, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return _secured(
            get_redoc_html(
                openapi_url=f"{root}{openapi_url}",
                title=f"{app.title} - ReDoc",
                redoc_js_url=f"{root}{STATIC_URL}/redoc.standalone.js",
                redoc_favicon_url=f"{root}{STATIC_URL}/favicon.png",
                with_google_fonts=False,
            )
        )
