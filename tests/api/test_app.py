"""The ``create_app`` contract: a pure REST app over a Memory the caller owns."""

from __future__ import annotations

import ast
from pathlib import Path

import httpx
from fastapi import FastAPI

import sedimem.api
from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.memory import Memory

API = Path(sedimem.api.__file__).parent


async def test_create_app_leaves_the_memory_open(memory: Memory, settings: Settings) -> None:
    app = create_app(memory, settings)
    assert isinstance(app, FastAPI)
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        assert (await client.get("/healthz")).status_code == 200
    # the caller still owns it: it answers after the client is gone
    assert await memory.keys.count() == 0


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_api_reaches_no_store_and_no_other_interface() -> None:
    for path in API.rglob("*.py"):
        for name in _imports(path):
            assert not name.startswith("sedimem.storage"), (path, name)
            assert name.split(".")[:2] not in (
                ["sedimem", "mcp"],
                ["sedimem", "cli"],
                ["sedimem", "server"],
            ), (path, name)


async def test_the_app_speaks_lifespan(app: FastAPI) -> None:
    """Servers open with a lifespan exchange; every middleware passes it through."""
    sent: list[dict[str, object]] = []
    messages = iter([{"type": "lifespan.startup"}, {"type": "lifespan.shutdown"}])

    async def receive() -> dict[str, object]:
        return next(messages)

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    await app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, receive, send)
    assert [m["type"] for m in sent] == [
        "lifespan.startup.complete",
        "lifespan.shutdown.complete",
    ]
