"""The shape of a free-form JSON value (metadata, a working-memory value, a document).

A value any key may write is read back by every other reader of its scope, and by the
consolidation jobs of the whole tenant: one that no reader can parse or print would break
them all. So every free-form value is checked here, once, before anything stores it:

- it nests at most :data:`~sedimem.limits.MAX_JSON_DEPTH` levels (pydantic's JSON parser
  gives up near 200 levels, its serializer sooner, Python's ``json`` near 1,000);
- its text is valid Unicode (no lone surrogate such as ``"\\ud800"``: it has no UTF-8 form);
- its numbers are finite (JSON has no NaN or infinity; ``1e400`` reads as infinity);
- it encodes to at most a given number of bytes.

A refusal is a :class:`~sedimem.errors.ValidationError` naming the field (and where in the
value the problem is) and the limit. The walk is iterative: however deep the value, it is
checked without recursion.

Values stored by older versions, before these limits, may nest deeper: :func:`flatten_deep`
makes them printable (a read never fails on its own data), and ``sedimem doctor`` lists them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

from sedimem.errors import ValidationError
from sedimem.limits import MAX_JSON_DEPTH, MAX_METADATA_BYTES

__all__ = [
    "Flaw",
    "Metadata",
    "allowed",
    "check_shape",
    "depth_of",
    "find_flaw",
    "flatten_deep",
    "is_valid_text",
    "loads_stored",
    "may_nest_deeper",
    "readable",
    "shape_validator",
]


def allowed(max_bytes: int) -> str:
    """What a free-form value may be, in words (the ``allowed`` of a refusal)."""
    return (
        f"JSON nested at most {MAX_JSON_DEPTH} levels, at most {max_bytes} bytes, with finite "
        "numbers and valid Unicode text"
    )


@dataclass(frozen=True, slots=True)
class Flaw:
    """What is wrong with a value: ``message`` (which names where, inside it)."""

    message: str


def is_valid_text(text: str) -> bool:
    """Whether ``text`` has a UTF-8 form (no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _where(path: tuple[str | int, ...]) -> str:
    shown = ".".join(map(str, path[:8]))
    return shown + (".…" if len(path) > 8 else "") if path else "the top level"


def find_flaw(value: Any, max_bytes: int) -> Flaw | None:
    """The first problem of ``value`` as stored JSON, or None if it has none."""
    # An upper bound of the encoded size, summed on the walk: a value well under the limit
    # (nearly all, and every record read back) is not encoded a second time to be measured.
    bound = 0
    # Containers wait on the stack with where they are; scalars are checked where they are
    # met (a record's metadata is mostly one flat object of short texts, read back often).
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = []
    top = _scalar_bound(value, max_bytes)
    if top is None:
        stack.append((value, 0, ()))
    elif top < 0:
        return _scalar_flaw(value, ())
    else:
        bound = top
    while stack:
        item, depth, path = stack.pop()
        if depth + 1 > MAX_JSON_DEPTH:
            return Flaw(f"nests more than {MAX_JSON_DEPTH} levels deep (at {_where(path)})")
        bound += 2 + 2 * len(item)
        if isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(key, str):
                    if not (key.isascii() or is_valid_text(key)):
                        return Flaw(f"has a key that is not valid Unicode (at {_where(path)})")
                    bound += 2 + 6 * len(key) + 2
                else:
                    bound += max_bytes  # a number or another key type: measured below
                size = _scalar_bound(inner, max_bytes)
                if size is None:
                    stack.append((inner, depth + 1, (*path, str(key))))
                elif size < 0:
                    return _scalar_flaw(inner, (*path, str(key)))
                else:
                    bound += size
        else:
            for i, inner in enumerate(item):
                size = _scalar_bound(inner, max_bytes)
                if size is None:
                    stack.append((inner, depth + 1, (*path, i)))
                elif size < 0:
                    return _scalar_flaw(inner, (*path, i))
                else:
                    bound += size
    if bound <= max_bytes:
        return None
    try:
        size = len(json.dumps(value, ensure_ascii=False, allow_nan=False, default=str).encode())
    except (TypeError, ValueError) as exc:  # e.g. a key JSON cannot take (a tuple)
        return Flaw(f"is not JSON ({exc})")
    if size > max_bytes:
        return Flaw(f"encodes to {size} bytes")
    return None


def _scalar_bound(item: Any, max_bytes: int) -> int | None:
    """Most bytes the scalar ``item`` encodes to; -1 when it breaks a rule (see
    :func:`_scalar_flaw`); None for a container (a dict, list or tuple)."""
    kind = type(item)
    if kind is str:
        if item.isascii() or is_valid_text(item):
            # its quotes, and each character at most six bytes (a control character
            # escaped as ``\\u001f``; others at most four in UTF-8)
            return 2 + 6 * len(item)
        return -1
    if kind is dict or kind is list or kind is tuple:
        return None
    if item is None or kind is bool:
        return 5
    if kind is int:
        return int(item.bit_length() // 3 + 2)  # decimal digits < bits / 3.3, and a sign
    if kind is float:
        return _FLOAT_BOUND if math.isfinite(item) else -1
    if isinstance(item, dict | list | tuple):  # a subclass
        return None
    if isinstance(item, str):
        return 2 + 6 * len(item) if is_valid_text(item) else -1
    if isinstance(item, float):
        return _FLOAT_BOUND if math.isfinite(item) else -1
    if isinstance(item, int):
        return int(item.bit_length() // 3 + 2)
    return max_bytes  # encoded by ``default=str``: measured at the end


def _scalar_flaw(item: Any, path: tuple[str | int, ...]) -> Flaw:
    if isinstance(item, str):
        return Flaw(f"holds text that is not valid Unicode (at {_where(path)})")
    return Flaw(f"holds {item!r}, which JSON cannot carry (at {_where(path)})")


#: The longest JSON form of a finite float (``-2.2250738585072014e-308``), rounded up.
_FLOAT_BOUND = 32


def check_shape(field: str, value: Any, max_bytes: int) -> Any:
    """``value``, or a ValidationError naming ``field`` when it breaks a rule above."""
    flaw = find_flaw(value, max_bytes)
    if flaw is not None:
        raise ValidationError(field, flaw.message, allowed=allowed(max_bytes))
    return value


def shape_validator(max_bytes: int) -> Callable[[Any], Any]:
    """A pydantic validator applying :func:`check_shape` (the field is named by pydantic)."""

    def validate(value: Any) -> Any:
        flaw = find_flaw(value, max_bytes)
        if flaw is not None:
            raise PydanticCustomError(
                "json_shape", "{reason}", {"reason": flaw.message, "allowed": allowed(max_bytes)}
            )
        return value

    return validate


#: A record's free-form ``metadata``: a JSON object within the limits above.
Metadata = Annotated[dict[str, Any], AfterValidator(shape_validator(MAX_METADATA_BYTES))]


def depth_of(value: Any) -> int:
    """How many levels ``value`` nests (0 for a scalar), counted without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            deepest = max(deepest, depth + 1)
            stack.extend((inner, depth + 1) for inner in item.values())
        elif isinstance(item, list):
            deepest = max(deepest, depth + 1)
            stack.extend((inner, depth + 1) for inner in item)
    return deepest


def dumps_deep(value: Any) -> str:
    """``value`` as compact JSON text, written without recursion (``json.dumps`` recurses
    once per level, and a value an older version stored may nest hundreds of levels)."""
    out: list[str] = []
    # each step: a value to write, or a piece of text (a separator, a closing bracket)
    stack: list[tuple[bool, Any]] = [(True, value)]
    while stack:
        is_value, item = stack.pop()
        if not is_value:
            out.append(item)
        elif isinstance(item, dict):
            out.append("{")
            steps: list[tuple[bool, Any]] = []
            for n, (key, inner) in enumerate(item.items()):
                prefix = "," if n else ""
                steps += [
                    (False, f"{prefix}{json.dumps(str(key), ensure_ascii=False)}:"),
                    (True, inner),
                ]
            stack += [(False, "}"), *reversed(steps)]
        elif isinstance(item, list):
            out.append("[")
            steps = []
            for n, inner in enumerate(item):
                steps += [(False, ","), (True, inner)] if n else [(True, inner)]
            stack += [(False, "]"), *reversed(steps)]
        else:
            out.append(json.dumps(item, ensure_ascii=False))
    return "".join(out)


def flatten_deep(value: Any, depth: int = 0) -> Any:
    """``value`` with each container that lies deeper than the limit replaced by its JSON
    text: what an older version stored, in a form every reader can parse and print, and
    nothing lost (the text holds the whole subtree)."""
    if not isinstance(value, dict | list):
        return value
    if depth >= MAX_JSON_DEPTH:
        return dumps_deep(value)
    if isinstance(value, dict):
        return {k: flatten_deep(v, depth + 1) for k, v in value.items()}
    return [flatten_deep(v, depth + 1) for v in value]


def loads_stored(text: str) -> Any:
    """Stored JSON ``text``, parsed however deep an older version wrote it.

    Python's parser recurses once per level, within the interpreter's recursion limit, so
    deep in a request's call stack it gives up sooner than at the top of a fresh one. Older
    versions wrote values as deep as their own call stacks allowed (some 900 levels); a
    parse that runs out of stack here is done again on a thread of its own, from an empty
    stack (a rare path: only such values take it)."""
    try:
        return json.loads(text)
    except RecursionError:
        pass
    with ThreadPoolExecutor(1, thread_name_prefix="sedimem-deep-json") as pool:
        return pool.submit(json.loads, text).result()


def may_nest_deeper(text: str) -> bool:
    """Whether JSON ``text`` could nest deeper than the limit (a cheap count of brackets:
    fewer openings than the limit cannot)."""
    return text.count("{") + text.count("[") > MAX_JSON_DEPTH


def readable(value: Any, text: str) -> Any:
    """``value`` parsed from stored ``text``, made printable if an older version stored it
    nested deeper than the limit (see :func:`flatten_deep`)."""
    if may_nest_deeper(text) and depth_of(value) > MAX_JSON_DEPTH:
        return flatten_deep(value)
    return value
