"""/docs and /redoc under their Content-Security-Policy, in a real browser: every script
they need runs, nothing is refused, and an injected inline script would not run."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.ui.seed import Seeded


@pytest.mark.parametrize(
    ("path", "rendered"), [("/docs", ".opblock"), ("/redoc", "[role=search], .menu-content")]
)
def test_the_docs_pages_render_under_their_policy(
    page: Any, seeded: Seeded, path: str, rendered: str
) -> None:
    refused: list[str] = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    response = page.goto(seeded.url + path)
    policy = response.headers["content-security-policy"]
    assert "default-src 'self'" in policy
    assert "script-src 'self'" in policy
    assert response.headers["x-content-type-options"] == "nosniff"
    # a loaded machine may take a while to build and render the whole OpenAPI document
    page.wait_for_selector(rendered, state="attached", timeout=90_000)
    # an inline script the page was not built with is refused
    page.evaluate(
        "() => { const s = document.createElement('script');"
        " s.textContent = 'window.injected = true'; document.body.appendChild(s); }"
    )
    assert page.evaluate("() => window.injected === true") is False
    # refused: the injected script, and what would leave the server (ReDoc's logo from its
    # CDN: the policy keeps the page offline); nothing of the server's own
    own = [r for r in refused if "inline script" not in r and "'https://" not in r]
    assert own == [], own
