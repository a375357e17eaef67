"""Hybrid recall's second stage through the service, on every long-term backend."""

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sedimem.embed import HashEmbedder
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.stores import open_longterm_store
from sedimem.retrieval.fusion import RetrievalSettings
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.testing.clock import ManualClock
from sedimem.types import Episode

NOW = datetime(2023, 8, 11, 12, tzinfo=UTC)
SCOPE = Scope(tenant="t", project="p")
FUSION_ONLY = RetrievalSettings(rerank_depth=0)


def turn(text: str, day: str, session: str = "s") -> Episode:
    when = datetime.fromisoformat(day).replace(tzinfo=UTC)
    scope = SCOPE.model_copy(update={"session": session})
    return Episode(scope=scope, task_type="conversation", description=text, occurred_at=when)


CORPUS = [
    turn("Ana: the last pottery class of the season, Ana loved it", "2023-03-10", "s1"),
    turn("Ana: I went hiking in the mountains with friends", "2023-05-14", "s2"),
    turn("Ana: the last leg of the road trip, our last stop", "2023-07-02", "s3"),
    turn("Bo: Ana, the last time we met you were so tired", "2023-07-20", "s4"),
    turn("Bo: I repaired my bike and rode to the lake", "2023-06-01", "s5"),
]


def memory(store: LongTermStore, settings: RetrievalSettings | None = None) -> EpisodicMemory:
    clock = ManualClock(NOW.timestamp())
    return EpisodicMemory(store, HashEmbedder(64), settings=settings, clock=clock)


async def test_what_someone_did_last_may_ranks_the_may_turn_first(
    lt_store: LongTermStore,
) -> None:
    episodes = memory(lt_store)
    await episodes.record_many(CORPUS)
    query = "What did Ana do last May?"
    plain = await memory(lt_store, FUSION_ONLY).recall(query, scope=SCOPE, k=5)
    # fusion alone ranks the turns sharing the words "Ana" and "last" first...
    assert plain[0].record.id != CORPUS[1].id
    assert plain[0].explain.time is None
    hits = await episodes.recall(query, scope=SCOPE, k=5)
    # ...the second stage reads "last May" (May 2023, before 11 August) and lifts that turn
    assert hits[0].record.id == CORPUS[1].id
    assert hits[0].explain.time == 1.0
    assert hits[0].score == max(h.score for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # an absolute date works the same, and so does one far from every turn (no effect)
    july = await episodes.recall("Ana and the road trip in July 2023", scope=SCOPE, k=5)
    assert july[0].record.id == CORPUS[2].id


async def test_a_when_question_prefers_the_turn_that_names_a_time(
    lt_store: LongTermStore,
) -> None:
    episodes = memory(lt_store)
    vague = turn("Cy: I ran the charity race for the shelter", "2023-05-01")
    dated = turn("Cy: the charity race was last Sunday, so fun", "2023-05-02")
    filler = [
        turn(f"Cy: the charity race number {i} for the shelter", "2023-04-01") for i in range(3)
    ]
    await episodes.record_many([vague, *filler, dated])
    hits = await episodes.recall("When did Cy run the charity race?", scope=SCOPE, k=5)
    assert hits[0].record.id == dated.id
    assert hits[0].explain.time == 1.0


async def test_single_modes_are_the_plain_lists_and_hybrid_explains_its_second_stage(
    lt_store: LongTermStore,
) -> None:
    episodes = memory(lt_store)
    await episodes.record_many(CORPUS)
    for mode in ("keyword", "vector"):
        hits = await episodes.recall("Ana hiking", scope=SCOPE, k=3, mode=mode)
        assert all(h.explain.coverage is None for h in hits)
    hits = await episodes.recall("Ana hiking mountains", scope=SCOPE, k=3)
    assert hits[0].record.id == CORPUS[1].id
    assert hits[0].explain.coverage == 1.0  # holds every content word of the query
    assert all(h.explain.session is not None for h in hits)
    assert len(await episodes.recall("Ana", scope=SCOPE, k=2)) == 2


class DeletingOnPeek:
    """The real SQLite store, with a record deleted (by another writer, say) between the
    search and the read of the records the second stage lifted into the top k."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.deleted: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def fused_search(self, *args: Any, **kwargs: Any) -> Any:
        return await self.inner.fused_search(*args, **kwargs)

    async def previews(self, tenant: str, ids: Sequence[str]) -> Any:
        return await self.inner.previews(tenant, ids)

    async def records_now(self, tenant: str, ids: Sequence[str]) -> Any:
        if not self.deleted:
            self.deleted.append(ids[0])
            await self.inner.delete(tenant, ids[:1])
        return await self.inner.records_now(tenant, ids)


async def test_a_record_deleted_under_the_second_stage_is_skipped(tmp_path: Path) -> None:
    store = await open_longterm_store(f"sqlite:///{tmp_path / 'lt.db'}")
    await store.bind_embedder("hash-64", 64)
    try:
        wrapped = DeletingOnPeek(store)
        episodes = memory(cast(LongTermStore, wrapped))
        # the fused top 3 is three plain turns; "last May" lifts the May turns above them
        plain = [turn(f"Ana: hiking again and again, trip {i}", "2023-07-01") for i in range(3)]
        may = [turn(f"Ana: a walk by the sea {i}", "2023-05-1" + str(i)) for i in range(4)]
        await episodes.record_many(plain + may)
        hits = await episodes.recall("Ana hiking trip last May", scope=SCOPE, k=3)
        assert wrapped.deleted  # the second stage asked for whole records it had lifted
        assert len(hits) == 3
        assert wrapped.deleted[0] not in {h.record.id for h in hits}
        assert {h.record.id for h in hits} <= {e.id for e in may}
    finally:
        await store.aclose()


class CountingReads(DeletingOnPeek):
    """The real SQLite store, recording what each read after the search asked for."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self.reads: list[tuple[str, list[str]]] = []
        self.picked: list[Sequence[str]] = []

    async def fused_search(self, *args: Any, **kwargs: Any) -> Any:
        *head, pick = args

        def recorded(*given: Any) -> Any:
            chosen = pick(*given)
            self.picked.append(chosen)
            return chosen

        return await self.inner.fused_search(*head, recorded, **kwargs)

    async def previews(self, tenant: str, ids: Sequence[str]) -> Any:
        self.reads.append(("previews", list(ids)))
        return await self.inner.previews(tenant, ids)

    async def records_now(self, tenant: str, ids: Sequence[str]) -> Any:
        self.reads.append(("records", list(ids)))
        return await self.inner.records_now(tenant, ids)


async def test_hybrid_recall_reads_previews_of_all_then_records_of_the_top_k(
    tmp_path: Path,
) -> None:
    store = await open_longterm_store(f"sqlite:///{tmp_path / 'lt.db'}")
    await store.bind_embedder("hash-64", 64)
    try:
        wrapped = CountingReads(store)
        episodes = memory(cast(LongTermStore, wrapped))
        await episodes.record_many(CORPUS)
        hits = await episodes.recall("What did Ana do last May?", scope=SCOPE, k=2)
        assert wrapped.picked == [[]]  # the search itself reads no record
        (kind, candidates), (then, returned) = wrapped.reads
        assert kind == "previews"
        assert set(candidates) == {e.id for e in CORPUS}  # every candidate, in one read
        assert then == "records"
        assert returned == [h.record.id for h in hits]  # the final top k, in one read
        assert hits[0].record.id == CORPUS[1].id
    finally:
        await store.aclose()


class FusingBeforeRules:
    """A store written against the protocol before ``fusion=`` existed: its
    ``fused_search`` takes no such argument and fuses in ``pick`` alone."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def fused_search(
        self, tenant: str, flt: Any, terms: Any, vector: Any, pool: int, pick: Any
    ) -> Any:
        self.calls += 1
        return await self.inner.fused_search(tenant, flt, terms, vector, pool, pick)


async def test_a_store_whose_fused_search_predates_the_fusion_argument_still_searches(
    tmp_path: Path,
) -> None:
    store = await open_longterm_store(f"sqlite:///{tmp_path / 'lt.db'}")
    await store.bind_embedder("hash-64", 64)
    try:
        older = FusingBeforeRules(store)
        await memory(store).record_many(CORPUS)
        for mode in ("keyword", "vector", "hybrid"):
            settings = FUSION_ONLY if mode == "hybrid" else None
            direct = await memory(store, settings).recall(
                "Ana hiking mountains", scope=SCOPE, k=3, mode=mode
            )
            through = await memory(cast(LongTermStore, older), settings).recall(
                "Ana hiking mountains", scope=SCOPE, k=3, mode=mode
            )
            assert [h.record.id for h in through] == [h.record.id for h in direct]
            assert through[0].record.id == CORPUS[1].id
        assert older.calls == 3  # every mode went through its fused_search, none raised
    finally:
        await store.aclose()
