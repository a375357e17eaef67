"""How a LangGraph thread is laid out in the working memory of its session.

A thread is one session of the saver's scope (``thread_id`` is the session id). Inside it,
each checkpoint and each pending write is one key of working memory, so everything a thread
holds lives, expires, forks and is erased with its session:

- ``langgraph/cp/<ns digest>/<checkpoint id>``: the checkpoint (as LangGraph hands it over, with
  its channel values), its metadata and its parent id;
- ``langgraph/w/<ns digest>/<checkpoint id>/<task digest>/<idx>``: one pending write.

Namespaces and task ids are hashed in key names (they can be long); the values carry them
in full. Serialised objects are LangGraph's own typed encoding (``serde.dumps_typed``),
base64 in JSON, so any value LangGraph can checkpoint round-trips unchanged.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import writes_sort_key
from langgraph.checkpoint.serde.base import SerializerProtocol

__all__ = [
    "PREFIX",
    "StoredCheckpoint",
    "StoredWrite",
    "ThreadState",
    "checkpoint_key",
    "dump",
    "load",
    "write_key",
]

PREFIX = "langgraph/"
_CP = PREFIX + "cp/"
_W = PREFIX + "w/"


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def checkpoint_key(ns: str, checkpoint_id: str) -> str:
    return f"{_CP}{_digest(ns)}/{checkpoint_id}"


def write_key(ns: str, checkpoint_id: str, task_id: str, idx: int) -> str:
    return f"{_W}{_digest(ns)}/{checkpoint_id}/{_digest(task_id)}/{idx}"


def dump(serde: SerializerProtocol, obj: Any) -> list[str]:
    kind, data = serde.dumps_typed(obj)
    return [kind, base64.b64encode(data).decode("ascii")]


def load(serde: SerializerProtocol, typed: list[str]) -> Any:
    return serde.loads_typed((typed[0], base64.b64decode(typed[1])))


@dataclass(frozen=True, slots=True)
class StoredCheckpoint:
    key: str
    ns: str
    id: str
    parent: str | None
    checkpoint: list[str]  # typed, encoded
    metadata: list[str]

    def value(self) -> dict[str, Any]:
        return {
            "ns": self.ns,
            "id": self.id,
            "parent": self.parent,
            "checkpoint": self.checkpoint,
            "metadata": self.metadata,
        }


@dataclass(frozen=True, slots=True)
class StoredWrite:
    key: str
    ns: str
    checkpoint_id: str
    task_id: str
    idx: int
    channel: str
    value: list[str]
    task_path: str

    def as_value(self) -> dict[str, Any]:
        return {
            "ns": self.ns,
            "checkpoint_id": self.checkpoint_id,
            "task_id": self.task_id,
            "idx": self.idx,
            "channel": self.channel,
            "value": self.value,
            "task_path": self.task_path,
        }

    def sort_key(self) -> tuple[str, str, int]:
        return writes_sort_key(self.task_path, self.task_id, self.idx)


class ThreadState:
    """Every checkpoint and pending write of one thread, read in one call."""

    def __init__(self, items: dict[str, Any]) -> None:
        self.checkpoints: dict[str, dict[str, StoredCheckpoint]] = {}  # ns -> id -> cp
        self.writes: dict[tuple[str, str], list[StoredWrite]] = {}  # (ns, id) -> writes
        for key, value in items.items():
            if key.startswith(_CP):
                cp = StoredCheckpoint(
                    key=key,
                    ns=value["ns"],
                    id=value["id"],
                    parent=value["parent"],
                    checkpoint=value["checkpoint"],
                    metadata=value["metadata"],
                )
                self.checkpoints.setdefault(cp.ns, {})[cp.id] = cp
            elif key.startswith(_W):
                w = StoredWrite(key=key, **value)
                self.writes.setdefault((w.ns, w.checkpoint_id), []).append(w)
        for writes in self.writes.values():
            writes.sort(key=StoredWrite.sort_key)

    def all_checkpoints(self) -> list[StoredCheckpoint]:
        return [cp for by_id in self.checkpoints.values() for cp in by_id.values()]

    def writes_of(self, cp: StoredCheckpoint) -> list[StoredWrite]:
        return self.writes.get((cp.ns, cp.id), [])
