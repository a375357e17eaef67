"""A throwaway ``redis-server`` on a loopback port, for tests and benchmarks.

The server runs in its own temporary directory with an append-only file fsynced on every
write and no RDB snapshots, so :meth:`RedisServer.kill` (SIGKILL) loses no acknowledged
write and :meth:`RedisServer.start` brings the same data back on the same port
(``durable=False`` turns the file off, for benchmarks that should not measure the disk).
The readiness check speaks RESP over a plain socket, so this module needs no Redis client.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Self

from sedimem.errors import StoreUnavailable
from sedimem.testing.process import LOOPBACK, ServerProcess, free_port

__all__ = ["RedisServer", "find_redis_server"]

_ENV_BINARY = "SEDIMEM_REDIS_SERVER"
_HOST = LOOPBACK
# how long a cluster node may be silent before its replica takes over (ms)
_NODE_TIMEOUT_MS = 1000


def find_redis_server() -> str | None:
    """The redis-server binary: ``$SEDIMEM_REDIS_SERVER``, else the one on ``PATH``."""
    configured = os.environ.get(_ENV_BINARY)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    return shutil.which("redis-server")


def _cluster_port() -> int:
    """A free port whose cluster bus port (+10000) is free and in range too."""
    for _ in range(200):
        port = free_port()
        if port > 55535:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind((_HOST, port + 10000))
            except OSError:
                continue
        return port
    raise StoreUnavailable("no free port pair for a Redis Cluster node")


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection((_HOST, port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            # "-LOADING ..." while the AOF is replayed: not ready yet
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer(ServerProcess):
    """One ``redis-server`` process; ``start()`` / ``stop()`` / ``kill()`` as often as needed.

    The port and the data directory are chosen once and kept across restarts. ``stop`` is
    SIGTERM (Redis flushes the append-only file and exits), ``kill`` SIGKILL.
    """

    label = "redis-server"
    not_ready = "did not answer PING"

    def __init__(
        self,
        binary: str | None = None,
        *,
        startup_timeout: float = 10.0,
        durable: bool = True,
        cluster: bool = False,
    ) -> None:
        super().__init__(startup_timeout=startup_timeout)
        self._binary = binary or find_redis_server()
        # durable=False: no append-only file (benchmarks that must not measure the disk)
        self._durable = durable
        # cluster=True: a Redis Cluster node (see redis_cluster.py), failing over in ~1 s
        self._cluster = cluster

    @property
    def url(self) -> str:
        return f"redis://{_HOST}:{self.port}/0"

    def start(self) -> Self:
        """Start the server (on the port and directory of the previous run, if any)."""
        if self.running:
            return self
        if self._binary is None:
            raise StoreUnavailable(
                f"no redis-server binary: install one or set {_ENV_BINARY} to its path"
            )
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="sedimem-redis-"))
        if self._port is None:
            self._port = _cluster_port() if self._cluster else free_port()
        log = self._dir / "redis.log"
        command = [
            self._binary,
            "--port", str(self._port),
            "--bind", _HOST,
            "--dir", str(self._dir),
            "--save", "",
            "--appendonly", "yes" if self._durable else "no",
            "--appendfsync", "always",
            "--daemonize", "no",
            "--logfile", str(log),
        ]  # fmt: skip
        if self._cluster:
            command += [
                "--cluster-enabled", "yes",
                "--cluster-config-file", "nodes.conf",
                "--cluster-node-timeout", str(_NODE_TIMEOUT_MS),
            ]  # fmt: skip
        # a file, not a pipe: a pipe nobody reads could fill up and stall the server
        with (self._dir / "stderr.log").open("ab") as stderr:
            try:
                self._process = subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=stderr
                )
            except OSError as exc:
                raise StoreUnavailable(f"cannot run {self._binary}: {exc}") from exc
        self._wait_ready(lambda: _answers_ping(self.port), lambda: self._output(log))
        return self

    def _output(self, log: Path) -> str:
        assert self._dir is not None
        texts = (
            p.read_text(errors="replace") for p in (self._dir / "stderr.log", log) if p.exists()
        )
        return "".join(texts)[-2000:].strip()
