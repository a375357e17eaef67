"""The shape of free-form JSON values (types/shape.py): the rules, once, for every writer."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sedimem.errors import ValidationError
from sedimem.limits import MAX_JSON_DEPTH, MAX_METADATA_BYTES
from sedimem.scope import Scope
from sedimem.types import Episode, TaskState
from sedimem.types.edits import EpisodeChanges
from sedimem.types.shape import (
    check_shape,
    depth_of,
    dumps_deep,
    find_flaw,
    flatten_deep,
    loads_stored,
    readable,
)


class Text(str):
    pass


class Real(float):
    pass


class Big(int):
    pass


class Mapping_(dict[str, object]):
    pass


class Opaque:
    """Not JSON: stored through ``default=str``, so measured by its text."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (nested(MAX_JSON_DEPTH + 1), "nests more than 64 levels deep (at a.a.a.a.a.a.a.a.…)"),
        (nested(5000), "nests more than 64 levels"),  # no recursion: any depth is checked
        ([[1, "\ud800"]], "holds text that is not valid Unicode (at 0.1)"),
        ({"ok": {"\udfff": 1}}, "has a key that is not valid Unicode (at ok)"),
        ({"x": math.nan}, "holds nan, which JSON cannot carry (at x)"),
        ({"x": [1.0, -math.inf]}, "holds -inf"),
        ({"x": "y" * MAX_METADATA_BYTES}, "encodes to 65545 bytes"),
        ({(1, 2): 1}, "is not JSON"),
        ("\ud800", "holds text that is not valid Unicode (at the top level)"),
        (math.nan, "holds nan, which JSON cannot carry (at the top level)"),
        ((1, [2, {"k": ["\udc00"]}]), "(at 1.1.k.0)"),
        ({"x": Text("\ud800")}, "holds text that is not valid Unicode (at x)"),
        ({"x": [Real(math.inf)]}, "holds inf"),
        ({"x": [Big(10) ** 4000] * 20}, "encodes to"),
        (Mapping_({"a": Mapping_({"b": "y" * MAX_METADATA_BYTES})}), "encodes to"),
        ({"x": Opaque("y" * MAX_METADATA_BYTES)}, "encodes to"),
    ],
)
def test_what_is_refused_and_where(value: object, words: str) -> None:
    flaw = find_flaw(value, MAX_METADATA_BYTES)
    assert flaw is not None
    assert words in flaw.message


def test_what_is_fine() -> None:
    for value in (nested(MAX_JSON_DEPTH), {"é": "ü", "n": 10**400, "f": 1.5}, [], "x", None):
        assert find_flaw(value, MAX_METADATA_BYTES) is None
    # subclasses of the JSON types are what they extend; other values are measured as text
    for value in (
        {Text("k"): [Text("é"), Real(1.5), Big(7), True, None]},
        Mapping_(a=(1, 2)),
        {"x": Opaque("short")},
        7,
        2.5,
    ):
        assert find_flaw(value, MAX_METADATA_BYTES) is None


def test_every_record_refuses_alike_naming_the_field() -> None:
    bad = {"x": math.inf}
    for build in (
        lambda: Episode(scope=Scope(tenant="t"), description="d", metadata=bad),
        lambda: TaskState(task_id="t", metadata=bad),
        lambda: EpisodeChanges(metadata=bad),
    ):
        with pytest.raises(ValidationError) as refused:
            build()
        assert refused.value.field == "metadata"
        assert refused.value.allowed is not None
        assert "nested at most 64 levels" in refused.value.allowed
    with pytest.raises(ValidationError, match="value: nests more") as caught:
        check_shape("value", nested(100), 1000)
    assert caught.value.field == "value"


def test_a_deep_stored_value_is_made_printable_and_nothing_is_lost() -> None:
    deep = nested(300)
    assert depth_of(deep) == 300
    flat = readable(deep, json.dumps(deep))
    assert depth_of(flat) == MAX_JSON_DEPTH
    inner = flat
    for _ in range(MAX_JSON_DEPTH - 1):
        inner = inner["a"]  # type: ignore[index]
    assert json.loads(inner["a"]) == nested(300 - MAX_JSON_DEPTH)  # type: ignore[index]
    shallow = {"a": [1, {"b": None}]}
    assert readable(shallow, json.dumps(shallow)) is shallow
    assert flatten_deep(shallow) == shallow
    for value in (shallow, [], {}, 'x"y', 1.5, [[[]]], {"k": [True, None]}):
        assert dumps_deep(value) == json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    assert dumps_deep(nested(5000)).count("{") == 5000  # written at any depth


def test_stored_json_parses_however_deep_the_caller_already_is() -> None:
    text = '{"a":' * 700 + "1" + "}" * 700

    def deep_in_a_stack(levels: int) -> object:
        if levels:
            return deep_in_a_stack(levels - 1)
        with pytest.raises(RecursionError):
            json.loads(text)  # what the reads did: too deep for the stack left here
        return loads_stored(text)

    assert depth_of(deep_in_a_stack(500)) == 700


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=6), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON, slack=st.integers(min_value=-3, max_value=3))
def test_the_size_limit_holds_to_the_byte_whatever_the_value(value: object, slack: int) -> None:
    # find_flaw skips encoding a value whose size bound is under the limit: the decision
    # must still be exactly the encoded size's, at the limit and either side of it.
    size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode())
    limit = max(1, size + slack)
    flaw = find_flaw(value, limit)
    if size <= limit:
        assert flaw is None
    else:
        assert flaw is not None
        assert f"encodes to {size} bytes" in flaw.message
