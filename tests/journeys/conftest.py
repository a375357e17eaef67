"""Every journey runs six ways: {SQLite, Redis + PostgreSQL} x {Python, REST, MCP}.

One ``sedimem serve`` process per backend is shared by the REST and MCP runs of every
journey (a package-scoped fixture); the Python runs share one pair of stores per backend.
Each run acts for a tenant of its own, so runs never see each other's memories.

A journey asks for ``drive`` and opens its driver inside the test
(``async with drive() as d:``): an MCP client session must be entered and left in one task.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import pytest

from tests.journeys.backends import Stores, StoreUrls
from tests.journeys.drivers.base import Driver
from tests.journeys.drivers.mcp import McpDriver
from tests.journeys.drivers.python import PythonDriver
from tests.journeys.drivers.rest import RestDriver, Served

Drive = Callable[[], AbstractAsyncContextManager[Driver]]


@pytest.fixture(
    scope="package",
    params=[
        "sqlite",
        pytest.param("redis+postgres", marks=[pytest.mark.redis, pytest.mark.postgres]),
    ],
)
def stores(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stores]:
    directory = tmp_path_factory.mktemp("journeys")
    if request.param == "sqlite":
        made = Stores("sqlite", directory)
    else:
        made = Stores(
            "redis+postgres",
            directory,
            redis=request.getfixturevalue("redis_server"),
            postgres=request.getfixturevalue("postgres_server"),
        )
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(scope="package")
def python_stores(stores: Stores) -> StoreUrls:
    return stores.new()


@pytest.fixture(scope="package")
def served(stores: Stores) -> Iterator[Served]:
    running = Served.start(stores.new())
    try:
        yield running
    finally:
        running.close()


@pytest.fixture(params=["python", "rest", "mcp"])
def interface(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def drive(interface: str, stores: Stores, request: pytest.FixtureRequest) -> Iterator[Drive]:
    tenant = f"journey-{uuid.uuid4().hex[:12]}"
    served: Served | None = None
    urls: StoreUrls | None = None
    if interface == "python":
        urls = request.getfixturevalue("python_stores")
    else:
        served = request.getfixturevalue("served")

    @asynccontextmanager
    async def open_driver() -> AsyncIterator[Driver]:
        driver: Driver
        if served is None:
            assert urls is not None
            driver = await PythonDriver(stores, urls, tenant).open()
        else:
            rest = RestDriver(served, stores, tenant, served.new_key(tenant))
            driver = rest if interface == "rest" else McpDriver(rest)
        try:
            yield driver
        finally:
            await driver.aclose()

    yield open_driver
    if served is not None and not served.server.running:  # a restart failed half-way
        served.server.start()
