"""A record may cite only episodes its own scope can read (``source_episode_ids``)."""

from __future__ import annotations

import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.procedural import ProceduralMemory
from sedimem.longterm.semantic import SemanticMemory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter
from sedimem.types import Episode, Fact, Procedure

ANA = Scope(tenant="t", user="ana")
BOB = Scope(tenant="t", user="bob")


async def test_a_fact_cites_episodes_its_scope_reads_and_nothing_else(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    episodes = EpisodicMemory(lt_store, embedder)
    facts = SemanticMemory(lt_store, embedder)
    anas = await episodes.record(Episode(scope=ANA, description="ana's private note"))
    shared = await episodes.record(Episode(scope=Scope(tenant="t"), description="team news"))
    other_tenant = await episodes.record(Episode(scope=Scope(tenant="u"), description="x"))
    in_session = await episodes.record(Episode(scope=BOB.with_session("s1"), description="y"))
    # bob's own episodes (from any session) and the tenant-wide ones: fine
    ok = Fact(scope=BOB.with_session("s2"), statement="bob is fine",
              source_episode_ids=[shared.id, in_session.id])  # fmt: skip
    assert (await facts.learn(ok)).action == "inserted"
    # ana's private episode, another tenant's, or one that does not exist: refused, and
    # reported alike (the refusal does not tell which ids exist)
    for cited in (anas.id, other_tenant.id, "no-such-episode"):
        bad = Fact(scope=BOB, statement=f"bob cites {cited}", source_episode_ids=[cited])
        with pytest.raises(ValidationError) as refused:
            await facts.learn(bad)
        assert refused.value.field == "source_episode_ids"
        assert "do not exist or that this scope cannot read" in str(refused.value)
        assert refused.value.allowed
    # nothing was written
    found = await lt_store.find("t", RecordFilter(kind="fact"), limit=10)
    assert [row.id for row in found] == [ok.id]


async def test_a_procedure_cites_only_episodes_its_scope_reads(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    anas = await EpisodicMemory(lt_store, embedder).record(Episode(scope=ANA, description="x"))
    procedures = ProceduralMemory(lt_store, embedder)
    steal = Procedure(scope=BOB, name="n", trigger="t", steps=["s"], source_episode_ids=[anas.id])
    with pytest.raises(ValidationError, match="source_episode_ids"):
        await procedures.record(steal)
    own = Procedure(scope=ANA, name="n", trigger="t", steps=["s"], source_episode_ids=[anas.id])
    assert (await procedures.record(own)).source_episode_ids == [anas.id]


async def test_many_sources_are_checked_in_pages(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    episodes = EpisodicMemory(lt_store, embedder)
    recorded = await episodes.record_many(
        [Episode(scope=ANA, description=f"note {i}") for i in range(1005)]
    )
    ids = [e.id for e in recorded]
    fact = Fact(scope=ANA, statement="ana writes notes", source_episode_ids=ids)
    assert (await SemanticMemory(lt_store, embedder).learn(fact)).action == "inserted"
    many_missing = Fact(scope=ANA, statement="x", source_episode_ids=[f"m{i}" for i in range(7)])
    with pytest.raises(ValidationError, match="and 2 more"):
        await SemanticMemory(lt_store, embedder).learn(many_missing)
