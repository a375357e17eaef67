"""Server processes the tests and benchmarks start: the scaffolding they share.

A subclass knows how to launch its server (:meth:`ServerProcess.start`) and how to tell
that it is ready; this base keeps the port and the working directory across restarts,
waits for readiness with a deadline (reporting the server's own output when it dies or
hangs), and ends the process with a signal, a bounded wait, then SIGKILL.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self

from sedimem.errors import StoreUnavailable

__all__ = ["ServerProcess", "end_process", "free_port"]

LOOPBACK = "127.0.0.1"


def end_process(
    process: subprocess.Popen[bytes] | None, sig: signal.Signals, *, timeout: float
) -> None:
    """Send ``sig`` and wait up to ``timeout`` seconds; kill the process if it lingers."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def free_port(host: str = LOOPBACK) -> int:
    """A port nothing listens on right now (another process may still take it first)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class ServerProcess:
    """One server process; ``start()`` / ``stop()`` / ``kill()`` / ``close()`` at will."""

    #: how the server is named in errors
    label: ClassVar[str] = "server"
    #: a clean shutdown, a crash, and how long either may take before SIGKILL
    stop_signal: ClassVar[signal.Signals] = signal.SIGTERM
    kill_signal: ClassVar[signal.Signals] = signal.SIGKILL
    end_timeout: ClassVar[float] = 10.0
    #: what the readiness check waits for, as said when it times out
    not_ready: ClassVar[str] = "did not become ready"

    def __init__(self, *, startup_timeout: float) -> None:
        self._startup_timeout = startup_timeout
        self._dir: Path | None = None
        self._port: int | None = None
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        if self._port is None:
            raise StoreUnavailable(f"the {self.label} was never started")
        return self._port

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self) -> Self:
        raise NotImplementedError

    def _wait_ready(self, ready: Callable[[], bool], output: Callable[[], str]) -> None:
        """Poll ``ready`` until it holds; fail with ``output()`` if the process dies or hangs."""
        process = self._process
        assert process is not None
        deadline = time.monotonic() + self._startup_timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                self._process = None
                raise StoreUnavailable(
                    f"{self.label} exited with code {process.returncode} on port "
                    f"{self._port}: {output() or 'no output'}"
                )
            if ready():
                return
            time.sleep(0.02)
        self.kill()
        raise StoreUnavailable(
            f"{self.label} {self.not_ready} on port {self._port} within "
            f"{self._startup_timeout:g} s: {output() or 'no output'}"
        )

    def _end(self, sig: signal.Signals) -> None:
        process, self._process = self._process, None
        end_process(process, sig, timeout=self.end_timeout)

    def stop(self) -> None:
        """Shut down cleanly."""
        self._end(self.stop_signal)

    def kill(self) -> None:
        """Shut down at once, as a crash would."""
        self._end(self.kill_signal)

    def restart(self) -> Self:
        """Stop and start again on the same port with the same data."""
        self.stop()
        return self.start()

    def close(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def __enter__(self) -> Self:
        try:
            return self.start()
        except BaseException:
            self.close()  # nothing is left behind by a server that failed to start
            raise

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
