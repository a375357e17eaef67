"""The web inspector at ``/ui``: a few ES modules and one stylesheet, served from the package.

The page calls the public REST API (``/v1/...``) with the key the person enters, which the
browser keeps in ``sessionStorage`` (never in a URL). Nothing is loaded from another host:
the Content-Security-Policy allows this server only, so an offline or air-gapped deployment
shows the same page. No Node build step: the files under ``static/`` are what the browser
runs.
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.types import Scope

__all__ = ["ASSETS_URL", "UI_URL", "install"]

UI_URL = "/ui"
ASSETS_URL = "/ui/static"
_STATIC = files("sedimem.api.ui") / "static"

#: Only this server: scripts, styles, images and API calls; no framing by another site.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


class _Assets(StaticFiles):
    """The inspector's files, each answered with the page's security headers."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(_HEADERS)
        return response


def install(app: FastAPI) -> None:
    """Serve the inspector's page at ``/ui`` and its assets under ``/ui/static``."""
    app.mount(ASSETS_URL, _Assets(directory=str(_STATIC)), name="ui-static")

    @app.get(UI_URL, include_in_schema=False)
    async def inspector() -> FileResponse:
        return FileResponse(str(_STATIC / "index.html"), headers=_HEADERS)

    @app.get(UI_URL + "/", include_in_schema=False)
    async def inspector_slash(request: Request) -> RedirectResponse:
        root = request.scope.get("root_path", "")
        return RedirectResponse(f"{root}{UI_URL}", status_code=308)
