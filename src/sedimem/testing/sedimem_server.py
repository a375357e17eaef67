"""``sedimem serve`` as a real process on a loopback port, for end-to-end tests.

Agent developers can drive their own integration tests against it the same way:
``with SedimemServer(env={...}) as server: httpx.get(server.url + "/healthz")``.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Self

from sedimem.errors import StoreUnavailable
from sedimem.testing.process import LOOPBACK, ServerProcess, free_port

__all__ = ["SedimemServer"]

_KEY = re.compile(r"\bsdm_[A-Za-z0-9_-]{20,}")


def _live_members(group: int) -> bool:
    """Whether a process of ``group`` is still running (not a zombie), per /proc."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue  # gone meanwhile
        if int(fields[2]) == group and fields[0] != "Z":
            return True
    return False


class SedimemServer(ServerProcess):
    """``python -m sedimem serve`` with ``SEDIMEM_HOME`` in a directory of its own.

    ``env`` adds to (or overrides) the environment: store URLs, ``SEDIMEM_ADMIN_KEY``.
    ``python`` is the interpreter to run (default: this one; another virtualenv's to test an
    installed wheel). The server runs in its home directory, so nothing depends on the
    caller's working directory. The home (and so the embedded store) is kept across restarts.
    ``workers`` is ``serve --workers``: that many processes behind the one port. They run in
    a process group of their own, so that :meth:`kill` (SIGKILL of the supervisor, which
    cannot pass it on) leaves no worker serving behind it.
    """

    label = "sedimem serve"
    stop_signal = signal.SIGINT  # uvicorn's graceful shutdown
    not_ready = "did not answer GET /healthz"

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        startup_timeout: float = 60.0,
        python: str | os.PathLike[str] | None = None,
        workers: int = 1,
    ) -> None:
        super().__init__(startup_timeout=startup_timeout)
        self.workers = workers
        self._env = dict(env or {})
        self._python = str(python) if python is not None else sys.executable

    @property
    def url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def home(self) -> Path:
        if self._dir is None:
            raise StoreUnavailable(f"the {self.label} was never started")
        return self._dir

    @property
    def output(self) -> str:
        """Everything the server printed so far (stdout and stderr)."""
        path = self.home / "serve.log"
        return path.read_text(errors="replace") if path.exists() else ""

    @property
    def printed_key(self) -> str | None:
        """The API key the first start printed, if it created one."""
        found = _KEY.search(self.output)
        return found.group(0) if found else None

    def start(self) -> Self:
        if self.running:
            return self
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="sedimem-serve-"))
        if self._port is None:
            self._port = free_port()
        env = {**os.environ, "SEDIMEM_HOME": str(self._dir), **self._env}
        env.setdefault("COLUMNS", "200")  # keep printed keys and URLs on one line
        command = [self._python, "-m", "sedimem", "serve", "--port", str(self._port)]
        command += ["--host", LOOPBACK]
        if self.workers != 1:
            command += ["--workers", str(self.workers)]
        with (self._dir / "serve.log").open("ab") as log:
            self._process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
                cwd=self._dir,
                start_new_session=self.workers != 1,
            )
        self._wait_ready(self._healthy, lambda: self.output[-2000:].strip())
        return self

    def _end(self, sig: signal.Signals) -> None:
        group = self._process.pid if self._process is not None and self.workers != 1 else None
        super()._end(sig)
        if group is None:
            return
        deadline = time.monotonic() + self.end_timeout
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)  # workers the supervisor did not end
            while time.monotonic() < deadline:  # gone (or zombies: their sockets are shut)
                os.killpg(group, 0)
                if not _live_members(group):
                    return
                time.sleep(0.02)

    def _healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/healthz", timeout=1) as response:
                return bool(response.status == 200)
        except (urllib.error.URLError, OSError):
            return False
