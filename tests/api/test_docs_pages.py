"""/docs and /redoc load every asset from the server itself: they work offline."""

from __future__ import annotations

import httpx
import pytest

from tests.fixtures.offline import external_references, references


def _fetcher(client: httpx.AsyncClient):  # type: ignore[no-untyped-def]
    async def fetch(path: str) -> tuple[int, str, str]:
        response = await client.get(path)
        return response.status_code, response.headers.get("content-type", ""), response.text

    return fetch


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
async def test_docs_pages_reference_no_external_url(client: httpx.AsyncClient, page: str) -> None:
    fetched, external = await external_references(_fetcher(client), page)
    assert external == []
    assert any(path.endswith(".js") for path in fetched)  # the page really loads its script
    assert "/openapi.json" in fetched


async def test_swagger_assets_are_served_with_their_types(client: httpx.AsyncClient) -> None:
    page = await client.get("/docs")
    assert page.status_code == 200
    scripts = [r for r in references(page.text, "text/html") if r.endswith(".js")]
    assert scripts
    for script in scripts:
        asset = await client.get(script)
        assert asset.status_code == 200
        assert "javascript" in asset.headers["content-type"]
        assert len(asset.content) > 100_000  # the real bundle, not a placeholder
    css = await client.get("/docs/static/swagger-ui.css")
    assert css.status_code == 200
    assert css.headers["content-type"].startswith("text/css")


def test_references_finds_what_a_browser_loads() -> None:
    html = '<link href="https://cdn.example/x.css"><script src="/a.js"></script><a href="#top">'
    assert references(html, "text/html") == ["https://cdn.example/x.css", "/a.js"]
    assert references("a{background:url('x.png')} b{background:url(data:x)}", "text/css") == [
        "x.png"
    ]


async def test_an_external_reference_is_reported() -> None:
    pages = {
        "/p": (200, "text/html", '<script src="/s.css"></script><img src="//cdn.test/i.png">'),
        "/s.css": (200, "text/css", "a{background:url(https://fonts.test/f.woff)}"),
    }

    async def fetch(path: str) -> tuple[int, str, str]:
        return pages[path]

    fetched, external = await external_references(fetch, "/p")
    assert fetched == ["/p", "/s.css"]
    assert sorted(external) == ["//cdn.test/i.png", "https://fonts.test/f.woff"]
