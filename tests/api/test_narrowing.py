"""Narrowed keys: a field the key fixes cannot change, a record beyond it cannot be
addressed by id (403); another tenant's id does not exist (404)."""

from __future__ import annotations

import httpx
import pytest

from sedimem.api.narrowing import OwnerFields, ScopeFields, resolve
from sedimem.errors import PermissionDenied, ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.api.conftest import assert_problem, bearer


async def test_outside_the_narrowing_is_403(client: httpx.AsyncClient, memory: Memory) -> None:
    ana = await bearer(memory, user="ana", project="trips")
    cases = [
        client.get("/v1/episodes", params={"user": "bob"}, headers=ana),
        client.get("/v1/sessions/s/kv", params={"project": "other"}, headers=ana),
        client.post("/v1/episodes", json={"description": "d", "user": "bob"}, headers=ana),
        client.post("/v1/recall", json={"query": "q", "project": "other"}, headers=ana),
        client.put("/v1/blocks/persona", json={"content": "c", "user": "bob"}, headers=ana),
        client.post("/v1/sessions/s/spawn", json={"user": "bob"}, headers=ana),
    ]
    for call in cases:
        assert_problem(await call, 403)
    same = await client.get("/v1/episodes", params={"user": "ana"}, headers=ana)
    assert same.status_code == 200


async def test_a_narrowed_key_writes_in_its_scope(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    ana = await bearer(memory, user="ana")
    created = await client.post("/v1/episodes", json={"description": "mine"}, headers=ana)
    got = await client.get(f"/v1/episodes/{created.json()['id']}", headers=ana)
    assert got.json()["scope"]["user"] == "ana"


async def test_records_beyond_the_narrowing_are_refused(
    client: httpx.AsyncClient, memory: Memory, auth: dict[str, str]
) -> None:
    bob = await client.post("/v1/episodes", json={"description": "d", "user": "bob"}, headers=auth)
    shared = await client.post("/v1/episodes", json={"description": "shared"}, headers=auth)
    procedure = await client.post(
        "/v1/procedures",
        json={"name": "p", "trigger": "t", "steps": ["s"], "user": "bob"},
        headers=auth,
    )
    ana = await bearer(memory, user="ana")
    eid, pid, sid = bob.json()["id"], procedure.json()["id"], shared.json()["id"]
    assert_problem(await client.get(f"/v1/episodes/{eid}", headers=ana), 403)
    assert_problem(await client.get(f"/v1/procedures/{pid}", headers=ana), 403)
    outcome = await client.post(
        f"/v1/procedures/{pid}/outcome", json={"success": True}, headers=ana
    )
    assert_problem(outcome, 403)
    for call in (
        client.patch(f"/v1/episodes/{eid}", json={"importance": 0.1}, headers=ana),
        client.delete(f"/v1/episodes/{eid}", headers=ana),
        client.patch(f"/v1/procedures/{pid}", json={"trigger": "x"}, headers=ana),
        client.delete(f"/v1/procedures/{pid}", headers=ana),
        # a shared record: read by the narrowed key, changed only by a wider one
        client.patch(f"/v1/episodes/{sid}", json={"importance": 0.1}, headers=ana),
        client.delete(f"/v1/episodes/{sid}", headers=ana),
    ):
        assert_problem(await call, 403)
    assert (await client.get(f"/v1/episodes/{sid}", headers=ana)).status_code == 200
    assert (await client.get(f"/v1/episodes/{eid}", headers=auth)).status_code == 200
    # another tenant's ids: absent, whatever the method
    other = await bearer(memory, tenant="other")
    for call in (
        client.get(f"/v1/episodes/{eid}", headers=other),
        client.patch(f"/v1/episodes/{eid}", json={"importance": 0.1}, headers=other),
        client.delete(f"/v1/episodes/{eid}", headers=other),
        client.delete(f"/v1/procedures/{pid}", headers=other),
    ):
        assert_problem(await call, 404)


async def test_resolve_merges_query_and_body(memory: Memory) -> None:
    key = (await memory.keys.create("acme", user="ana")).key
    scope = resolve(key, OwnerFields(project="p"), ScopeFields(project="p", agent="a"), session="s")
    assert scope == Scope(tenant="acme", project="p", user="ana", agent="a", session="s")
    with pytest.raises(ValidationError) as clash:
        resolve(key, OwnerFields(project="p"), OwnerFields(project="q"))
    assert clash.value.field == "project"
    with pytest.raises(PermissionDenied):
        resolve(key, OwnerFields(user="bob"))
    assert resolve(key, None).user == "ana"
