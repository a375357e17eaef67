"""Where the journeys keep their memory: fresh, empty stores of one backend on demand.

``sqlite``: one file per store (working and long-term memory in the same file, the embedded
default). ``redis+postgres``: a database of its own on the shared Redis server (by index) and
a fresh PostgreSQL database (copied from the schema template) on the shared PostgreSQL server.
Everything created is removed by :meth:`Stores.close`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tests.fixtures.postgres import create_database, drop_database

if TYPE_CHECKING:
    from sedimem.testing.postgres_server import PostgresServer
    from sedimem.testing.redis_server import RedisServer

__all__ = ["StoreUrls", "Stores"]

#: Redis's default number of databases; index 0 is left to the other test modules.
_REDIS_DATABASES = 16


@dataclass(frozen=True, slots=True)
class StoreUrls:
    working: str
    store: str


@dataclass
class Stores:
    """Hands out empty stores of ``backend`` and removes them at the end."""

    backend: str
    directory: Path
    redis: RedisServer | None = None
    postgres: PostgresServer | None = None
    _databases: list[str] = field(default_factory=list)
    _counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def new(self) -> StoreUrls:
        n = next(self._counter)
        if self.backend == "sqlite":
            url = f"sqlite:///{self.directory / f'store-{n}.db'}"
            return StoreUrls(url, url)
        assert self.redis is not None
        assert self.postgres is not None
        if n >= _REDIS_DATABASES:
            raise RuntimeError(f"the journeys asked for more than {_REDIS_DATABASES - 1} stores")
        working = self.redis.url.rsplit("/", 1)[0] + f"/{n}"
        _flush(working)
        name = create_database(self.postgres)
        self._databases.append(name)
        return StoreUrls(working, self.postgres.url_for(name))

    def close(self) -> None:
        if self.postgres is not None:
            for name in self._databases:
                drop_database(self.postgres, name)
        self._databases.clear()


def _flush(url: str) -> None:
    """Empty one Redis database (a previous run's leftovers)."""
    from redis import Redis

    client = Redis.from_url(url)
    try:
        client.flushdb()
    finally:
        client.close()
