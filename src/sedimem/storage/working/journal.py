"""The outage journal's entries, and their copy on local disk.

During a Redis outage the fallback store journals every write (``Entry``) in memory. With
``journal_dir`` set, each entry is also appended to a file of this process and fsynced
before the write is acknowledged, so a process that dies during an outage loses nothing it
acknowledged: the next process opening the same Redis location with the same directory
adopts the journals whose owners are gone and replays them (each write a compare-and-set,
so a journal replayed late, or twice, never overwrites a newer write).

A file is ``<location hash>-<pid>-<random>.journal``, one JSON entry per line, held under an
exclusive ``flock`` while its process lives: a file whose lock can be taken belongs to a
process that died (or closed while Redis was still down). A torn last line (a crash in the
middle of a write, never acknowledged) is ignored.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sedimem.errors import StoreUnavailable
from sedimem.storage.working.base import SessionRef, Snapshot, StoredValue

__all__ = ["Adopted", "DiskJournal", "Entry", "decode_entry", "encode_entry"]

logger = logging.getLogger("sedimem.working.fallback")


@dataclass(frozen=True, slots=True)
class Entry:
    """One acknowledged write: the store method and its arguments after ``ref``."""

    method: str
    ref: SessionRef | None  # None for drop_sessions, which spans sessions
    args: tuple[Any, ...]
    version: str = ""  # orders the write against every other (replay is a compare-and-set)


def encode_entry(entry: Entry) -> str:
    ref = entry.ref
    args: list[Any] = list(entry.args)
    if entry.method == "restore":
        snapshot: Snapshot = args[0]
        args[0] = {
            "values": {k: [v.value, v.expires_at] for k, v in snapshot.values.items()},
            "task": snapshot.task,
            "scratchpad": snapshot.scratchpad,
        }
    data = {
        "m": entry.method,
        "r": None if ref is None else [ref.digest, ref.tenant, ref.user, ref.ttl, ref.scope],
        "a": args,
        "v": entry.version,
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def decode_entry(line: str) -> Entry:
    data = json.loads(line)
    args = list(data["a"])
    if data["m"] == "restore":
        raw = args[0]
        values = {k: StoredValue(v, at) for k, (v, at) in raw["values"].items()}
        args[0] = Snapshot(values, raw["task"], list(raw["scratchpad"]))
    ref = None if data["r"] is None else SessionRef(*data["r"])
    return Entry(data["m"], ref, tuple(args), data["v"])


@dataclass(slots=True)
class Adopted:
    """A dead process's journal, locked by this process until its entries are written."""

    path: Path
    fd: int


class DiskJournal:
    """This process's journal file for one Redis location, opened on the first entry."""

    def __init__(self, directory: Path, location: str) -> None:
        self._dir = directory
        self._prefix = hashlib.blake2b(location.encode(), digest_size=8).hexdigest()
        self._fd: int | None = None
        self._path: Path | None = None

    @property
    def path(self) -> Path | None:
        return self._path

    def _open(self) -> int:
        if self._fd is None:
            self._dir.mkdir(parents=True, exist_ok=True)
            name = f"{self._prefix}-{os.getpid()}-{secrets.token_hex(4)}.journal"
            path = self._dir / name
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._fd, self._path = fd, path
        return self._fd

    def append(self, entry: Entry) -> None:
        """Write the entry and fsync it; raise StoreUnavailable if the disk refuses."""
        try:
            fd = self._open()
            os.write(fd, (encode_entry(entry) + "\n").encode())
            os.fsync(fd)
        except OSError as exc:
            raise StoreUnavailable(
                f"Redis is unreachable and the outage journal in {self._dir} cannot be "
                f"written: {exc}"
            ) from exc

    def rewrite(self, entries: list[Entry]) -> None:
        """Replace the file's entries with ``entries`` (an erasure removed some), atomically:
        they go to a new locked file that is renamed over the old one, so a crash leaves
        either journal whole, and the erased lines are in neither the file nor its name."""
        if self._fd is None or self._path is None:
            return
        temporary = self._path.with_suffix(".rewrite")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o600)
        except OSError as exc:
            raise StoreUnavailable(f"cannot rewrite the outage journal: {exc}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, "".join(encode_entry(e) + "\n" for e in entries).encode())
            os.fsync(fd)
            os.replace(temporary, self._path)
        except OSError as exc:
            os.close(fd)
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise StoreUnavailable(f"cannot rewrite the outage journal: {exc}") from exc
        os.close(self._fd)  # the replaced file, and its lock
        self._fd = fd

    def clear(self) -> None:
        """Every entry reached Redis: empty the file (kept, with its lock, for next time)."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.fsync(self._fd)

    def abandon(self) -> None:
        """Close the file as it is and release its lock, as a process dying would."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def adopt(self) -> tuple[list[Entry], list[Adopted]]:
        """The entries of journals left by processes that are gone, oldest file first, and
        those files, locked until :meth:`release`."""
        entries: list[Entry] = []
        adopted: list[Adopted] = []
        if not self._dir.is_dir():
            return entries, adopted
        paths = sorted(self._dir.glob(f"{self._prefix}-*.journal"), key=_mtime)
        for path in paths:
            if path == self._path:
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except FileNotFoundError:  # adopted and removed by another process meanwhile
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # its process is alive
                os.close(fd)
                continue
            with open(path, encoding="utf-8") as file:
                lines = file.read().split("\n")
            for line in lines[:-1]:  # the part after the last newline was never acknowledged
                entries.append(decode_entry(line))
            adopted.append(Adopted(path, fd))
        if entries:
            logger.warning(
                "found %d writes journaled during a Redis outage by processes that are gone: "
                "writing them back",
                len(entries),
            )
        return entries, adopted

    @staticmethod
    def release(adopted: list[Adopted]) -> None:
        """Remove adopted journals whose entries reached Redis."""
        for item in adopted:
            with contextlib.suppress(FileNotFoundError):
                item.path.unlink()
            os.close(item.fd)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0
