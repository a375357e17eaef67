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
    DROP,
    DROP_CHECKPOINTS,
    DROP_IDLE,
    MERGE_SCRATCHPAD,
    PUT_CHECKPOINT,
    RESTORE,
    SET,
)
from sedimem.storage.working.redis.scripts import TASK as TASK_SCRIPT
from sedimem.storage.working.redis.version import micros, stamp_of

__all__ = [
    "AT", "CB", "CP", "CX", "EVALSHA", "EX", "HGET", "KV", "NO_LIMIT", "SP", "TASK", "TB", "VR",
    "Command", "Keys", "append", "clear_scratchpad", "clear_values", "delete_checkpoint",
    "delete_value", "drop_idle", "drop_session", "entry_stamp", "idle_key", "index_keys",
    "live_values", "merge", "pairs", "put_checkpoint", "replay", "replay_restore", "restore",
    "session_keys", "set_value", "split", "task",
]  # fmt: skip

_STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.?(\d*)")
_STAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%f"
# How far before the oldest merged entry the merge looks for copies and neighbours: more
# than the time between stamping an entry and Redis executing the append.
_MERGE_WINDOW = timedelta(seconds=60)

# Constant arguments are bytes (redis-py passes bytes through without encoding them).
EVALSHA: Final = b"EVALSHA"
EVAL: Final = b"EVAL"
HGET: Final = b"HGET"
_KEY_SUFFIXES = ("kv", "ex", "task", "sp", "vr", "tb", "cp", "cb", "cx", "at")
# positions in Keys
KV, EX, TASK, SP, VR, TB, CP, CB, CX, AT = range(10)
_LIVE = b"1", b"0"  # the ``replay`` argument of a script: compare-and-set, or a live write
#: a replayed ``set`` is not refused for the key limit: it was acknowledged
NO_LIMIT: Final = 2**62

Keys = tuple[bytes, ...]  # kv, ex, task, sp, vr, tb, cp, cb, cx, at of one session
Command = tuple[Any, ...]


def session_keys(digest: str) -> Keys:
    return tuple(f"sdm:{{{digest}}}:{suffix}".encode() for suffix in _KEY_SUFFIXES)


def _live(k: Keys) -> Keys:
    """The keys a live-state script gets: kv, ex, task, sp, vr, tb, and the stamp last."""
    return (k[KV], k[EX], k[TASK], k[SP], k[VR], k[TB], k[AT])


def _mode(replay: bool) -> bytes:
    return _LIVE[0] if replay else _LIVE[1]


def _short_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def index_keys(tenant: str, user: str | None) -> tuple[str, str | None]:
    """The tenant's index and the (tenant, user) index; one hash tag, so one slot."""
    tenant_key = f"sdm:ix:{{{_short_hash(tenant)}}}"
    return tenant_key, None if user is None else f"{tenant_key}:u:{_short_hash(user)}"


def idle_key(tenant: str) -> str:
    """The tenant's idle index (the tenant's hash tag, as its other indexes)."""
    return f"sdm:ix:{{{_short_hash(tenant)}}}:idle"


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
# ``version`` (see version.py) orders the write against every other; ``replay``: the write
# was made elsewhere earlier (an outage's journal) and lands only if nothing newer is there.


def set_value(
    k: Keys,
    ref: SessionRef,
    version: str,
    replay: bool,
    key: str,
    value: str,
    expires_at: float | None,
    now: float,
    max_keys: int,
) -> Command:
    expiry = "" if expires_at is None else repr(expires_at)
    live = _live(k)
    return (EVALSHA, SET.sha, b"7", *live, key, value, expiry, _ttl_ms(ref), max_keys, now,
            version, _mode(replay))  # fmt: skip


def delete_value(
    k: Keys, ref: SessionRef, version: str, replay: bool, key: str, now: float
) -> Command:
    return (EVALSHA, DELETE.sha, b"7", *_live(k), key, now, _ttl_ms(ref), version, _mode(replay))


def clear_values(k: Keys, ref: SessionRef, version: str, replay: bool, now: float) -> Command:
    return (EVALSHA, CLEAR.sha, b"7", *_live(k), now, _ttl_ms(ref), version, _mode(replay))


def task(
    k: Keys, ref: SessionRef, version: str, replay: bool, mode: str, fields: dict[str, str]
) -> Command:
    """``mode``: "0" replace the task state, "1" update it (if any), "2" delete it."""
    ttl = _ttl_ms(ref)
    return (EVALSHA, TASK_SCRIPT.sha, b"7", *_live(k), ttl, mode, version, _mode(replay),
            *_flatten(fields))  # fmt: skip


def append(k: Keys, ref: SessionRef, entry: str, max_entries: int, now: float) -> Command:
    return (EVALSHA, APPEND.sha, b"7", *_live(k), entry, max_entries, _ttl_ms(ref))


def merge(
    k: Keys,
    ref: SessionRef,
    entries: list[str],
    max_entries: int,
    now: float,
    written: str | None = None,
) -> Command:
    """Merge entries made elsewhere; ``written``: when they were written, if not their own
    stamps (a replayed restore puts old entries back)."""
    args: list[str] = []
    stamps = []
    for entry in entries:
        stamp, entry_id = entry_stamp(entry)
        args.extend((stamp, entry_id, stamp if written is None else written, entry))
        if stamp:
            stamps.append(stamp)
    floor = ""
    if stamps:
        oldest = datetime.strptime(min(stamps), _STAMP_FORMAT) - _MERGE_WINDOW
        floor = oldest.strftime(_STAMP_FORMAT)
    ttl = _ttl_ms(ref)
    return (EVALSHA, MERGE_SCRATCHPAD.sha, b"7", *_live(k), max_entries, ttl, floor, *args)


def clear_scratchpad(k: Keys, ref: SessionRef, version: str, replay: bool) -> Command:
    ttl, mode, stamp = _ttl_ms(ref), _mode(replay), stamp_of(version)
    return (EVALSHA, CLEAR_SCRATCHPAD.sha, b"7", *_live(k), ttl, version, mode, stamp)


def restore(k: Keys, ref: SessionRef, version: str, snapshot: Snapshot) -> Command:
    """A live restore, one script; a replayed one is ``replay_restore``."""
    args: list[Any] = [_ttl_ms(ref), version, stamp_of(version), len(snapshot.values)]
    for key, stored in snapshot.values.items():
        expiry = "" if stored.expires_at is None else repr(stored.expires_at)
        args.extend((key, stored.value, expiry))
    fields = snapshot.task or {}
    args.append(len(fields))
    args.extend(_flatten(fields))
    args.extend(snapshot.scratchpad)
    return (EVALSHA, RESTORE.sha, b"7", *_live(k), *args)


def put_checkpoint(
    k: Keys,
    ref: SessionRef,
    version: str,
    replay: bool,
    checkpoint_id: str,
    info: str,
    content: str,
    expires_at: float,
    now: float,
) -> Command:
    args = (checkpoint_id, info, content, expires_at, now, _ttl_ms(ref), version, _mode(replay))
    return (EVALSHA, PUT_CHECKPOINT.sha, b"10", *k, *args)


def delete_checkpoint(k: Keys, ref: SessionRef, checkpoint_id: str, now: float) -> Command:
    return (EVALSHA, DELETE_CHECKPOINT.sha, b"3", k[CP], k[CB], k[CX], checkpoint_id, now)


def drop_session(k: Keys, ref: SessionRef, version: str) -> Command:
    """A live drop: the data goes, the versions stay for the idle lifetime."""
    return (EVALSHA, DROP.sha, b"10", *k, version, stamp_of(version), _ttl_ms(ref))


def drop_idle(k: Keys, ref: SessionRef, touched_ms: int, version: str) -> Command:
    """Drop the session as ``drop_session`` does, unless written after ``touched_ms``."""
    args = (touched_ms, version, stamp_of(version), _ttl_ms(ref))
    return (EVALSHA, DROP_IDLE.sha, b"10", *k, *args)


def replay(
    k: Keys, ref: SessionRef, method: str, version: str, args: tuple[Any, ...]
) -> list[Command]:
    """The commands that replay one journaled write (``args``: the store method's, after
    ``ref``) as compare-and-sets: a write older than what Redis holds changes nothing."""
    if method == "set":
        key, value, expires_at, now, _ = args
        return [set_value(k, ref, version, True, key, value, expires_at, now, NO_LIMIT)]
    if method == "delete":
        return [delete_value(k, ref, version, True, *args)]
    if method == "clear":
        return [clear_values(k, ref, version, True, *args)]
    if method in ("set_task", "update_task"):
        mode = "0" if method == "set_task" else "1"
        return [task(k, ref, version, True, mode, args[0])]
    if method == "clear_scratchpad":
        return [clear_scratchpad(k, ref, version, True)]
    if method == "append_scratchpad":  # entries carry their stamps: a merge orders them
        entry, max_entries, now = args
        return [merge(k, ref, [entry], max_entries, now)]
    if method == "put_checkpoint":
        return [put_checkpoint(k, ref, version, True, *args)]
    if method == "delete_checkpoint":
        return [delete_checkpoint(k, ref, *args)]
    if method == "restore":
        snapshot, now = args
        return replay_restore(k, ref, version, snapshot, now)
    if method == "drop_session":
        return [
            clear_values(k, ref, version, True, 0.0),
            task(k, ref, version, True, "2", {}),
            clear_scratchpad(k, ref, version, True),
            (EVALSHA, DROP_CHECKPOINTS.sha, b"4", k[VR], k[CP], k[CB], k[CX], version,
             micros(version) // 1000),
        ]  # fmt: skip
    raise ValueError(f"no replay for {method!r}")


def replay_restore(
    k: Keys, ref: SessionRef, version: str, snapshot: Snapshot, now: float
) -> list[Command]:
    """A restore made elsewhere, as its parts: each lands unless something newer is there."""
    commands = [clear_values(k, ref, version, True, now)]
    for key, stored in snapshot.values.items():
        commands.append(
            set_value(k, ref, version, True, key, stored.value, stored.expires_at, now, NO_LIMIT)
        )
    if snapshot.task:
        commands.append(task(k, ref, version, True, "0", snapshot.task))
    else:
        commands.append(task(k, ref, version, True, "2", {}))
    commands.append(clear_scratchpad(k, ref, version, True))
    if snapshot.scratchpad:
        commands.append(merge(k, ref, snapshot.scratchpad, 2**31, now, stamp_of(version)))
    return commands


def pairs(reply: list[Any]) -> list[tuple[str, float]]:
    """A ZRANGE ... WITHSCORES reply as (member, score) pairs.

    redis-py versions differ: some parse the reply into pairs, others leave it flat.
    """
    if reply and isinstance(reply[0], list | tuple):
        return [(member, float(score)) for member, score in reply]
    return [(reply[i], float(reply[i + 1])) for i in range(0, len(reply), 2)]


def split(stored: str) -> tuple[str, str, str]:
    """``(expiry, version, value)`` of a ``kv`` entry ``"<expiry>|<version>|<value>"``; an
    entry of an earlier release (``"<expiry>|<value>"``, no version) reads with version ""."""
    expiry, _, rest = stored.partition("|")
    version, sep, value = rest.partition("|")
    if sep and version[16:17] == ":":
        return expiry, version, value
    return expiry, "", rest


def live_values(stored: dict[str, str], now: float) -> dict[str, StoredValue]:
    """The ``kv`` hash without expired keys, each entry split."""
    live: dict[str, StoredValue] = {}
    for key, text in stored.items():
        expiry, _, value = split(text)
        if not expiry:
            live[key] = StoredValue(value, None)
        elif (at := float(expiry)) > now:
            live[key] = StoredValue(value, at)
    return live
