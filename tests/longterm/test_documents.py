"""Documents: filters as LangGraph's stores apply them, bad input, paging the scope."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import sedimem.longterm.documents as documents_module
from sedimem.embed.hashing import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.longterm.documents import values_match
from sedimem.memory import Memory
from sedimem.scope import Scope


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[Memory]:
    url = f"sqlite:///{tmp_path / 'd.db'}"
    async with await Memory.open(url, embedder=HashEmbedder()) as m:
        yield m


@pytest.mark.parametrize(
    ("actual", "expected", "result"),
    [
        ({"a": 1, "b": 2}, {"a": 1}, True),
        ({"a": 1}, {"a": 2}, False),
        ("text", {"a": 1}, False),
        ([1, {"x": 2}], [1, {"x": 2}], True),
        ([1, 2], [1], False),
        ("1", [1], False),
        (3, {"$gt": 2, "$lte": 3}, True),
        ("abc", {"$gt": 1}, False),
        (None, {"$lt": 1}, False),
        (2, {"$ne": 3, "$eq": 2}, True),
    ],
)
def test_values_match_like_langgraph(actual: Any, expected: Any, result: bool) -> None:
    assert values_match(actual, expected) is result


async def test_bad_input_names_the_field(memory: Memory) -> None:
    docs = memory.documents(Scope(tenant="t"))
    cases: list[tuple[str, Any]] = [
        ("namespace", docs.put((), "k", {})),
        ("namespace", docs.put(("a", ""), "k", {})),
        ("key", docs.put(("a",), "", {})),
        ("value", docs.put(("a",), "k", "text")),  # type: ignore[arg-type]
        ("ttl_seconds", docs.put(("a",), "k", {}, ttl_seconds=0)),
        ("limit", docs.search(("a",), limit=-1)),
        ("filter", docs.search(("a",), filter="x")),  # type: ignore[arg-type]
        ("max_depth", docs.namespaces(max_depth=0)),
        ("namespace_prefix", docs.search(["a"])),  # type: ignore[arg-type]
    ]
    for field, call in cases:
        with pytest.raises(ValidationError, match=field):
            await call


async def test_every_page_of_the_scope_is_read(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(documents_module, "_PAGE", 2)
    docs = memory.documents(Scope(tenant="t", user="ana", session="ignored"))
    assert docs.scope == Scope(tenant="t", user="ana")
    for i in range(5):
        await docs.put(("n", str(i % 2)), f"k{i}", {"i": i})
    found = await docs.search(("n",), limit=100)
    assert sorted(d.value["i"] for d, _ in found) == [0, 1, 2, 3, 4]
    assert await docs.namespaces(prefix=("n", "*")) == [("n", "0"), ("n", "1")]
    created = (await docs.get(("n", "0"), "k0")).created_at  # type: ignore[union-attr]
    again = await docs.put(("n", "0"), "k0", {"i": 9})
    assert again.created_at == created
    assert again.updated_at >= created
    assert await docs.delete(("n", "0"), "k0") is True
    assert await docs.delete(("n", "0"), "k0") is False


async def test_a_value_holding_nul_is_stored_and_found_on_every_backend(lt_url: str) -> None:
    # the value is JSON (NUL kept); its search text is text, where NUL reads as a space
    async with await Memory.open(working="memory://", store=lt_url, embedder=HashEmbedder()) as m:
        docs = m.documents(Scope(tenant="t"))
        await docs.put(("notes",), "n1", {"text": "night\x00train to Oslo"})
        assert (await docs.get(("notes",), "n1")).value == {"text": "night\x00train to Oslo"}
        found = await docs.search(("notes",), query="train Oslo")
        assert [doc.key for doc, _ in found] == ["n1"]


async def test_a_document_value_has_the_shape_of_free_form_json(memory: Memory) -> None:
    docs = memory.documents(Scope(tenant="t"))
    deep: Any = 1
    for _ in range(300):
        deep = {"a": deep}
    for bad in ({"x": deep}, {"x": float("nan")}, {"x": "\ud800"}):
        with pytest.raises(ValidationError) as refused:
            await docs.put(("ns",), "k", bad)
        assert refused.value.field == "value"
    assert await docs.search(("ns",)) == []
    # one an older version stored that deep reads back, its deeper levels as JSON text
    fine = await docs.put(("ns",), "k", {"x": 1})
    (row,) = await memory.longterm_store.find(
        "t", documents_module.RecordFilter(kind=documents_module.DOCUMENT), limit=5
    )
    row.body = row.body.replace('"value":{"x":1}', '"value":' + _text(deep))
    await memory.longterm_store.put("t", [row])
    got = await docs.get(("ns",), "k")
    assert got is not None
    assert got.created_at == fine.created_at
    assert isinstance(got.value["a"], dict)
    assert [hit[0].key for hit in await docs.search(("ns",))] == ["k"]


def _text(value: Any) -> str:
    from sedimem.types.shape import dumps_deep

    return dumps_deep(value)
