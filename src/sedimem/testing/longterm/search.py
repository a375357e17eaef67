"""Conformance: keyword and vector search, embedder binding and ``update_locked``."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import numpy as np
import pytest

from sedimem.errors import ConfigurationError, SedimemError, ValidationError
from sedimem.scope import Scope
from sedimem.storage.longterm.base import (
    FusedSearch,
    LongTermStore,
    Ranked,
    RecordFilter,
    StoredRecord,
    Traits,
)
from sedimem.testing.longterm.helpers import (
    DIM,
    EMBEDDER,
    A,
    B,
    ConformanceBase,
    hit_ids,
    ids_of,
    make_record,
    unit_vector,
)

__all__ = ["SearchConformance"]


class SearchConformance(ConformanceBase):
    """Searches honour filters inside the ranking; vectors and writes are checked."""

    # -- keyword search --------------------------------------------------------------------

    async def test_keyword_search_matches_any_term(self, store: LongTermStore) -> None:
        alpha = make_record("the alpha release shipped")
        gamma = make_record("gamma rays are dangerous")
        other = make_record("nothing relevant here")
        await store.put(A, [alpha, gamma, other])
        hits = await store.keyword_search(A, RecordFilter(), ["alpha", "gamma", "zzyzx"], 10)
        assert sorted(hit_ids(hits)) == sorted([alpha.id, gamma.id])
        assert all(score > 0 for _, score in hits)
        # Case and inflection do not matter (both sides are stemmed the same way).
        (hit,) = await store.keyword_search(A, RecordFilter(), ["SHIPPING"], 10)
        assert hit[0] == alpha.id

    async def test_keyword_ranking_prefers_more_rare_terms(self, store: LongTermStore) -> None:
        fillers = [make_record(f"ordinary filler sentence number {i}") for i in range(30)]
        one = make_record("ordinary sentence with a zebra")
        two = make_record("ordinary sentence with a zebra and a quokka")
        common = make_record("ordinary ordinary sentence sentence")
        await store.put(A, [*fillers, one, two, common])
        hits = await store.keyword_search(A, RecordFilter(), ["zebra", "quokka", "ordinary"], 3)
        assert hit_ids(hits)[:2] == [two.id, one.id]
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)
        assert len(hits) == 3

    async def test_keyword_terms_never_reach_the_query_syntax(self, store: LongTermStore) -> None:
        fox = make_record("the quick brown fox jumps")
        await store.put(A, [fox])
        nasty = ['"', "*", "AND", "OR", "NOT", "NEAR(", "NEAR(fox, 2)", "-", ":", "'", "(", ")"]
        nasty += ["^", "\\", "{", "}", "text:fox", 'a"b', "fox*", "!", "&", "|", "<->", "", "  "]
        nasty += ["%", "_", "'; DROP TABLE x; --", "é", "🦊"]
        for term in nasty:
            hits = await store.keyword_search(A, RecordFilter(), [term], 5)
            assert isinstance(hits, list), term
        # Each word of a term counts; the syntax around it is ignored.
        for term in ("fox*", "text:fox", "NEAR(fox, 2)", '"fox', "-fox", "(fox)"):
            assert hit_ids(await store.keyword_search(A, RecordFilter(), [term], 5)) == [fox.id]
        assert hit_ids(await store.keyword_search(A, RecordFilter(), nasty, 5)) == [fox.id]
        assert await store.keyword_search(A, RecordFilter(), [], 5) == []
        assert await store.keyword_search(A, RecordFilter(), ["fox"], 0) == []
        assert await store.count(A, RecordFilter()) == 1

    async def test_keyword_filter_applies_inside_the_ranking(self, store: LongTermStore) -> None:
        # 1000 rows outside the filter outrank the matching ones (short, repeated term) ...
        noise = [
            make_record("needle needle", project="elsewhere", occurred_at=float(i))
            for i in range(1000)
        ]
        long_text = "a long text about many unrelated things that mentions the needle once"
        wanted = [make_record(f"{long_text} {i}", project="here") for i in range(3)]
        await store.put(A, noise[:500])
        await store.put(A, wanted)
        await store.put(A, noise[500:])
        flt = RecordFilter(visible_to=Scope(tenant=A, project="here"))
        # ... yet a search for k returns k when k match.
        hits = await store.keyword_search(A, flt, ["needle"], 3)
        assert sorted(hit_ids(hits)) == sorted(ids_of(wanted))
        hits = await store.keyword_search(A, flt, ["needle"], 2)
        assert len(hits) == 2
        assert set(hit_ids(hits)) <= set(ids_of(wanted))

    async def test_keyword_search_spans_kinds_unless_filtered(self, store: LongTermStore) -> None:
        episode = make_record("the okapi was seen", kind="episode")
        fact = make_record("okapi live in forests", kind="fact")
        await store.put(A, [episode, fact])
        both = await store.keyword_search(A, RecordFilter(), ["okapi"], 10)
        assert sorted(hit_ids(both)) == sorted([episode.id, fact.id])
        only = await store.keyword_search(A, RecordFilter(kind="fact"), ["okapi"], 10)
        assert hit_ids(only) == [fact.id]

    # -- searches with their records -------------------------------------------------------

    async def test_search_records_are_the_searches_with_their_records(
        self, store: LongTermStore
    ) -> None:
        await self.bind(store)
        records = [
            make_record(
                f"kiwi number {i} " + "filler " * i,
                vector=unit_vector(300 + i),
                importance=i / 10,
                sources=(f"src-{i}",),
                subject=f"s{i}",
            )
            for i in range(8)
        ]
        await store.put(A, [*records, make_record("nothing to see here, no vector either")])
        stored = {r.id: r for r in await store.get(A, ids_of(records))}
        flt = RecordFilter(min_importance=0.2)
        ranked = await store.keyword_search(A, flt, ["kiwi"], 5)
        found = await store.keyword_search_records(A, flt, ["kiwi"], 5)
        assert [r.id for r, _ in found] == hit_ids(ranked)
        assert [s for _, s in found] == pytest.approx([s for _, s in ranked])
        assert all(r == stored[r.id] and r.vector is None for r, _ in found)
        query = unit_vector(7)
        ranked = await store.vector_search(A, flt, query, 5)
        found = await store.vector_search_records(A, flt, query, 5)
        assert [r.id for r, _ in found] == hit_ids(ranked)
        assert [s for _, s in found] == pytest.approx([s for _, s in ranked], abs=1e-5)
        assert all(r == stored[r.id] and r.vector is None for r, _ in found)
        assert await store.keyword_search_records(A, flt, ["kiwi"], 0) == []
        assert await store.vector_search_records(B, flt, query, 5) == []

    async def test_fused_search_reads_records_only_of_what_pick_keeps(
        self, store: LongTermStore
    ) -> None:
        if not isinstance(store, FusedSearch):
            pytest.skip(f"{store.name} has no fused search")
        await self.bind(store)
        records = [
            make_record(
                f"lychee number {i} " + "filler " * i,
                vector=unit_vector(400 + i),
                importance=i / 10,
                occurred_at=1_000.0 + i,
            )
            for i in range(8)
        ]
        no_vector = make_record("a lychee without a vector", importance=0.9)
        unrelated = make_record("nothing in common", vector=unit_vector(3))
        await store.put(A, [*records, no_vector, unrelated])
        theirs = make_record("lychee of another tenant", tenant=B)
        await store.put(B, [theirs])
        stored = {r.id: r for r in await store.get(A, ids_of([*records, no_vector, unrelated]))}
        flt = RecordFilter(min_importance=0.2)
        query = unit_vector(5)
        seen: list[tuple[list[Ranked], list[Ranked], Traits]] = []

        def pick(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
            seen.append((keyword, vector, traits))
            return [vector[0][0], keyword[-1][0], "no-such-id"]

        rows = await store.fused_search(A, flt, ["lychees"], query, 4, pick)
        ((keyword, vector, traits),) = seen
        # the candidate lists are the searches' own, in their order, with their scores
        ranked = await store.keyword_search(A, flt, ["lychees"], 4)
        assert hit_ids(keyword) == hit_ids(ranked)
        assert [s for _, s in keyword] == pytest.approx([s for _, s in ranked])
        nearest = await store.vector_search(A, flt, query, 4)
        assert hit_ids(vector) == hit_ids(nearest)
        assert [s for _, s in vector] == pytest.approx([s for _, s in nearest], abs=1e-5)
        assert no_vector.id in hit_ids(keyword) or len(keyword) == 4
        # every candidate's time and importance, and records only of the picked ids
        assert set(traits) == set(hit_ids(keyword)) | set(hit_ids(vector))
        for rid, (occurred_at, importance) in traits.items():
            assert (occurred_at, importance) == (stored[rid].occurred_at, stored[rid].importance)
        assert rows == {rid: stored[rid] for rid in (vector[0][0], keyword[-1][0])}
        assert all(r.vector is None for r in rows.values())
        # one list alone; nothing to search; another tenant's view
        lists: list[tuple[list[str], list[str]]] = []

        def first(keyword: list[Ranked], vector: list[Ranked], traits: Traits) -> list[str]:
            lists.append((hit_ids(keyword), hit_ids(vector)))
            return [*hit_ids(keyword), *hit_ids(vector)][:1]

        only = await store.fused_search(A, flt, [], query, 3, first)
        assert list(only) == hit_ids(nearest)[:1]
        only = await store.fused_search(A, flt, ["lychee"], None, 3, first)
        assert list(only) == hit_ids(ranked)[:1]
        assert lists == [([], hit_ids(nearest)[:3]), (hit_ids(ranked)[:3], [])]
        assert await store.fused_search(A, flt, ["the"], None, 3, first) == {}
        assert await store.fused_search(A, flt, ["lychee"], query, 0, first) == {}
        # each tenant sees its own records only
        assert list(await store.fused_search(B, flt, ["lychee"], query, 3, first)) == [theirs.id]

    # -- vector search ---------------------------------------------------------------------

    async def test_vector_search_returns_exact_top_k(self, store: LongTermStore) -> None:
        await self.bind(store)
        records = [make_record(f"r{i}", vector=unit_vector(100 + i)) for i in range(40)]
        await store.put(A, records)
        query = unit_vector(7)
        sims = np.array([float(r.vector @ query) for r in records if r.vector is not None])
        order = np.argsort(-sims)[:5]
        hits = await store.vector_search(A, RecordFilter(), query, 5)
        assert hit_ids(hits) == [records[i].id for i in order]
        assert [s for _, s in hits] == pytest.approx(sims[order].tolist(), abs=1e-4)
        # Cosine similarity: the query's length does not matter.
        scaled = await store.vector_search(A, RecordFilter(), query * 3.0, 5)
        assert hit_ids(scaled) == hit_ids(hits)
        assert [s for _, s in scaled] == pytest.approx([s for _, s in hits], abs=1e-4)

    async def test_vector_search_finds_k_under_a_selective_filter(
        self, store: LongTermStore
    ) -> None:
        await self.bind(store)
        query = unit_vector([1.0])
        rng = np.random.default_rng(5)
        # 2990 rows very close to the query, outside the filter ...
        crowd = []
        for i in range(2990):
            near = query + 0.05 * rng.standard_normal(DIM).astype(np.float32)
            crowd.append(
                make_record(f"crowd {i}", vector=unit_vector(near.tolist()), project="big")
            )
        # ... and 10 rows inside it, all further away.
        rare = [
            make_record(f"rare {i}", vector=unit_vector([0.2, 1.0, 0.1 * i]), project="rare")
            for i in range(10)
        ]
        for start in range(0, 2990, 500):
            await store.put(A, crowd[start : start + 500])
            if start == 1000:
                await store.put(A, rare)
        flt = RecordFilter(visible_to=Scope(tenant=A, project="rare"))
        hits = await store.vector_search(A, flt, query, 10)
        assert sorted(hit_ids(hits)) == sorted(ids_of(rare))
        hits = await store.vector_search(A, flt, query, 3)
        sims = sorted(
            ((float(r.vector @ query), r.id) for r in rare if r.vector is not None), reverse=True
        )
        assert hit_ids(hits) == [i for _, i in sims[:3]]
        assert len(await store.vector_search(A, RecordFilter(), query, 25)) == 25

    async def test_records_without_vectors_are_skipped(self, store: LongTermStore) -> None:
        await self.bind(store)
        with_vec = [make_record(f"v{i}", vector=unit_vector(i)) for i in range(3)]
        without = [make_record(f"n{i}") for i in range(5)]
        await store.put(A, [*without, *with_vec])
        hits = await store.vector_search(A, RecordFilter(), unit_vector(0), 50)
        assert sorted(hit_ids(hits)) == sorted(ids_of(with_vec))
        assert await store.count(A, RecordFilter()) == 8

    async def test_vector_search_on_an_empty_store(self, store: LongTermStore) -> None:
        await self.bind(store)
        assert await store.vector_search(A, RecordFilter(), unit_vector(1), 5) == []
        await store.put(A, [make_record("no vector")])
        assert await store.vector_search(A, RecordFilter(), unit_vector(1), 5) == []
        assert await store.vector_search(A, RecordFilter(), unit_vector(1), 0) == []

    async def test_query_vector_of_the_wrong_dimension_is_refused(
        self, store: LongTermStore
    ) -> None:
        await self.bind(store)
        await store.put(A, [make_record(vector=unit_vector(1))])
        with pytest.raises(ValidationError) as info:
            await store.vector_search(A, RecordFilter(), np.ones(DIM + 1, dtype=np.float32), 5)
        assert info.value.field == "vector"

    # -- embedder binding ------------------------------------------------------------------

    async def test_embedder_binding(self, store: LongTermStore) -> None:
        await self.bind(store)
        await self.bind(store)  # the same binding again is fine
        with pytest.raises(ConfigurationError):
            await store.bind_embedder("another-embedder", DIM)
        with pytest.raises(ConfigurationError):
            await store.bind_embedder(EMBEDDER, DIM * 2)
        record = make_record("keeps its text", vector=unit_vector(1))
        await store.put(A, [record])
        # Re-embedding: the new binding replaces the old one and every vector is dropped.
        await store.bind_embedder("another-embedder", DIM * 2, replace=True)
        assert await store.vector_search(A, RecordFilter(), np.ones(DIM * 2, np.float32), 5) == []
        assert ids_of(await store.get(A, [record.id])) == [record.id]
        assert hit_ids(await store.keyword_search(A, RecordFilter(), ["text"], 5)) == [record.id]
        wide = np.ones(DIM * 2, dtype=np.float32) / np.sqrt(DIM * 2)
        await store.put(A, [dataclasses.replace(record, vector=wide)])
        (hit,) = await store.vector_search(A, RecordFilter(), wide, 5)
        assert hit[0] == record.id
        with pytest.raises(ConfigurationError):
            await self.bind(store)

    async def test_a_vector_of_the_wrong_dimension_writes_nothing(
        self, store: LongTermStore
    ) -> None:
        await self.bind(store)
        good = make_record("good", vector=unit_vector(1))
        bad = make_record("bad", vector=np.ones(DIM - 1, dtype=np.float32))
        with pytest.raises(ValidationError) as info:
            await store.put(A, [good, bad])
        assert info.value.field == "vector"
        assert await store.count(A, RecordFilter()) == 0
        assert await store.keyword_search(A, RecordFilter(), ["good"], 5) == []

    async def test_a_vector_before_any_binding_is_refused(self, store: LongTermStore) -> None:
        with pytest.raises(ConfigurationError):
            await store.put(A, [make_record("early", vector=unit_vector(1))])
        assert await store.count(A, RecordFilter()) == 0
        await store.put(A, [make_record("no vector needs no embedder")])
        assert await store.count(A, RecordFilter()) == 1

    # -- update_locked ---------------------------------------------------------------------

    async def test_update_locked_serialises_read_decide_write(self, store: LongTermStore) -> None:
        counter = make_record("counter", body='{"n": 0}')
        await store.put(A, [counter])
        flt = RecordFilter(ids=(counter.id,))

        def increment(current: list[StoredRecord]) -> list[StoredRecord]:
            (record,) = current
            n = json.loads(record.body)["n"]
            return [dataclasses.replace(record, body=json.dumps({"n": n + 1}))]

        await asyncio.gather(
            *(store.update_locked(A, "counter", flt, increment) for _ in range(20))
        )
        (final,) = await store.get(A, [counter.id])
        assert final.body == '{"n": 20}'

    async def test_update_locked_sees_matches_and_returns_what_it_wrote(
        self, store: LongTermStore
    ) -> None:
        old = make_record("ana lives in lisbon", kind="fact", subject="ana", predicate="lives_in")
        unrelated = make_record("bo likes tea", kind="fact", subject="bo", predicate="likes")
        await store.put(A, [old, unrelated])
        seen: list[list[str]] = []
        new = make_record("ana lives in porto", kind="fact", subject="ana", predicate="lives_in")

        def supersede(current: list[StoredRecord]) -> list[StoredRecord]:
            seen.append(ids_of(current))
            return [dataclasses.replace(c, invalidated_at=50.0) for c in current] + [new]

        flt = RecordFilter(kind="fact", subject="ana", predicate="lives_in", current=True)
        written = await store.update_locked(A, "ana/lives_in", flt, supersede)
        assert seen == [[old.id]]
        assert sorted(ids_of(written)) == sorted([old.id, new.id])
        assert ids_of(await store.find(A, flt, limit=10)) == [new.id]
        assert await store.count(A, RecordFilter(kind="fact")) == 3

    async def test_update_locked_keeps_vectors_of_records_it_rewrites(
        self, store: LongTermStore
    ) -> None:
        await self.bind(store)
        record = make_record("reinforced fact", kind="fact", vector=unit_vector(9))
        await store.put(A, [record])

        def reinforce(current: list[StoredRecord]) -> list[StoredRecord]:
            return [dataclasses.replace(c, body='{"n": 1}') for c in current]

        await store.update_locked(A, "f", RecordFilter(ids=(record.id,)), reinforce)
        (hit,) = await store.vector_search(A, RecordFilter(), unit_vector(9), 5)
        assert hit[0] == record.id
        assert hit[1] == pytest.approx(1.0, abs=1e-4)

    async def test_an_edit_through_update_locked_is_what_the_next_search_finds(
        self, store: LongTermStore
    ) -> None:
        await self.bind(store)
        record = make_record("ferry to Bergen", vector=unit_vector(3))
        other = make_record("ferry to Stavanger", vector=unit_vector(5))
        await store.put(A, [record, other])
        assert hit_ids(await store.keyword_search(A, RecordFilter(), ["ferry"], 5))  # indexed

        def edit(current: list[StoredRecord]) -> list[StoredRecord]:
            return [dataclasses.replace(current[0], text="train to Oslo", vector=unit_vector(7))]

        await store.update_locked(A, "e", RecordFilter(ids=(record.id,)), edit)
        assert hit_ids(await store.keyword_search(A, RecordFilter(), ["ferry"], 5)) == [other.id]
        assert hit_ids(await store.keyword_search(A, RecordFilter(), ["oslo"], 5)) == [record.id]
        (best, *_) = await store.vector_search(A, RecordFilter(), unit_vector(7), 5)
        assert best[0] == record.id
        assert best[1] == pytest.approx(1.0, abs=1e-4)
        far = await store.vector_search(A, RecordFilter(), unit_vector(3), 5)
        assert all(score < 0.99 for _, score in far)

    async def test_a_failing_decision_writes_nothing(self, store: LongTermStore) -> None:
        await self.bind(store)
        record = make_record("untouched", body='{"n": 0}')
        await store.put(A, [record])

        class Boom(Exception):
            pass

        def explode(current: list[StoredRecord]) -> list[StoredRecord]:
            raise Boom

        with pytest.raises(Boom):
            await store.update_locked(A, "k", RecordFilter(), explode)

        def half_bad(current: list[StoredRecord]) -> list[StoredRecord]:
            changed = [dataclasses.replace(c, body='{"n": 1}') for c in current]
            return [*changed, make_record("bad", vector=np.ones(DIM + 3, dtype=np.float32))]

        with pytest.raises(SedimemError):
            await store.update_locked(A, "k", RecordFilter(), half_bad)
        assert await store.get(A, [record.id]) == [record]
        assert await store.count(A, RecordFilter()) == 1
