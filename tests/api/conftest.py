"""The REST app in-process over a real Memory (SQLite by default), and keys to call it with."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from pydantic import SecretStr

from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory

ADMIN_KEY = "admin-key-for-the-tests"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path, admin_key=SecretStr(ADMIN_KEY))


@pytest.fixture
async def memory(tmp_path: Path, settings: Settings) -> AsyncIterator[Memory]:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    async with await Memory.open(url, embedder=HashEmbedder(64), settings=settings) as opened:
        yield opened


@pytest.fixture
def app(memory: Memory, settings: Settings) -> FastAPI:
    return create_app(memory, settings)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sedimem.test") as c:
        yield c


async def bearer(memory: Memory, tenant: str = "acme", **narrowing: str) -> dict[str, str]:
    """Headers carrying a new key of ``tenant`` (narrowed by ``narrowing``)."""
    issued = await memory.keys.create(tenant, **narrowing)
    return {"Authorization": f"Bearer {issued.secret}"}


@pytest.fixture
async def auth(memory: Memory) -> dict[str, str]:
    """A key of tenant ``acme``, narrowed to nothing."""
    return await bearer(memory)


def assert_problem(
    response: httpx.Response, status: int, field: str | None = None
) -> dict[str, object]:
    """The response is a problem+json of ``status`` (naming ``field`` when given)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["status"] == status
    assert {"type", "title", "status"} <= problem.keys()
    if field is not None:
        assert problem["field"] == field, problem
        assert problem.get("allowed"), problem
    return dict(problem)
