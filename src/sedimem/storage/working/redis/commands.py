"""The Redis working store's key layout, and the one command (a Lua script call) each
write sends: pure functions of a session's keys and arguments, so a write can run alone or
in a pipeline (``WRITES``, by store method name). The layout is described in
:mod:`.store`.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Final

from sedimem.storage.working.base import (
    SessionRef,
    Snapshot,
    StoredValue,
)
from sedimem.storage.working.redis.scripts import (
    APPEND,
    CLEAR,
    CLEAR_SCRATCHPAD,
    DELETE,
    DELETE_CHECKPOINT,
    MERGE_SCRATCHPAD,
    PUT_CHECKPOINT,
    RESTORE,
    SET,
    TASK,
)

__all__ = [
    "EVALSHA",
    "HGET",
    "WRITES",
    "Command",
    "Keys",
    "append",
    "clear_scratchpad",
    "clear_values",
    "delete_checkpoint",
    "delete_value",
    "drop_session",
    "entry_stamp",
    "idle_key",
    "index_keys",
    "live_values",
    "merge",
    "pairs",
    "put_checkpoint",
    "restore",
    "session_keys",
    "set_task",
    "set_value",
    "update_task",
]

_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.?(\d*)")
_STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"
# How far before the oldest merged entry the merge looks for copies and neighbours: more
# than the time between stamping an entry and Redis executing the append.
_MERGE_WINDOW = timedelta(seconds=60)

# Constant arguments are bytes (redis-py passes bytes through without encoding them).
EVALSHA: Final = b"EVALSHA"
HGET: Final = b"HGET"
_KEY_SUFFIXES = ("kv", "ex", "task", "sp", "cp", "cb", "cx", "at")

Keys = tuple[bytes, ...]  # kv, ex, task, sp, cp, cb, cx, at of one session
Command = tuple[Any, ...]


def session_keys(digest: str) -> Keys:
    return tuple(f"ms:{{{digest}}}:{suffix}".encode() for suffix in _KEY_SUFFIXES)


def _live(k: Keys) -> Keys:
    """The keys a live-state script gets: kv, ex, task, sp, and the stamp last."""
    return (k[0], k[1], k[2], k[3], k[7])


def _short_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def index_keys(tenant: str, user: str | None) -> tuple[str, str | None]:
    """The tenant's index and the (tenant, user) index; one hash tag, so one slot."""
    tenant_key = f"ms:ix:{{{_short_hash(tenant)}}}"
    return tenant_key, None if user is None else f"{tenant_key}:u:{_short_hash(user)}"


def idle_key(tenant: str) -> str:
    """The tenant's idle index (the tenant's hash tag, as its other indexes)."""
    return f"ms:ix:{{{_short_hash(tenant)}}}:idle"


def _ttl_ms(ref: SessionRef) -> bytes:
    return _milliseconds(ref.ttl)


@functools.lru_cache(maxsize=64)
def _milliseconds(seconds: float) -> bytes:
    return b"%d" % max(1, int(seconds * 1000))


def _flatten(fields: dict[str, str]) -> list[str]:
    flat: list[str] = []
    for name, value in fields.items():
        flat.append(name)
        flat.append(value)
    return flat


def entry_stamp(entry: str) -> tuple[str, str]:
    """``(stamp, id)`` of a scratchpad entry as the merge script sees them ('' if unknown)."""
    try:
        data = json.loads(entry)
    except ValueError:
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    at, entry_id = data.get("created_at"), data.get("id")
    match = _STAMP.match(at) if isinstance(at, str) else None
    stamp = "" if match is None else f"{match[1]}.{(match[2] + '000000')[:6]}"
    return stamp, entry_id if isinstance(entry_id, str) else ""


# -- one write as one command: shared by the methods and by apply() ------------------------


def set_value(
    k: Keys,
    ref: SessionRef,
    key: str,
    value: str,
    expires_at: float | None,
    now: float,
    max_keys: int,
) -> Command:
    expiry = "" if expires_at is None else repr(expires_at)
    stored = f"{expiry}|{value}"
    ttl = _ttl_ms(ref)
    return (
        EVALSHA,
        SET.sha,
        b"5",
        k[0],
        k[1],
        k[2],
        k[3],
        k[7],
        key,
        stored,
        expiry,
        ttl,
        max_keys,
        now,
    )


def delete_value(k: Keys, ref: SessionRef, key: str, now: float) -> Command:
    return (EVALSHA, DELETE.sha, b"5", *_live(k), key, now, _ttl_ms(ref))


def clear_values(k: Keys, ref: SessionRef, now: float) -> Command:
    return (EVALSHA, CLEAR.sha, b"5", *_live(k), now, _ttl_ms(ref))


def set_task(k: Keys, ref: SessionRef, fields: dict[str, str], now: float) -> Command:
    return (EVALSHA, TASK.sha, b"5", *_live(k), _ttl_ms(ref), "0", *_flatten(fields))


def update_task(k: Keys, ref: SessionRef, fields: dict[str, str], now: float) -> Command:
    return (EVALSHA, TASK.sha, b"5", *_live(k), _ttl_ms(ref), "1", *_flatten(fields))


def append(k: Keys, ref: SessionRef, entry: str, max_entries: int, now: float) -> Command:
    return (EVALSHA, APPEND.sha, b"5", *_live(k), entry, max_entries, _ttl_ms(ref))


def merge(k: Keys, ref: SessionRef, entries: list[str], max_entries: int, now: float) -> Command:
    args: list[str] = []
    stamps = []
    for entry in entries:
        stamp, entry_id = entry_stamp(entry)
        args.extend((stamp, entry_id, entry))
        if stamp:
            stamps.append(stamp)
    floor = ""
    if stamps:
        oldest = datetime.strptime(min(stamps), _STAMP_FORMAT) - _MERGE_WINDOW
        floor = oldest.strftime(_STAMP_FORMAT)
    ttl = _ttl_ms(ref)
    return (EVALSHA, MERGE_SCRATCHPAD.sha, b"5", *_live(k), max_entries, ttl, floor, *args)


def clear_scratchpad(k: Keys, ref: SessionRef, now: float) -> Command:
    return (EVALSHA, CLEAR_SCRATCHPAD.sha, b"5", *_live(k), _ttl_ms(ref))


def restore(k: Keys, ref: SessionRef, snapshot: Snapshot, now: float) -> Command:
    args: list[Any] = [_ttl_ms(ref), len(snapshot.values)]
    for key, stored in snapshot.values.items():
        expiry = "" if stored.expires_at is None else repr(stored.expires_at)
        args.extend((key, f"{expiry}|{stored.value}", expiry))
    task = snapshot.task or {}
    args.append(len(task))
    args.extend(_flatten(task))
    args.extend(snapshot.scratchpad)
    return (EVALSHA, RESTORE.sha, b"5", *_live(k), *args)


def put_checkpoint(
    k: Keys,
    ref: SessionRef,
    checkpoint_id: str,
    info: str,
    content: str,
    expires_at: float,
    now: float,
) -> Command:
    args = (checkpoint_id, info, content, expires_at, now, _ttl_ms(ref))
    return (EVALSHA, PUT_CHECKPOINT.sha, b"8", *k, *args)


def delete_checkpoint(k: Keys, ref: SessionRef, checkpoint_id: str, now: float) -> Command:
    return (EVALSHA, DELETE_CHECKPOINT.sha, b"3", k[4], k[5], k[6], checkpoint_id, now)


def drop_session(k: Keys, ref: SessionRef) -> Command:
    return ("DEL", *k)


WRITES: dict[str, Callable[..., Command]] = {
    "set": set_value,
    "delete": delete_value,
    "clear": clear_values,
    "set_task": set_task,
    "update_task": update_task,
    "append_scratchpad": append,
    "merge_scratchpad": merge,
    "clear_scratchpad": clear_scratchpad,
    "restore": restore,
    "put_checkpoint": put_checkpoint,
    "delete_checkpoint": delete_checkpoint,
    "drop_session": drop_session,
}


def pairs(reply: list[Any]) -> list[tuple[str, float]]:
    """A ZRANGE ... WITHSCORES reply as (member, score) pairs.

    redis-py versions differ: some parse the reply into pairs, others leave it flat.
    """
    if reply and isinstance(reply[0], list | tuple):
        return [(member, float(score)) for member, score in reply]
    return [(reply[i], float(reply[i + 1])) for i in range(0, len(reply), 2)]


def live_values(stored: dict[str, str], now: float) -> dict[str, StoredValue]:
    """The ``kv`` hash without expired keys, each ``"<expiry>|<value>"`` split."""
    live: dict[str, StoredValue] = {}
    for key, text in stored.items():
        expiry, _, value = text.partition("|")
        if not expiry:
            live[key] = StoredValue(value, None)
        elif (at := float(expiry)) > now:
            live[key] = StoredValue(value, at)
    return live
