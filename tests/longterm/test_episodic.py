import asyncio
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

import pytest

from sedimem.access import Access
from sedimem.embed import HashEmbedder
from sedimem.errors import NotFound, PermissionDenied, StoreUnavailable, ValidationError
from sedimem.longterm.episodic import WRITES_IN_FLIGHT, EpisodicMemory
from sedimem.longterm.records import episode_row
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, StoredRecord
from sedimem.types import Episode, Outcome

T0 = datetime(2025, 3, 1, tzinfo=UTC)


@pytest.fixture
def episodes(lt_store: LongTermStore, embedder: HashEmbedder) -> EpisodicMemory:
    return EpisodicMemory(lt_store, embedder)


def ep(text: str, scope: Scope, **kwargs: object) -> Episode:
    return Episode(scope=scope, description=text, **kwargs)  # type: ignore[arg-type]


async def test_record_get_delete(episodes: EpisodicMemory) -> None:
    scope = Scope(tenant="a", project="p")
    stored = await episodes.record(ep("fixed the flaky login test", scope, actions=["rerun"]))
    again = await episodes.get(stored.id, tenant="a")
    assert again == stored
    with pytest.raises(NotFound):
        await episodes.get(stored.id, tenant="b")
    assert await episodes.delete(stored.id, tenant="b") is False
    assert await episodes.delete(stored.id, tenant="a") is True
    with pytest.raises(NotFound):
        await episodes.get(stored.id, tenant="a")


async def test_recall_finds_by_meaning_and_keywords_with_explanations(
    episodes: EpisodicMemory,
) -> None:
    scope = Scope(tenant="a", project="p")
    await episodes.record_many(
        [
            ep("deployed the billing service to staging", scope),
            ep("wrote unit tests for the parser", scope),
            ep("investigated a memory leak in the cache", scope),
        ]
    )
    hits = await episodes.recall("billing deployment staging", scope=scope, k=2)
    assert hits[0].record.description == "deployed the billing service to staging"
    why = hits[0].explain
    assert why.keyword_rank == 1
    assert why.vector_rank == 1
    assert why.score == hits[0].score
    assert 0 < why.fused <= 1
    keyword_only = await episodes.recall("parser", scope=scope, mode="keyword")
    assert [h.record.description for h in keyword_only] == ["wrote unit tests for the parser"]
    assert keyword_only[0].explain.vector is None


class GetCounter:
    """A store that counts ``get`` calls (and forwards everything)."""

    def __init__(self, inner: LongTermStore) -> None:
        self.inner = inner
        self.gets = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def get(self, tenant: str, ids: Sequence[str]) -> list[StoredRecord]:
        self.gets += 1
        return await self.inner.get(tenant, ids)


async def test_recall_reads_the_candidates_in_the_searches(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    """Fusion needs every candidate's time and importance: they come with the search hits,
    not from a ``get`` of every candidate afterwards (one round trip less on PostgreSQL)."""
    counter = GetCounter(lt_store)
    episodes = EpisodicMemory(cast(LongTermStore, counter), embedder)
    scope = Scope(tenant="a", project="p")
    stored = await episodes.record_many(
        [ep(f"rotated the {word} credentials", scope) for word in ("api", "db", "smtp")]
    )
    for mode in ("hybrid", "keyword", "vector"):
        hits = await episodes.recall("rotated credentials", scope=scope, k=3, mode=mode)
        assert sorted(h.record.id for h in hits) == sorted(e.id for e in stored)
        for hit in hits:
            assert hit.record == await episodes.get(hit.record.id, tenant="a")
    counter.gets = 0
    await episodes.recall("rotated credentials", scope=scope, k=3)
    assert counter.gets == 0


async def test_recall_filters_inside_the_store(episodes: EpisodicMemory) -> None:
    scope = Scope(tenant="a", project="p")
    many = [ep(f"routine deploy number {i}", scope, outcome="success") for i in range(60)]
    rare = [
        ep(f"deploy failed with timeout {i}", scope, outcome="failure", occurred_at=T0)
        for i in range(3)
    ]
    await episodes.record_many(many + rare)
    hits = await episodes.recall("routine deploy", scope=scope, k=3, outcome=Outcome.FAILURE)
    assert len(hits) == 3
    assert all(h.record.outcome is Outcome.FAILURE for h in hits)
    window = (T0 - timedelta(days=1), T0 + timedelta(days=1))
    hits = await episodes.recall("deploy", scope=scope, k=10, time_range=window)
    assert {h.record.id for h in hits} == {e.id for e in rare}
    assert await episodes.recall("deploy", scope=scope, min_importance=0.9) == []


async def test_visibility_and_tenant_isolation(episodes: EpisodicMemory) -> None:
    project = Scope(tenant="a", project="p")
    agent_session = Scope(tenant="a", project="p", agent="bot", session="s1")
    private = Scope(tenant="a", project="p", user="ana")
    await episodes.record(ep("project wide note about kafka", project))
    await episodes.record(ep("session note about kafka", agent_session))
    await episodes.record(ep("ana private note about kafka", private))
    await episodes.record(ep("other tenant note about kafka", Scope(tenant="b", project="p")))

    def texts(hits: list) -> set[str]:  # type: ignore[type-arg]
        return {h.record.description for h in hits}

    seen_by_session = await episodes.recall("kafka", scope=agent_session)
    assert texts(seen_by_session) == {"project wide note about kafka", "session note about kafka"}
    seen_by_project = await episodes.recall("kafka", scope=project)
    assert texts(seen_by_project) == {"project wide note about kafka", "session note about kafka"}
    # a session is provenance, not a boundary: the agent's next session sees the first's
    other_session = Scope(tenant="a", project="p", agent="bot", session="s2")
    assert texts(await episodes.recall("kafka", scope=other_session)) == {
        "project wide note about kafka",
        "session note about kafka",
    }
    # "only this session" is asked for explicitly
    assert texts(await episodes.recall("kafka", scope=other_session, session="s1")) == {
        "session note about kafka"
    }
    assert await episodes.recall("kafka", scope=other_session, session="s2") == []
    listed = await episodes.list(project, session="s1")
    assert [e.description for e in listed.items] == ["session note about kafka"]
    with pytest.raises(ValidationError, match="session"):
        await episodes.list(project, session="")
    with pytest.raises(ValidationError, match="session"):
        await episodes.recall("kafka", scope=project, session="a\nb")
    assert "ana private note about kafka" in texts(
        await episodes.recall("kafka", scope=Scope(tenant="a", project="p", user="ana"))
    )
    assert texts(await episodes.recall("kafka", scope=Scope(tenant="b"))) == {
        "other tenant note about kafka"
    }
    assert (await episodes.list(Scope(tenant="c"))).items == []


async def test_list_pages_with_a_cursor(episodes: EpisodicMemory) -> None:
    scope = Scope(tenant="a")
    made = await episodes.record_many([ep(f"episode {i}", scope) for i in range(7)])
    seen = []
    cursor = None
    while True:
        page = await episodes.list(scope, limit=3, cursor=cursor)
        seen += [e.id for e in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [e.id for e in made]
    newest = await episodes.list(scope, limit=2, newest_first=True)
    assert [e.id for e in newest.items] == [made[-1].id, made[-2].id]
    failures = await episodes.list(scope, outcome="failure")
    assert failures.items == []


async def test_session_messages(episodes: EpisodicMemory) -> None:
    scope = Scope(tenant="a", user="ana", session="chat")
    await episodes.record(ep("turn 2", scope, input_text="and now?", output_text="later",
                             occurred_at=T0 + timedelta(minutes=1)))  # fmt: skip
    await episodes.record(ep("turn 1", scope, input_text="hi", output_text="hello",
                             occurred_at=T0))  # fmt: skip
    await episodes.record(ep("no text", scope))
    await episodes.record(ep("elsewhere", scope.with_session("other"), input_text="x"))
    assert await episodes.session_messages(scope) == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "and now?"},
        {"role": "assistant", "content": "later"},
    ]


@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"query": ""}, "query"),
        ({"query": "x", "k": 0}, "k"),
        ({"query": "x", "k": 1001}, "k"),
        ({"query": "x", "outcome": "meh"}, "outcome"),
        ({"query": "x", "min_importance": 2}, "min_importance"),
        ({"query": "x", "mode": "psychic"}, "mode"),
        ({"query": "x", "time_range": (T0, T0 - timedelta(days=1))}, "time_range"),
        ({"query": "x", "time_range": (datetime(2024, 1, 1), T0)}, "time_range"),
    ],
)
async def test_bad_recall_arguments(
    episodes: EpisodicMemory, call: dict[str, object], field: str
) -> None:
    with pytest.raises(ValidationError) as info:
        await episodes.recall(scope=Scope(), **call)  # type: ignore[arg-type]
    assert info.value.field == field


async def test_bad_embedding_and_batch(episodes: EpisodicMemory) -> None:
    with pytest.raises(ValidationError) as info:
        await episodes.record(ep("x", Scope()), embedding=[0.1] * 3)
    assert info.value.field == "embedding"
    with pytest.raises(ValidationError, match="batch_size"):
        await episodes.record_many([], batch_size=0)
    with pytest.raises(ValidationError, match="limit"):
        await episodes.list(Scope(), limit=0)
    with pytest.raises(ValidationError, match=r"scope\.session"):
        await episodes.session_messages(Scope())
    stored = await episodes.record(ep("given vector", Scope()), embedding=[1.0] + [0.0] * 63)
    assert (await episodes.get(stored.id)).description == "given vector"


async def test_an_episode_stored_with_nul_before_the_rule_reads_and_exports(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'legacy.db'}"
    async with await Memory.open(url, embedder=HashEmbedder(64)) as memory:
        fields = {**Episode(description="x", scope=Scope(tenant="t")).__dict__}
        legacy = Episode.model_construct(**{**fields, "description": "a\x00b"})
        await memory.longterm_store.put("t", [episode_row(legacy, None)])
        read = await memory.episodes.get(legacy.id, tenant="t")
        assert read.description == "a\ufffdb"
        exported = [line async for line in memory.export(Access.local("t"), None)]
        assert any(legacy.id in line for line in exported)


async def test_update_and_delete_by_id_show_in_the_next_read(episodes: EpisodicMemory) -> None:
    ana = Scope(tenant="a", user="ana")
    stored = await episodes.record(ep("booked a ferry to Bergen", ana, importance=0.2))
    other = await episodes.record(ep("renewed the passport", ana))
    changed = await episodes.update(
        stored.id,
        {"description": "booked the night train to Oslo", "importance": 0.9},
        scope=Scope(tenant="a", user="ana", session="later"),
    )
    assert (changed.description, changed.importance, changed.id) == (
        "booked the night train to Oslo", 0.9, stored.id,
    )  # fmt: skip
    assert await episodes.get(stored.id, scope=ana) == changed
    # keyword and vector search see the new text, not the old one (in-memory indexes too)
    for mode in ("keyword", "vector"):
        hits = await episodes.recall("night train Oslo", scope=ana, k=1, mode=mode)  # type: ignore[arg-type]
        assert [h.record.description for h in hits] == ["booked the night train to Oslo"]
    assert await episodes.recall("ferry Bergen", scope=ana, mode="keyword") == []
    assert await episodes.delete(stored.id, scope=ana) is True
    for mode in ("keyword", "vector"):
        left = await episodes.recall("night train Oslo", scope=ana, mode=mode)  # type: ignore[arg-type]
        assert [h.record.id for h in left] == ([other.id] if mode == "vector" else [])
    with pytest.raises(NotFound):
        await episodes.update(stored.id, {"importance": 0.1}, scope=ana)
    assert await episodes.delete(stored.id, scope=ana) is False


async def test_edits_by_id_follow_the_scope(episodes: EpisodicMemory) -> None:
    stored = await episodes.record(ep("fixed the build", Scope(tenant="a", user="ana")))
    with pytest.raises(NotFound):
        await episodes.update(stored.id, {"importance": 0.1}, scope=Scope(tenant="b"))
    for bob_tries in (
        episodes.get(stored.id, scope=Scope(tenant="a", user="bob")),
        episodes.update(stored.id, {"importance": 0.1}, scope=Scope(tenant="a", user="bob")),
        episodes.delete(stored.id, scope=Scope(tenant="a", user="bob")),
    ):
        with pytest.raises(PermissionDenied):
            await bob_tries
    with pytest.raises(ValidationError) as bad:
        await episodes.update(stored.id, {"outcome": "maybe"}, tenant="a")
    assert bad.value.field == "outcome"
    with pytest.raises(ValidationError) as unknown:
        await episodes.update(stored.id, {"occurred_at": T0}, tenant="a")
    assert unknown.value.field == "occurred_at"
    assert (await episodes.update(stored.id, {"outcome": "failure"}, tenant="a")).outcome == (
        Outcome.FAILURE
    )


class SlowPuts:
    """A store whose puts take a while (and fail for a text containing "boom"), counting
    how many run at once (everything else is forwarded)."""

    def __init__(self, inner: LongTermStore) -> None:
        self.inner = inner
        self.running = 0
        self.most = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def put(self, tenant: str, records: Sequence[StoredRecord]) -> None:
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            await asyncio.sleep(0.02)
            if any("boom" in r.text for r in records):
                raise StoreUnavailable("the batch with boom")
            await self.inner.put(tenant, records)
        finally:
            self.running -= 1


async def test_record_many_overlaps_batches_and_keeps_the_later_version(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    slow = SlowPuts(lt_store)
    episodes = EpisodicMemory(cast(LongTermStore, slow), embedder)
    scope = Scope(tenant="a", project="p")
    made = [ep(f"batched episode {i}", scope) for i in range(10)]
    again = made[1].model_copy(update={"description": "batched episode one, rewritten"})
    written: list[int] = []
    # the second batch rewrites an episode of the first: it waits for it
    await episodes.record_many([*made[:2], again, *made[2:]], batch_size=2, progress=written.append)
    assert slow.most == WRITES_IN_FLIGHT  # batches overlapped, never more than that
    assert sorted(written) == [1, 2, 2, 2, 2, 2]
    assert (await episodes.get(made[1].id, tenant="a")).description == again.description
    assert len((await episodes.list(scope, limit=100)).items) == 10


async def test_record_many_raises_the_failed_batch_after_the_others_end(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    slow = SlowPuts(lt_store)
    episodes = EpisodicMemory(cast(LongTermStore, slow), embedder)
    scope = Scope(tenant="a", project="p")
    made = [ep(f"episode {i}" + (" boom" if i == 2 else ""), scope) for i in range(4)]
    with pytest.raises(StoreUnavailable, match="boom"):
        await episodes.record_many(made, batch_size=2)
    assert slow.running == 0  # nothing left running behind the error
    for episode in made[:2]:  # the batch before it was written whole, its own not at all
        assert await episodes.get(episode.id, tenant="a") == episode
    for episode in made[2:]:
        with pytest.raises(NotFound):
            await episodes.get(episode.id, tenant="a")
