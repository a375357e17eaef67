"""API keys over HTTP: the admin issues and lists; revocation by the admin or the tenant."""

from __future__ import annotations

import httpx

from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.memory import Memory
from tests.api.conftest import ADMIN, assert_problem, bearer


async def test_admin_issues_lists_and_revokes(client: httpx.AsyncClient) -> None:
    created = await client.post(
        "/v1/keys",
        json={"tenant": "acme", "user": "ana", "label": "ana's laptop"},
        headers=ADMIN,
    )
    assert created.status_code == 201
    body = created.json()
    assert body["secret"].startswith("sdm_")
    assert body["id"] == body["key"]["id"]
    assert body["key"]["user"] == "ana"
    assert "secret" not in body["key"]

    key = {"Authorization": f"Bearer {body['secret']}"}
    assert (await client.get("/v1/stats", headers=key)).status_code == 200

    other = await client.post("/v1/keys", json={"tenant": "globex"}, headers=ADMIN)
    listed = (await client.get("/v1/keys", headers=ADMIN)).json()["items"]
    assert {k["tenant"] for k in listed} == {"acme", "globex"}
    only = (await client.get("/v1/keys?tenant=globex", headers=ADMIN)).json()["items"]
    assert [k["id"] for k in only] == [other.json()["id"]]
    assert all("secret" not in k for k in listed)

    revoked = await client.delete(f"/v1/keys/{body['id']}", headers=ADMIN)
    assert revoked.json()["revoked_at"]
    assert_problem(await client.get("/v1/stats", headers=key), 401)
    kept = (await client.get("/v1/keys?include_revoked=true", headers=ADMIN)).json()["items"]
    assert len(kept) == 2
    assert_problem(await client.delete("/v1/keys/nope", headers=ADMIN), 404)


async def test_a_tenant_key_revokes_within_its_tenant(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    wide = await bearer(memory, "acme")
    mine = await memory.keys.create("acme", user="ana")
    theirs = await memory.keys.create("globex")
    assert (await client.delete(f"/v1/keys/{mine.key.id}", headers=wide)).status_code == 200
    assert_problem(await client.delete(f"/v1/keys/{theirs.key.id}", headers=wide), 404)


async def test_a_narrowed_key_revokes_only_itself(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    wide = await memory.keys.create("acme")
    narrow = await memory.keys.create("acme", user="ana")
    headers = {"Authorization": f"Bearer {narrow.secret}"}
    assert_problem(await client.delete(f"/v1/keys/{wide.key.id}", headers=headers), 403)
    assert (await client.delete(f"/v1/keys/{narrow.key.id}", headers=headers)).status_code == 200
    assert_problem(await client.get("/v1/stats", headers=headers), 401)


async def test_key_requests_are_validated(client: httpx.AsyncClient) -> None:
    missing = await client.post("/v1/keys", json={}, headers=ADMIN)
    assert_problem(missing, 422, "tenant")
    control = await client.post("/v1/keys", json={"tenant": "a\x1fb"}, headers=ADMIN)
    assert_problem(control, 422, "tenant")


async def test_revoking_without_an_admin_key_configured(memory: Memory) -> None:
    app = create_app(memory, Settings(admin_key=None))
    transport = httpx.ASGITransport(app)
    own = await memory.keys.create("acme")
    headers = {"Authorization": f"Bearer {own.secret}"}
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        assert (await client.delete(f"/v1/keys/{own.key.id}", headers=headers)).status_code == 200
        assert_problem(await client.delete(f"/v1/keys/{own.key.id}", headers=ADMIN), 401)
