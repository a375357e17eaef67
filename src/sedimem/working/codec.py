"""How working memory encodes what it hands to a store, and checks it first.

Every rule about input lives here, once, so that no store has to repeat it.
"""

from __future__ import annotations

import json
from typing import Any

from sedimem.errors import LimitExceeded, ValidationError
from sedimem.limits import MAX_JSON_DEPTH, MAX_KEY_CHARS
from sedimem.storage.working.base import Snapshot, StoredValue
from sedimem.types.shape import allowed, depth_of, loads_stored, readable
from sedimem.types.text import check_no_nul
from sedimem.types.working import ScratchpadEntry, TaskState

__all__ = [
    "MAX_KEY_LENGTH",
    "RESERVED_PREFIX",
    "check_key",
    "check_ttl",
    "decode_snapshot",
    "decode_task",
    "decode_value",
    "encode_entry",
    "decode_entry",
    "encode_snapshot",
    "encode_task",
    "encode_value",
]

MAX_KEY_LENGTH = MAX_KEY_CHARS
#: Keys starting with this are reserved for sedimem's own use.
RESERVED_PREFIX = "__"


def check_key(key: object) -> str:
    if not isinstance(key, str) or not key:
        raise ValidationError(
            "key", "must be a non-empty string", allowed=f"1..{MAX_KEY_LENGTH} characters"
        )
    if len(key) > MAX_KEY_LENGTH:
        raise ValidationError(
            "key", f"is {len(key)} characters long", allowed=f"1..{MAX_KEY_LENGTH} characters"
        )
    # every working store could hold a NUL in a key, but key names reach episodes (a
    # session's summary), whose text no store may hold with NUL: the rule of all text
    check_no_nul("key", key)
    if key.startswith(RESERVED_PREFIX):
        raise ValidationError(
            "key", f"{key!r} is reserved", allowed=f"keys not starting with {RESERVED_PREFIX!r}"
        )
    return key


def check_ttl(ttl_seconds: float | None, *, upper: float) -> float | None:
    if ttl_seconds is None:
        return None
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, int | float):
        raise ValidationError("ttl_seconds", "must be a number", allowed=f"0 < ttl <= {upper:g}")
    if not 0 < ttl_seconds <= upper:
        raise ValidationError(
            "ttl_seconds", f"{ttl_seconds!r} is out of range", allowed=f"0 < ttl <= {upper:g}"
        )
    return float(ttl_seconds)


_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def encode_value(value: Any, max_bytes: int) -> str:
    if depth_of(value) > MAX_JSON_DEPTH:  # before encoding: json recurses, this walk does not
        raise ValidationError(
            "value", f"nests more than {MAX_JSON_DEPTH} levels deep", allowed=allowed(max_bytes)
        )
    try:
        text = _ENCODER.encode(value)
        size = len(text.encode())  # a lone surrogate (JSON "\ud800") fails here
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            "value",
            f"is not JSON-serializable ({exc})",
            allowed=allowed(max_bytes),
        ) from exc
    if size > max_bytes:
        raise LimitExceeded(
            "value", f"encodes to {size} bytes", allowed=f"at most {max_bytes} bytes"
        )
    return text


def decode_value(text: str) -> Any:
    """A stored value (one an older version stored nested too deep made printable)."""
    return readable(loads_stored(text), text)


def encode_task(state: TaskState) -> dict[str, str]:
    return {name: json.dumps(v) for name, v in state.model_dump(mode="json").items()}


def decode_task(fields: dict[str, str] | None) -> TaskState | None:
    if fields is None:
        return None
    return TaskState.from_stored_data({name: loads_stored(v) for name, v in fields.items()})


def encode_entry(entry: ScratchpadEntry) -> str:
    return entry.model_dump_json()


def decode_entry(text: str) -> ScratchpadEntry:
    return ScratchpadEntry.model_validate_json(text)


def encode_snapshot(snapshot: Snapshot, now: float) -> str:
    """Checkpoint content: values with the TTL they have left, task state, scratchpad."""
    values = {
        key: [stored.value, None if stored.expires_at is None else stored.expires_at - now]
        for key, stored in snapshot.values.items()
    }
    return json.dumps(
        {"values": values, "task": snapshot.task, "scratchpad": snapshot.scratchpad},
        separators=(",", ":"),
    )


def decode_snapshot(content: str, now: float) -> Snapshot:
    """The inverse of :func:`encode_snapshot`, with each remaining TTL counted from ``now``."""
    data = json.loads(content)
    values = {
        key: StoredValue(value, None if left is None else now + left)
        for key, (value, left) in data["values"].items()
    }
    return Snapshot(values, data["task"], list(data["scratchpad"]))
