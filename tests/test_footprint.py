"""Statistics and profiles that add up: a view naming no user counts every user's records,
split per user on request; a user's view counts what the user sees."""

import uuid
from collections.abc import AsyncIterator

import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Fact, Procedure


@pytest.fixture
async def memory(memory_urls: tuple[str, str]) -> AsyncIterator[Memory]:
    working, store = memory_urls
    async with await Memory.open(working=working, store=store, embedder=HashEmbedder(64)) as m:
        yield m


async def fill(memory: Memory) -> str:
    """ana: 2 episodes in two sessions, 1 fact; bo: 1 episode, a move (3 fact versions);
    nobody: 1 episode, 1 procedure. Returns the tenant."""
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    ana = Scope(tenant=tenant, project="p", user="ana")
    bo = Scope(tenant=tenant, project="p", user="bo")
    shared = Scope(tenant=tenant, project="p")
    for scope, text in ((ana.with_session("s1"), "a1"), (ana.with_session("s2"), "a2")):
        await memory.episodes.record(Episode(scope=scope, description=text))
    await memory.episodes.record(Episode(scope=bo, description="b1"))
    await memory.episodes.record(Episode(scope=shared, description="shared"))
    await memory.facts.learn(Fact(scope=ana, statement="Ana prefers trains"))
    for city in ("Oslo", "Bergen"):
        await memory.facts.learn(
            Fact(
                scope=bo,
                statement=f"Bo lives in {city}",
                subject="Bo",
                predicate="lives_in",
                object=city,
            )
        )
    await memory.procedures.record(
        Procedure(scope=shared, name="plan", trigger="plan", steps=["a"])
    )
    return tenant


async def test_the_tenant_view_counts_every_user_and_adds_up(memory: Memory) -> None:
    tenant = await fill(memory)
    everyone = await memory.stats(Scope(tenant=tenant))
    # bo's move retired the open Oslo version and recorded a closed copy of it: 3 bo
    # versions, of which 2 are believed (the closed Oslo and Bergen)
    assert (everyone.episodes, everyone.facts, everyone.current_facts, everyone.procedures) == (
        4,
        4,
        3,
        1,
    )
    assert (everyone.user, everyone.by_user) == (None, None)
    split = await memory.stats(Scope(tenant=tenant, project="p", session="any"), by_user=True)
    assert split.by_user is not None
    assert [u.user for u in split.by_user] == [None, "ana", "bo"]
    rows = {u.user: (u.episodes, u.facts, u.current_facts, u.procedures) for u in split.by_user}
    assert rows == {None: (1, 0, 0, 1), "ana": (2, 1, 1, 0), "bo": (1, 3, 2, 0)}
    for field in ("episodes", "facts", "current_facts", "procedures"):
        assert getattr(split, field) == sum(getattr(u, field) for u in split.by_user)
        assert getattr(split, field) == getattr(everyone, field)
    # another project's view counts nothing of p
    assert (await memory.stats(Scope(tenant=tenant, project="q"))).episodes == 0


async def test_a_users_view_counts_what_the_user_sees(memory: Memory) -> None:
    tenant = await fill(memory)
    ana = await memory.stats(Scope(tenant=tenant, user="ana"), by_user=True)
    assert (ana.user, ana.episodes, ana.facts, ana.procedures) == ("ana", 3, 1, 1)
    assert ana.by_user is not None
    assert [(u.user, u.episodes) for u in ana.by_user] == [(None, 1), ("ana", 2)]
    nobody = await memory.stats(Scope(tenant=tenant, user="nobody"))
    assert (nobody.episodes, nobody.facts, nobody.procedures) == (1, 0, 1)


async def test_the_profile_counts_like_stats_and_samples_visible_facts(memory: Memory) -> None:
    tenant = await fill(memory)
    whole = await memory.profile(Scope(tenant=tenant))
    assert (whole.episodes, whole.facts, whole.current_facts, whole.procedures) == (4, 4, 3, 1)
    assert set(whole.recent_sessions) == {"s1", "s2"}
    assert whole.facts_sample == []  # content follows the visibility rule: no user's facts
    ana = await memory.profile(Scope(tenant=tenant, user="ana", session="s9"))
    assert (ana.episodes, ana.facts) == (3, 1)
    assert [f.statement for f in ana.facts_sample] == ["Ana prefers trains"]
    with pytest.raises(ValidationError, match="sample"):
        await memory.profile(Scope(tenant=tenant), sample=101)
