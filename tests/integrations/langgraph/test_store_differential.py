"""``SedimemStore`` against LangGraph's own ``InMemoryStore``: random operation sequences,
the same results, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import BaseStore, SearchItem
from langgraph.store.memory import InMemoryStore

from sedimem.embed.hashing import HashEmbedder
from sedimem.integrations.langgraph import SedimemStore
from sedimem.integrations.loop import BackgroundMemory
from sedimem.scope import Scope

EXAMPLES = 50  # generated operation sequences per long-term store

_label = st.sampled_from(["a", "b", "c"])
_ns = st.lists(_label, min_size=1, max_size=3).map(tuple)
_prefix = st.lists(_label, max_size=2).map(tuple)
_pattern = st.lists(st.sampled_from(["a", "b", "*"]), min_size=1, max_size=2).map(tuple)
_key = st.sampled_from(["k1", "k2", "k3"])
_words = st.sampled_from(["apple pie", "rainy lisbon", "blue car", "apple tree"])
_value = st.fixed_dictionaries(
    {"n": st.integers(0, 5), "tag": st.sampled_from(["x", "y"]), "text": _words}
)
_filter = st.one_of(
    st.none(),
    st.fixed_dictionaries({"tag": st.sampled_from(["x", "y"])}),
    st.fixed_dictionaries({"n": st.fixed_dictionaries({"$gt": st.integers(0, 5)})}),
    st.fixed_dictionaries({"n": st.fixed_dictionaries({"$lte": st.integers(0, 5)})}),
    st.fixed_dictionaries({"n": st.fixed_dictionaries({"$ne": st.integers(0, 5)})}),
)
_op = st.one_of(
    st.tuples(st.just("put"), _ns, _key, _value),
    st.tuples(st.just("delete"), _ns, _key),
    st.tuples(st.just("get"), _ns, _key),
    st.tuples(
        st.just("search"),
        _prefix,
        _filter,
        st.one_of(st.none(), st.sampled_from(["apple", "lisbon rain", "car"])),
        st.integers(1, 6),
        st.integers(0, 3),
    ),
    st.tuples(
        st.just("list"),
        st.one_of(st.none(), _pattern),
        st.one_of(st.none(), _pattern),
        st.one_of(st.none(), st.integers(1, 3)),
        st.integers(1, 6),
        st.integers(0, 2),
    ),
)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def background(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[BackgroundMemory]:
    if request.param == "sqlite":
        store = f"sqlite:///{tmp_path / 'lt.db'}"
    else:
        store = str(request.getfixturevalue("postgres_url"))
    with BackgroundMemory.open(working="memory://", store=store, embedder=HashEmbedder()) as bg:
        yield bg


def _rows(items: list[SearchItem]) -> set[tuple[tuple[str, ...], str, str]]:
    return {(i.namespace, i.key, json.dumps(i.value, sort_keys=True)) for i in items}


def _drop_empty_namespaces(oracle: InMemoryStore) -> None:
    # InMemoryStore keeps listing a namespace after its last item is deleted, or once a get
    # merely looked into it; LangGraph's PostgreSQL store, like ours, lists the namespaces
    # that hold items: compare with that
    for ns in [ns for ns, items in oracle._data.items() if not items]:
        del oracle._data[ns]


async def _check(ours: BaseStore, oracle: InMemoryStore, op: tuple[Any, ...]) -> None:
    kind = op[0]
    if kind == "put":
        _, ns, key, value = op
        await ours.aput(ns, key, value)
        await oracle.aput(ns, key, value)
    elif kind == "delete":
        _, ns, key = op
        await ours.adelete(ns, key)
        await oracle.adelete(ns, key)
    elif kind == "get":
        _, ns, key = op
        a, b = await ours.aget(ns, key), await oracle.aget(ns, key)
        assert (a is None) == (b is None)
        if a is not None and b is not None:
            assert (a.namespace, a.key, a.value) == (b.namespace, b.key, b.value)
    elif kind == "search":
        _, prefix, flt, query, limit, offset = op
        everything = await ours.asearch(prefix, filter=flt, query=query, limit=1000)
        expected = await oracle.asearch(prefix, filter=flt, query=query, limit=1000)
        assert _rows(everything) == _rows(expected)
        page = await ours.asearch(prefix, filter=flt, query=query, limit=limit, offset=offset)
        oracle_page = await oracle.asearch(
            prefix, filter=flt, query=query, limit=limit, offset=offset
        )
        assert len(page) == len(oracle_page)
        assert _rows(page) <= _rows(everything)
        if query is None:
            # no ranking: newest write first, and pages are slices of one order
            assert [(i.namespace, i.key) for i in page] == [
                (i.namespace, i.key) for i in everything[offset : offset + limit]
            ]
            stamps = [i.updated_at for i in everything]
            assert stamps == sorted(stamps, reverse=True)
        else:
            assert all(i.score is not None for i in page[:1]) or not page
    else:
        _, prefix, suffix, depth, limit, offset = op
        _drop_empty_namespaces(oracle)
        kwargs: dict[str, Any] = {"prefix": prefix, "suffix": suffix, "max_depth": depth}
        assert await ours.alist_namespaces(
            **kwargs, limit=limit, offset=offset
        ) == await oracle.alist_namespaces(**kwargs, limit=limit, offset=offset)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(_op, max_size=15))
def test_same_results_as_in_memory_store(
    background: BackgroundMemory, ops: list[tuple[Any, ...]]
) -> None:
    async def run() -> None:
        # a scope per example: nothing of an earlier example is seen
        ours = SedimemStore(
            background.memory, Scope(tenant="lg", project=uuid4().hex), bridge=background.bridge
        )
        oracle = InMemoryStore()
        for op in ops:
            await _check(ours, oracle, op)

    asyncio.run(run())
