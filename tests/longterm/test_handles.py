"""A record read by its handle (``sedimem.ids.handle``, what a context's ``(id ...)`` shows),
on both backends: the tier's ``get`` and ``Memory.read``, within the tenant and the scope's
reach, a shared handle refused with both ids, edits by whole id only."""

from __future__ import annotations

import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import NotFound, PermissionDenied, ValidationError
from sedimem.ids import HANDLE_LENGTH, handle
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.types import Episode, Fact, Procedure

ANA = Scope(tenant="a", user="ana")
TAIL = "0123456789"


@pytest.fixture
def episodes(lt_store: LongTermStore, embedder: HashEmbedder) -> EpisodicMemory:
    return EpisodicMemory(lt_store, embedder)


@pytest.fixture
async def memory(lt_url: str) -> Memory:
    return await Memory.open(working="memory://", store=lt_url, embedder=HashEmbedder(64))


def made(n: int) -> str:
    """An id of sedimem's shape ending in :data:`TAIL`."""
    return f"01a22222-{n:04d}-7bbb-8ccc-dd{TAIL}"


async def test_a_tier_reads_a_record_by_its_handle(episodes: EpisodicMemory) -> None:
    stored = await episodes.record(Episode(scope=ANA, description="fixed the build"))
    short = handle(stored.id)
    assert len(short) == HANDLE_LENGTH
    assert stored.id.endswith(short)
    assert await episodes.get(short, scope=ANA) == stored
    assert await episodes.get(short, tenant="a") == stored
    # another tenant has no such record; another user of the tenant may not read it
    with pytest.raises(NotFound):
        await episodes.get(short, tenant="b")
    with pytest.raises(PermissionDenied):
        await episodes.get(short, scope=Scope(tenant="a", user="bob"))
    # an edit or a delete takes the whole id (read it first)
    with pytest.raises(NotFound):
        await episodes.update(short, {"importance": 0.1}, scope=ANA)
    assert await episodes.delete(short, scope=ANA) is False
    assert await episodes.delete(stored.id, scope=ANA) is True
    with pytest.raises(NotFound):
        await episodes.get(short, scope=ANA)


async def test_a_shared_handle_is_refused_with_the_ids_the_scope_reaches(
    episodes: EpisodicMemory,
) -> None:
    first = await episodes.record(Episode(id=made(1), scope=ANA, description="one"))
    second = await episodes.record(Episode(id=made(2), scope=ANA, description="two"))
    with pytest.raises(ValidationError) as shared:
        await episodes.get(TAIL, scope=ANA)
    assert shared.value.field == "episode_id"
    assert shared.value.allowed == f"{first.id}, {second.id}"
    # a whole id still names each
    assert (await episodes.get(second.id, scope=ANA)).description == "two"
    # of two records sharing a handle, the one the scope reaches is the one it names
    bob = Scope(tenant="a", user="bob")
    await episodes.delete(second.id, scope=ANA)
    await episodes.record(Episode(id=made(3), scope=bob, description="bob's"))
    assert (await episodes.get(TAIL, scope=ANA)).id == first.id
    assert (await episodes.get(TAIL, scope=bob)).description == "bob's"


async def test_an_id_of_a_callers_own_shape_is_read_whole(episodes: EpisodicMemory) -> None:
    mine = await episodes.record(Episode(id="order-4711-0123456789", scope=ANA, description="x"))
    assert handle(mine.id) == mine.id
    assert await episodes.get(mine.id, scope=ANA) == mine
    with pytest.raises(NotFound):
        await episodes.get(TAIL, scope=ANA)  # its tail is no handle


async def test_memory_read_returns_whichever_kind_the_handle_names(memory: Memory) -> None:
    async with memory:
        episode = await memory.episodes.record(Episode(scope=ANA, description="moved to Porto"))
        fact = (await memory.facts.learn(Fact(scope=ANA, statement="Ana lives in Porto"))).fact
        procedure = await memory.procedures.record(
            Procedure(scope=ANA, name="move", trigger="moving house", steps=["pack", "go"])
        )
        for record in (episode, fact, procedure):
            assert await memory.read(handle(record.id), ANA) == record
            assert await memory.read(record.id, ANA) == record
            assert type(await memory.read(handle(record.id), ANA)) is type(record)
        with pytest.raises(NotFound):
            await memory.read("ffffffffff", ANA)
        with pytest.raises(NotFound):
            await memory.read(handle(fact.id), Scope(tenant="b", user="ana"))
        with pytest.raises(PermissionDenied):
            await memory.read(handle(fact.id), Scope(tenant="a", user="bob"))
        with pytest.raises(ValidationError) as nul:
            await memory.read("a\x00b", ANA)
        assert nul.value.field == "id"
