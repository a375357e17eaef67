"""``/ui`` is served from the package, loads nothing from another host, and asks for a key."""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path

import httpx

from sedimem.api.ui import CSP
from tests.fixtures.offline import external_references, references

_STATIC = files("sedimem.api.ui") / "static"
_DOCS = Path(__file__).resolve().parents[3] / "docs"


async def _fetch(client: httpx.AsyncClient, path: str) -> tuple[int, str, str]:
    response = await client.get(path)
    return response.status_code, response.headers.get("content-type", ""), response.text


async def test_the_page_and_every_asset_stay_on_this_server(client: httpx.AsyncClient) -> None:
    fetched, external = await external_references(lambda p: _fetch(client, p), "/ui", scripts=True)
    assert external == []
    # the walk reached every module of the package, through the imports a browser follows
    modules = {
        f"/ui/static/{p.name}" for p in _STATIC.iterdir() if p.name.endswith((".js", ".css"))
    }
    modules |= {f"/ui/static/views/{p.name}" for p in (_STATIC / "views").iterdir()}
    assert modules <= set(fetched), modules - set(fetched)


async def test_the_page_asks_for_a_key_and_forbids_other_hosts(client: httpx.AsyncClient) -> None:
    page = await client.get("/ui")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<input id="key" type="password"' in page.text
    # no name: a plain form submission (before the script runs) sends the key nowhere
    assert 'name="key"' not in page.text
    assert page.headers["content-security-policy"] == CSP
    assert "default-src 'self'" in CSP
    assert "connect-src 'self'" in CSP
    asset = await client.get("/ui/static/app.js")
    assert asset.status_code == 200
    assert "javascript" in asset.headers["content-type"]
    assert asset.headers["content-security-policy"] == CSP
    assert "sessionStorage" in (await client.get("/ui/static/api.js")).text


async def test_a_trailing_slash_leads_to_the_page(client: httpx.AsyncClient) -> None:
    response = await client.get("/ui/")
    assert response.status_code == 308
    assert response.headers["location"] == "/ui"


async def test_the_page_needs_no_key_but_the_api_does(client: httpx.AsyncClient) -> None:
    # the page itself holds no data; everything it shows comes from /v1 with the key
    assert (await client.get("/ui")).status_code == 200
    assert (await client.get("/v1/keys/self")).status_code == 401


def test_script_imports_are_references() -> None:
    js = 'import { a } from "./a.js";\nimport "./b.js";\nfetch("https://cdn.test/x");'
    assert references(js, "text/javascript", scripts=True) == [
        "./a.js",
        "./b.js",
        "https://cdn.test/x",
    ]
    assert (
        references('const NS = "http://www.w3.org/2000/svg";', "text/javascript", scripts=True)
        == []
    )


def test_the_documentation_shows_a_screenshot_of_every_view() -> None:
    views = re.findall(r'<a href="#/(\w+)">', (_STATIC / "index.html").read_text())
    assert len(views) >= 10  # the navigation lists every view
    page = (_DOCS / "inspector.md").read_text()
    shown = re.findall(r"!\[[^\]]*\]\(images/inspector-([\w-]+)\.png\)", page)
    assert set(views) <= set(shown), set(views) - set(shown)
    for name in shown:
        assert (_DOCS / "images" / f"inspector-{name}.png").stat().st_size > 10_000, name
