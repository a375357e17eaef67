"""A throwaway Redis Cluster on loopback: 3 masters and 3 replicas, for tests.

Six :class:`RedisServer` processes with ``--cluster-enabled yes`` (a node timeout of one
second, so a killed master's replica takes over within a few seconds), joined by
``redis-cli --cluster create ... --cluster-replicas 1``. Like :mod:`.redis_server`, it
needs no Redis client: readiness is read from ``CLUSTER INFO`` over a plain socket.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from typing import Self

from sedimem.errors import StoreUnavailable
from sedimem.testing.process import LOOPBACK
from sedimem.testing.redis_server import RedisServer, find_redis_server

__all__ = ["RedisCluster", "find_redis_cli"]

_ENV_CLI = "SEDIMEM_REDIS_CLI"


def find_redis_cli() -> str | None:
    """The redis-cli binary: ``$SEDIMEM_REDIS_CLI``, else the one on ``PATH``."""
    configured = os.environ.get(_ENV_CLI)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("redis-cli")


def ask(port: int, *words: str) -> str:
    """One command's reply as text (simple or bulk string), over a plain socket."""
    request = f"*{len(words)}\r\n" + "".join(f"${len(w)}\r\n{w}\r\n" for w in words)
    with socket.create_connection((LOOPBACK, port), timeout=2.0) as sock:
        sock.sendall(request.encode())
        data = b""
        while True:
            chunk = sock.recv(65536)
            data += chunk
            if not chunk or _complete(data):
                break
    return data.decode(errors="replace")


def _complete(data: bytes) -> bool:
    if data[:1] != b"$":
        return data.endswith(b"\r\n")
    header, _, body = data.partition(b"\r\n")
    return len(body) >= max(0, int(header[1:])) + 2


def cluster_info(port: int) -> dict[str, str]:
    """``CLUSTER INFO`` of one node as a dict (empty when it does not answer)."""
    try:
        text = ask(port, "CLUSTER", "INFO")
    except OSError:
        return {}
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def _synced(port: int) -> bool:
    """A master, or a replica whose link to its master is up."""
    try:
        text = ask(port, "INFO", "replication")
    except OSError:
        return False
    return "role:master" in text or "master_link_status:up" in text


class RedisCluster:
    """Six cluster nodes (3 masters, 3 replicas); ``nodes`` can be killed and restarted."""

    def __init__(self, *, size: int = 6, startup_timeout: float = 30.0) -> None:
        self.nodes = [RedisServer(cluster=True) for _ in range(size)]
        self._startup_timeout = startup_timeout

    @property
    def url(self) -> str:
        """A cluster URL for the working store: any node seeds the client's slot map (the
        first one running, so the URL still works after a node was killed)."""
        seed = next((n for n in self.nodes if n.running), self.nodes[0])
        return f"redis+cluster://{LOOPBACK}:{seed.port}"

    def start(self) -> Self:
        cli = find_redis_cli()
        if cli is None or find_redis_server() is None:
            raise StoreUnavailable(
                f"no redis-server / redis-cli binary: install Redis or set {_ENV_CLI}"
            )
        for node in self.nodes:
            node.start()
        addresses = [f"{LOOPBACK}:{node.port}" for node in self.nodes]
        done = subprocess.run(
            [cli, "--cluster", "create", *addresses, "--cluster-replicas", "1", "--cluster-yes"],
            capture_output=True,
            text=True,
            timeout=self._startup_timeout,
            check=False,
        )
        if done.returncode != 0:
            raise StoreUnavailable(f"redis-cli --cluster create failed: {done.stdout[-2000:]}")
        self.wait_healthy()
        return self

    def wait_healthy(self) -> None:
        """Wait until every running node reports ``cluster_state:ok`` and 3 masters, and
        every replica has synced with its master.

        A replica that never synced refuses to take over a dead master ("disconnected from
        master for longer than allowed"), so a master killed too early would stay down.
        """
        deadline = time.monotonic() + self._startup_timeout
        while time.monotonic() < deadline:
            running = [n for n in self.nodes if n.running]
            infos = [cluster_info(n.port) for n in running]
            if (
                infos
                and all(
                    i.get("cluster_state") == "ok" and i.get("cluster_size") == "3" for i in infos
                )
                and all(_synced(n.port) for n in running)
            ):
                return
            time.sleep(0.1)
        raise StoreUnavailable("the Redis Cluster did not reach cluster_state:ok")

    def role(self, node: RedisServer) -> str:
        """``master`` or ``slave``, as the node itself says."""
        text = ask(node.port, "ROLE")
        return "master" if "master" in text.split("\r\n", 3)[:3][-1] else "slave"

    def masters(self) -> list[RedisServer]:
        return [n for n in self.nodes if n.running and self.role(n) == "master"]

    def replicas(self) -> list[RedisServer]:
        return [n for n in self.nodes if n.running and self.role(n) == "slave"]

    def flush(self) -> None:
        """Empty every master (replicas follow)."""
        for node in self.masters():
            ask(node.port, "FLUSHALL")

    def close(self) -> None:
        for node in self.nodes:
            node.close()

    def __enter__(self) -> Self:
        try:
            return self.start()
        except BaseException:
            self.close()
            raise

    def __exit__(self, *exc: object) -> None:
        self.close()
