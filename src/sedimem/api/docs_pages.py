"""``/docs`` and ``/redoc`` served from installed files: no CDN, so they work offline.

FastAPI's own pages load Swagger UI and ReDoc from a CDN, which an air-gapped deployment (or a
laptop on a train) cannot reach. The ``fastapi-offline`` package carries the same assets; we
serve them under ``/docs/static`` and point FastAPI's page builders at them. The Swagger
validator badge is switched off: it would send the spec to an outside service.
"""

from __future__ import annotations

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


def install(app: FastAPI) -> None:
    """Add the two documentation pages and their assets to ``app`` (built with
    ``docs_url=None, redoc_url=None``)."""
    app.mount(STATIC_URL, StaticFiles(directory=str(_ASSETS)), name="docs-static")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(DOCS_URL, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=f"{root}{_OAUTH2_REDIRECT_URL}",
            swagger_js_url=f"{root}{STATIC_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{STATIC_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{STATIC_URL}/favicon.png",
            swagger_ui_parameters={"validatorUrl": None},
        )

    @app.get(_OAUTH2_REDIRECT_URL, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get(REDOC_URL, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{STATIC_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{STATIC_URL}/favicon.png",
            with_google_fonts=False,
        )
