"""A throwaway streaming replica of a :class:`~sedimem.testing.postgres_server.PostgresServer`.

:meth:`PostgresReplica.start` copies the primary with ``pg_basebackup -R`` (which writes the
``primary_conninfo`` and ``standby.signal`` of a standby) on the first start, then runs the
copy as a hot standby streaming from the primary. A test can then stop it
(:meth:`~PostgresReplica.stop`), make it lag (:meth:`~PostgresReplica.pause_replay`: it keeps
receiving WAL and applies none), or promote it to a primary
(:meth:`~PostgresReplica.promote`).

A replica made with ``synchronous=True`` is named in the primary's
``synchronous_standby_names``: from then on every commit on the primary waits until the
replica has applied it (``synchronous_commit = remote_apply``), so an acknowledged write
survives the primary's loss once the replica is promoted.
"""

from __future__ import annotations

import subprocess
import uuid
from typing import Any, Self

from sedimem.errors import StoreUnavailable
from sedimem.testing.postgres_server import PostgresServer

__all__ = ["PostgresReplica", "execute"]


def execute(url: str, statement: str) -> list[tuple[Any, ...]]:
    """Run one statement in autocommit on ``url``; its rows (none for a command)."""
    import psycopg  # lazily: the postgres extra is optional

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        cursor = conn.execute(statement.encode())
        return cursor.fetchall() if cursor.description is not None else []


class PostgresReplica(PostgresServer):
    """A hot standby streaming from ``primary`` (which must be running at the first start)."""

    label = "postgres replica"

    def __init__(self, primary: PostgresServer, *, synchronous: bool = False) -> None:
        self.name = f"replica_{uuid.uuid4().hex[:8]}"
        # the walreceiver's application_name is the cluster_name: the primary names it so
        # no synchronous standby of its own: promoted, it must not wait for one (and the
        # primary's postgresql.auto.conf, which the copy holds, may name one)
        settings = {**primary._settings, "cluster_name": self.name}
        settings["synchronous_standby_names"] = ""
        super().__init__(primary._bin, settings=settings)
        self._primary = primary
        self._synchronous = synchronous

    def start(self) -> Self:
        super().start()
        if self._synchronous and self._primary.running:
            primary = self._primary.url
            execute(primary, f"ALTER SYSTEM SET synchronous_standby_names = '\"{self.name}\"'")
            execute(primary, "ALTER SYSTEM SET synchronous_commit = 'remote_apply'")
            execute(primary, "SELECT pg_reload_conf()")
        return self

    def _initdb(self) -> None:
        """A copy of the primary, set up as its standby (instead of a new cluster)."""
        assert self._bin is not None
        assert self._dir is not None
        command = [str(self._bin / "pg_basebackup"), "-D", str(self._dir / "data")]
        command += ["-h", "127.0.0.1", "-p", str(self._primary.port), "-U", "postgres"]
        command += ["-R", "-X", "stream", "-c", "fast", "--no-sync"]
        process = self._spawn(command, stdout=subprocess.PIPE)
        output, _ = process.communicate(timeout=300)
        if process.returncode != 0:
            raise StoreUnavailable(
                f"pg_basebackup failed with code {process.returncode}: "
                f"{output.decode(errors='replace').strip()[-2000:]}"
            )

    # -- what a test does to a replica ---------------------------------------------------------

    def pause_replay(self) -> None:
        """Stop applying WAL (it is still received): the replica falls behind."""
        execute(self.url, "SELECT pg_wal_replay_pause()")

    def resume_replay(self) -> None:
        execute(self.url, "SELECT pg_wal_replay_resume()")

    def promote(self) -> None:
        """Make this replica a primary (waits until it accepts writes)."""
        execute(self.url, "SELECT pg_promote(true, 60)")

    def replayed(self) -> int:
        """The WAL position replayed so far, in bytes from 0/0."""
        rows = execute(self.url, "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint")
        return int(rows[0][0])
