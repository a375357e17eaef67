"""The app of one ``serve --workers N`` worker, in-process: it opens the stores in its
lifespan (from SEDIMEM_*), serves REST and MCP around them, closes them at shutdown, and
reports a store that cannot open as a failed startup. (The workers as real processes:
tests/journeys/test_scale_out.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest

from sedimem.errors import ConfigurationError
from sedimem.server import worker_app


class Lifespan:
    """Drives an ASGI app's lifespan as a server does."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> dict[str, Any]:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
        self.task = asyncio.create_task(self.app(scope, self.inbox.get, self.outbox.put))
        await self.inbox.put({"type": "lifespan.startup"})
        return await self.outbox.get()

    async def stop(self) -> dict[str, Any]:
        await self.inbox.put({"type": "lifespan.shutdown"})
        answer = await self.outbox.get()
        assert self.task is not None
        await self.task
        return answer


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    monkeypatch.setenv("SEDIMEM_EMBEDDER", "hash")
    monkeypatch.setenv("SEDIMEM_ADMIN_KEY", "admin-secret-for-the-worker-app")
    return tmp_path


async def test_a_worker_opens_the_stores_serves_and_closes_them(home: Path) -> None:
    app = worker_app()
    lifespan = Lifespan(app)
    assert await lifespan.start() == {"type": "lifespan.startup.complete"}
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://worker") as client:
        assert (await client.get("/readyz")).json()["status"] == "ready"
        created = await client.post(
            "/v1/keys",
            json={"tenant": "acme"},
            headers={"Authorization": "Bearer admin-secret-for-the-worker-app"},
        )
        assert created.status_code == 201, created.text
    assert await lifespan.stop() == {"type": "lifespan.shutdown.complete"}
    assert (home / "sedimem.db").exists()  # the settings' home, read from the environment


async def test_a_store_that_cannot_open_fails_the_startup(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEDIMEM_WORKING_URL", "nosuch://store")
    app = worker_app()
    lifespan = Lifespan(app)
    answer = await lifespan.start()
    assert lifespan.task is not None
    await lifespan.task  # the app is done with its lifespan: nothing left open
    assert answer["type"] == "lifespan.startup.failed"
    assert "nosuch" in answer["message"]
    scope = {"type": "http", "method": "GET", "path": "/healthz"}
    with pytest.raises(ConfigurationError, match="not open"):
        await app(scope, None, None)  # type: ignore[arg-type]
