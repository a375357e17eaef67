"""Narrowed keys: a field the key fixes cannot change (403); records beyond it are 404."""

from __future__ import annotations

import httpx
import pytest

from sedimem.api.narrowing import OwnerFields, ScopeFields, ensure_within, resolve
from sedimem.errors import NotFound, PermissionDenied, ValidationError
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


async def test_records_beyond_the_narrowing_do_not_exist(
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
    assert_problem(await client.get(f"/v1/episodes/{bob.json()['id']}", headers=ana), 404)
    pid = procedure.json()["id"]
    assert_problem(await client.get(f"/v1/procedures/{pid}", headers=ana), 404)
    outcome = await client.post(
        f"/v1/procedures/{pid}/outcome", json={"success": True}, headers=ana
    )
    assert_problem(outcome, 404)
    assert (await client.get(f"/v1/episodes/{shared.json()['id']}", headers=ana)).status_code == 200


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


async def test_ensure_within(memory: Memory) -> None:
    key = (await memory.keys.create("acme", project="p")).key
    ensure_within(key, Scope(tenant="acme", project="p", user="u"), "x")
    ensure_within(key, Scope(tenant="acme"), "x")
    with pytest.raises(NotFound):
        ensure_within(key, Scope(tenant="acme", project="q"), "x")
