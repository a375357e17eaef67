"""``SedimemStore`` beyond the differential test: TTL, ranking, indexing, scopes, sync use,
on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from langgraph.store.base import GetOp, ListNamespacesOp, MatchCondition, PutOp

from sedimem.embed.hashing import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.integrations.langgraph import SedimemStore
from sedimem.integrations.loop import BackgroundMemory
from sedimem.longterm.documents import index_text
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.clock import ManualClock


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'm.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
async def memory(store_url: str) -> AsyncIterator[Memory]:
    async with await Memory.open(
        working="memory://", store=store_url, embedder=HashEmbedder(), clock=ManualClock()
    ) as m:
        yield m


def _clock(memory: Memory) -> ManualClock:
    clock = memory._clock
    assert isinstance(clock, ManualClock)
    return clock


async def test_ttl_expires_items_and_reads_refresh_it(memory: Memory) -> None:
    store = SedimemStore(memory, Scope(tenant="t"), ttl={"default_ttl": 1.0})
    await store.aput(("notes",), "a", {"text": "kept alive by reads"})
    await store.aput(("notes",), "b", {"text": "left alone"})
    await store.aput(("notes",), "c", {"text": "no ttl"}, ttl=None)
    _clock(memory).advance(50)
    assert await store.aget(("notes",), "a") is not None  # refreshed: 60 s from now
    assert await store.aget(("notes",), "b", refresh_ttl=False) is not None
    _clock(memory).advance(30)
    assert await store.aget(("notes",), "a") is not None
    assert await store.aget(("notes",), "b") is None  # 80 s after its write
    assert [i.key for i in await store.asearch(("notes",))] == ["c", "a"]
    _clock(memory).advance(61)
    assert [i.key for i in await store.asearch(("notes",), refresh_ttl=False)] == ["c"]
    assert await store.alist_namespaces() == [("notes",)]
    assert await store.asweep_ttl() == 1


async def test_no_refresh_on_read_when_configured(memory: Memory) -> None:
    store = SedimemStore(memory, ttl={"default_ttl": 1.0, "refresh_on_read": False})
    await store.aput(("n",), "a", {"v": 1})
    _clock(memory).advance(50)
    assert await store.aget(("n",), "a") is not None
    _clock(memory).advance(20)
    assert await store.aget(("n",), "a") is None
    # a read may still ask for the refresh itself
    await store.aput(("n",), "b", {"v": 2})
    _clock(memory).advance(50)
    assert await store.aget(("n",), "b", refresh_ttl=True) is not None
    _clock(memory).advance(20)
    assert await store.aget(("n",), "b") is not None


async def test_query_ranks_matches_and_keeps_unindexed_ones_last(memory: Memory) -> None:
    store = SedimemStore(memory, index={"dims": 64, "fields": ["text"]})
    await store.aput(("m",), "1", {"text": "Ana moved to Lisbon", "note": "zebra"})
    await store.aput(("m",), "2", {"text": "the blue car is fast"})
    await store.aput(("m",), "3", {"text": "Lisbon again"}, index=False)
    await store.aput(("m",), "4", {"text": "nothing", "note": "zebra"})
    hits = await store.asearch(("m",), query="Lisbon")
    assert hits[0].key == "1"
    assert hits[0].score is not None
    assert hits[-1].key == "3"
    assert hits[-1].score is None
    assert {h.key for h in hits} == {"1", "2", "3", "4"}
    fields = await store.asearch(("m",), query="zebra", filter={"note": "zebra"}, limit=1)
    assert len(fields) == 1
    assert fields[0].key in {"1", "4"}


def test_index_text_reads_the_fields_paths_name() -> None:
    value = {
        "text": "top",
        "meta": {"title": "nested"},
        "tags": ["t1", "t2"],
        "parts": [{"body": "p1"}, {"body": "p2"}, {"other": "x"}],
        "n": 3,
    }
    assert index_text(value, None) == "top\nnested\nt1\nt2\np1\np2\nx"
    assert index_text(value, ["text"]) == "top"
    assert index_text(value, ["meta.title", "tags[*]"]) == "nested\nt1\nt2"
    assert index_text(value, ["parts[*].body"]) == "p1\np2"
    assert index_text(value, ["tags[-1]", "parts[0].body", "tags[9]", "n"]) == "t2\np1"


async def test_scopes_never_see_each_other(memory: Memory) -> None:
    ana = SedimemStore(memory, Scope(tenant="t", user="ana"))
    bob = SedimemStore(memory, Scope(tenant="t", user="bob"))
    await ana.aput(("prefs",), "color", {"v": "red"})
    await bob.aput(("prefs",), "color", {"v": "blue"})
    assert (await ana.aget(("prefs",), "color")).value == {"v": "red"}  # type: ignore[union-attr]
    assert [i.value for i in await bob.asearch(())] == [{"v": "blue"}]
    other_tenant = SedimemStore(memory, Scope(tenant="u", user="ana"))
    assert await other_tenant.asearch(()) == []


async def test_batch_reads_before_writes_and_last_write_wins(memory: Memory) -> None:
    store = SedimemStore(memory)
    results = await store.abatch(
        [
            PutOp(("n",), "k", {"v": 1}),
            GetOp(("n",), "k"),
            PutOp(("n",), "k", {"v": 2}),
            ListNamespacesOp(match_conditions=(MatchCondition("prefix", ("n",)),)),
        ]
    )
    assert results == [None, None, None, []]
    assert (await store.aget(("n",), "k")).value == {"v": 2}  # type: ignore[union-attr]


async def test_bad_input_names_the_field(memory: Memory) -> None:
    store = SedimemStore(memory)
    with pytest.raises(ValidationError, match="filter"):
        await store.asearch(("n",), filter={"v": {"$regex": "x"}})
    with pytest.raises(ValidationError, match="match_conditions"):
        await store.abatch(
            [
                ListNamespacesOp(
                    match_conditions=(
                        MatchCondition("prefix", ("a",)),
                        MatchCondition("prefix", ("b",)),
                    )
                )
            ]
        )
    with pytest.raises(ValidationError, match="offset"):
        await store.asearch(("n",), offset=-1)


def test_sync_use_through_a_background_memory(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sync.db'}"
    with BackgroundMemory.open(url, embedder=HashEmbedder()) as bg:
        store = SedimemStore(bg.memory, Scope(tenant="t"), bridge=bg.bridge)
        store.put(("a", "b"), "k", {"text": "hello"})
        assert store.get(("a", "b"), "k").value == {"text": "hello"}  # type: ignore[union-attr]
        assert store.list_namespaces(max_depth=1) == [("a",)]
        assert store.sweep_ttl() == 1
        store.delete(("a", "b"), "k")
        assert store.search(("a",)) == []
