"""API keys: hashed at rest, bound to a tenant, narrowed, revocable; on both stores."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sedimem.access import Access
from sedimem.embed import HashEmbedder
from sedimem.errors import NotFound, PermissionDenied, ValidationError
from sedimem.keys import ApiKeys, hash_secret
from sedimem.memory import Memory
from sedimem.scope import SYSTEM_TENANT, Scope
from sedimem.storage.longterm.base import RecordFilter


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'keys.db'}"
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture
async def memory(store_url: str) -> AsyncIterator[Memory]:
    async with await Memory.open(
        working="memory://", store=store_url, embedder=HashEmbedder(16)
    ) as m:
        yield m


async def test_create_stores_only_the_hash_and_authenticates(memory: Memory) -> None:
    issued = await memory.keys.create("acme", user="ana", label="ci")
    assert issued.secret.startswith("sdm_")
    assert len(issued.secret) > 40
    rows = await memory.longterm_store.find(SYSTEM_TENANT, RecordFilter(), limit=10)
    assert len(rows) == 1
    assert issued.secret not in rows[0].body
    assert rows[0].name == hash_secret(issued.secret)
    key = await memory.keys.authenticate(issued.secret)
    assert key == issued.key
    assert key.scope == Scope(tenant="acme", user="ana")


async def test_wrong_and_revoked_secrets_are_refused(memory: Memory) -> None:
    issued = await memory.keys.create("acme")
    for bad in ("", "sdm_nope", issued.secret + "x", issued.secret[4:], "sdm_" + "a" * 300):
        with pytest.raises(PermissionDenied):
            await memory.keys.authenticate(bad)
    revoked = await memory.keys.revoke(issued.key.id)
    assert revoked.revoked_at is not None
    with pytest.raises(PermissionDenied, match="revoked"):
        await memory.keys.authenticate(issued.secret)
    again = await memory.keys.revoke(issued.key.id)  # idempotent: the first time stays
    assert again.revoked_at == revoked.revoked_at


async def test_revoke_is_scoped_to_the_owning_tenant(memory: Memory) -> None:
    a = await memory.keys.create("tenant-a")
    with pytest.raises(NotFound):
        await memory.keys.revoke(a.key.id, access=Access(tenant="tenant-b"))
    with pytest.raises(NotFound):
        await memory.keys.revoke("no-such-key")
    assert (await memory.keys.authenticate(a.secret)).tenant == "tenant-a"


async def test_list_filters_by_tenant_and_hides_revoked(memory: Memory) -> None:
    a1 = await memory.keys.create("a")
    a2 = await memory.keys.create("a", agent="bot")
    b = await memory.keys.create("b")
    assert [k.id for k in await memory.keys.list("a")] == [a1.key.id, a2.key.id]
    await memory.keys.revoke(a1.key.id)
    assert [k.id for k in await memory.keys.list("a")] == [a2.key.id]
    assert len(await memory.keys.list("a", include_revoked=True)) == 2
    assert {k.id for k in await memory.keys.list()} == {a2.key.id, b.key.id}
    assert await memory.keys.count() == 3


async def test_keys_are_invisible_to_tenant_reads(memory: Memory) -> None:
    await memory.keys.create("default", user="ana")
    scope = Scope(tenant="default", user="ana")
    stats = await memory.stats(scope)
    assert (stats.episodes, stats.facts, stats.procedures) == (0, 0, 0)
    exported = [line async for line in memory.export(Access.local("default"), "ana")]
    assert exported == []
    with pytest.raises(ValidationError):
        Scope.parse(tenant=SYSTEM_TENANT)  # no client can name the keys' tenant


async def test_erasing_a_user_deletes_the_keys_narrowed_to_them(memory: Memory) -> None:
    ana = await memory.keys.create("default", user="ana")
    revoked = await memory.keys.create("default", user="ana")
    await memory.keys.revoke(revoked.key.id)
    bob = await memory.keys.create("default", user="bob")
    tenant_wide = await memory.keys.create("default")
    elsewhere = await memory.keys.create("other", user="ana")
    # erasing one session or a period of the user leaves their keys alone
    assert (await memory.forget(Access.local("default"), user="ana", session="s1")).api_keys == 0
    receipt = await memory.forget(Access.local("default"), user="ana")
    assert receipt.api_keys == 2
    assert receipt.erased == 2
    assert receipt.scrubbed_at is not None  # made physical, as for records
    for gone in (ana, revoked):
        with pytest.raises(PermissionDenied, match="invalid API key"):
            await memory.keys.authenticate(gone.secret)
    rows = await memory.longterm_store.find(SYSTEM_TENANT, RecordFilter(), limit=10)
    assert sorted(r.id for r in rows) == sorted(k.key.id for k in (bob, tenant_wide, elsewhere))
    for kept in (bob, tenant_wide, elsewhere):
        assert await memory.keys.authenticate(kept.secret) == kept.key


def test_narrow_takes_open_fields_from_the_request_and_refuses_changes() -> None:
    from datetime import UTC, datetime

    from sedimem.keys import ApiKey

    key = ApiKey(id="k", tenant="acme", user="ana", created_at=datetime.now(UTC))
    assert key.narrow(session="s1", agent="bot") == Scope(
        tenant="acme", user="ana", agent="bot", session="s1"
    )
    assert key.narrow(user="ana") == Scope(tenant="acme", user="ana")
    assert key.narrow(user=None) == Scope(tenant="acme", user="ana")
    with pytest.raises(PermissionDenied, match="user='ana'"):
        key.narrow(user="bob")
    with pytest.raises(ValidationError, match="tenant"):
        key.narrow(tenant="other")


async def test_create_validates_scope_fields(tmp_path: Path) -> None:
    async with await Memory.open(
        f"sqlite:///{tmp_path / 'k.db'}", embedder=HashEmbedder(16)
    ) as memory:
        keys: ApiKeys = memory.keys
        with pytest.raises(ValidationError, match=r"scope\.tenant"):
            await keys.create("")
        with pytest.raises(ValidationError, match=r"scope\.user"):
            await keys.create("acme", user="x" * 200)
        assert await keys.count() == 0


async def test_list_reads_every_page(tmp_path: Path) -> None:
    async with await Memory.open(f"sqlite:///{tmp_path / 'k.db'}", embedder=HashEmbedder(16)) as m:
        created = [(await m.keys.create("many")).key.id for _ in range(1001)]  # > one page
        await m.keys.create("other")
        assert [k.id for k in await m.keys.list("many")] == created
        assert len(await m.keys.list()) == 1002
