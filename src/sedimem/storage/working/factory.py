"""Open a working store from a URL: ``memory://``, ``sqlite:///path``, ``redis://...`` or
``redis+cluster://host:port`` (a Redis Cluster, seeded by any of its nodes)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from sedimem.config import WorkingSettings
from sedimem.errors import ConfigurationError
from sedimem.storage.working.base import WorkingStore
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry

__all__ = ["open_working_store", "sqlite_path"]

_registries: dict[int, SessionRegistry] = {}
_fallback_registries: dict[tuple[str, int], SessionRegistry] = {}


def _registry(max_sessions: int) -> SessionRegistry:
    # one process-wide registry per bound, so every store opened with the same settings
    # shares its sessions
    if max_sessions not in _registries:
        _registries[max_sessions] = SessionRegistry(max_sessions)
    return _registries[max_sessions]


def sqlite_path(url: str) -> str:
    """The file of a ``sqlite:///path`` URL (``sqlite:///:memory:`` for a private database)."""
    parts = urlsplit(url)
    path = url[len("sqlite://") :]
    if parts.scheme != "sqlite" or not path.startswith("/") or path == "/":
        raise ConfigurationError(f"not a SQLite URL: {url!r} (expected sqlite:///path/to/file.db)")
    path = path[1:] if path == "/:memory:" else path
    if path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    return path


async def open_working_store(url: str, settings: WorkingSettings | None = None) -> WorkingStore:
    """A ready store for ``url``; Redis gets the in-process fallback unless disabled."""
    settings = settings or WorkingSettings()
    scheme = urlsplit(url).scheme
    if scheme == "memory":
        return InProcessWorkingStore(_registry(settings.max_sessions_in_process))
    if scheme == "sqlite":
        from sedimem.storage.working.sqlite import SqliteWorkingStore

        return await SqliteWorkingStore.open(sqlite_path(url), settings=settings)
    if scheme in ("redis", "rediss", "unix", "redis+cluster", "rediss+cluster"):
        from sedimem.storage.working.redis import RedisWorkingStore

        redis_store = RedisWorkingStore.from_url(url)
        if not settings.fallback:
            return redis_store
        from sedimem.storage.working.fallback import FallbackWorkingStore

        # a registry of its own per Redis URL: recovery drops the outage's sessions from it,
        # which must never touch a memory:// session or another Redis's fallback
        key = (url, settings.max_sessions_in_process)
        if key not in _fallback_registries:
            _fallback_registries[key] = SessionRegistry(settings.max_sessions_in_process)
        fallback = InProcessWorkingStore(_fallback_registries[key])
        return await FallbackWorkingStore.start(redis_store, fallback, settings=settings)
    raise ConfigurationError(
        f"unsupported working-memory URL scheme {scheme!r} in {url!r}",
    )
