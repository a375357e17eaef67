"""The Redis client a store talks through: standalone or Cluster, chosen by the URL.

Both kinds are built without client-side retries (a retried write whose reply was lost
would run twice; the outage fallback decides instead). A Cluster client routes by the
command's name and reads its slot map before each command, so the store sees one
``execute(*command)`` either way.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ClusterDownError, RedisClusterException, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from sedimem.errors import ConfigurationError

__all__ = ["CLUSTER_SCHEMES", "UNAVAILABLE", "connect", "executor", "named", "torn_down"]

#: URL schemes of a Redis Cluster (any node's address seeds the client's slot map)
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
#: Errors meaning "not reachable now": the fallback serves the call. On a Cluster these
#: include a slot without a master (failover under way) and a slot being migrated. A
#: RedisClusterException (no node known for a slot, say) is not a RedisError.
UNAVAILABLE = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterDownError,
    TryAgainError,
    RedisClusterException,
)


def torn_down(exc: BaseException) -> bool:
    """True for a Cluster command whose connection the client closed under it.

    redis-py's Cluster client, reading a new slot map after a failover, closes connections
    another command is still opening or using; that command then fails inside the client
    with an ``AttributeError`` on the closed stream (``'NoneType' object has no attribute
    'writelines'``) instead of a ``ConnectionError``. Its reply never arrived, exactly as
    when a connection drops, so the store treats it as unavailable too.
    """
    return isinstance(exc, AttributeError) and "'NoneType' object" in str(exc)


def connect(url: str) -> Redis | RedisCluster:
    """A client with its own connection pool; options in the URL's query win.

    ``redis+cluster://host:port`` (or ``rediss+cluster://``) opens a Redis Cluster client
    seeded by that node; it follows MOVED / ASK redirections (a redirected command never
    ran) and, like the standalone client, never retries a command after a connection error.
    """
    scheme, sep, rest = url.partition("://")
    cluster = bool(sep) and scheme in CLUSTER_SCHEMES
    options: dict[str, Any] = {
        "decode_responses": True,
        # Generous enough for a loaded host: a burst of new connections whose SYN is dropped
        # is retransmitted after 1 s and again after 3 s. A refused connection fails at once.
        "socket_connect_timeout": 5.0,
        "socket_timeout": 5.0,
        # Stale pooled connections are dropped after a connection error instead.
        "retry": Retry(NoBackoff(), 0),
    }
    try:
        if cluster:
            return RedisCluster.from_url(f"{CLUSTER_SCHEMES[scheme]}://{rest}", **options)
        return Redis.from_url(url, **options)
    except (ValueError, RedisClusterException) as exc:
        raise ConfigurationError(f"invalid Redis URL {url!r}: {exc}") from exc


def executor(client: Redis | RedisCluster) -> Callable[..., Awaitable[Any]]:
    """``client.execute_command``, bound once (the hot path skips an attribute lookup);
    for a Cluster, wrapped to name the command as text and to read the slot map first."""
    if not isinstance(client, RedisCluster):
        return client.execute_command
    execute, initialize = client.execute_command, client.initialize

    async def routed(*command: Any, **options: Any) -> Any:
        # Read the slot map before the command, not lazily inside it: concurrent commands
        # racing the client's own first initialisation lose connections.
        await initialize()
        return await execute(*named(command), **options)

    return routed


def named(command: Sequence[Any]) -> tuple[Any, ...]:
    """The command with its name as text (commands.py spells the hot ones as bytes)."""
    name = command[0]
    return (name.decode() if isinstance(name, bytes) else name, *command[1:])
