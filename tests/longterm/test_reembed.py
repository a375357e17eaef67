import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import ConfigurationError, ValidationError
from sedimem.longterm import EpisodicMemory, reembed
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.types import Episode


async def test_reembed_moves_every_tenant_to_the_new_embedder(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    old = EpisodicMemory(lt_store, embedder)
    for tenant in ("a", "b"):
        await old.record_many(
            [Episode(scope=Scope(tenant=tenant), description=f"note {i} about {tenant}")
             for i in range(7)]
        )  # fmt: skip
    bigger = HashEmbedder(32)
    with pytest.raises(ConfigurationError):
        await lt_store.bind_embedder(bigger.name, bigger.dimension)
    seen: list[int] = []
    report = await reembed(lt_store, bigger, page_size=3, progress=seen.append)
    assert (report.tenants, report.records, report.dimension) == (2, 14, 32)
    assert sum(seen) == 14
    new = EpisodicMemory(lt_store, bigger)
    hits = await new.recall("note 3 about a", scope=Scope(tenant="a"), k=3, mode="vector")
    assert hits[0].record.description == "note 3 about a"
    assert {h.record.scope.tenant for h in hits} == {"a"}
    # vectors of the old embedder are refused, naming the bound dimension
    with pytest.raises(ValidationError, match="32") as info:
        await old.record(Episode(scope=Scope(tenant="a"), description="old embedder"))
    assert info.value.field == "vector"
