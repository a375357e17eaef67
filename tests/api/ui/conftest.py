"""One real ``sedimem serve`` with seeded data and one Chromium per test module.

Playwright (PyPI) drives Debian's ``chromium`` package (``scripts/install_services.sh``
installs it, as it installs redis-server); Playwright's own browser download is not used.
Without chromium the browser tests are skipped locally and fail in CI.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sedimem.testing import SedimemServer
from tests.api.ui.seed import ADMIN, Seeded, seed
from tests.fixtures.services import unavailable

CHROMIUM = Path(os.environ.get("SEDIMEM_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Where the screenshots of each view go: SEDIMEM_UI_SCREENSHOTS (docs/images to refresh
#: the documentation's), else a directory of the test session's own.
SCREENSHOTS = "SEDIMEM_UI_SCREENSHOTS"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - the dev extra installs it
        unavailable(f"playwright: {exc}")
    if not CHROMIUM.exists():
        unavailable(f"chromium: {CHROMIUM} is missing (scripts/install_services.sh installs it)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def seeded() -> Iterator[Seeded]:
    with SedimemServer(env={"SEDIMEM_ADMIN_KEY": ADMIN}) as server:
        yield seed(server)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh tab (its own session storage) of the module's browser."""
    context = browser.new_context(viewport={"width": 1100, "height": 800})
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    errors: list[str] = []
    tab.on("pageerror", lambda error: errors.append(str(error)))
    yield tab
    context.close()
    assert errors == [], errors  # no script error on any page the test opened


@pytest.fixture(scope="session")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    chosen = os.environ.get(SCREENSHOTS)
    where = Path(chosen) if chosen else tmp_path_factory.mktemp("inspector-screenshots")
    where.mkdir(parents=True, exist_ok=True)
    return where
