"""Who may call: API keys on /v1, the admin key on /v1/keys; 401 and 403 as problems."""

from __future__ import annotations

import httpx
import pytest
from pydantic import SecretStr

from sedimem.api import create_app
from sedimem.api.auth import is_admin
from sedimem.config import Settings
from sedimem.memory import Memory
from tests.api.conftest import ADMIN, assert_problem, bearer

ROUTES = [
    ("GET", "/v1/episodes"),
    ("POST", "/v1/recall"),
    ("GET", "/v1/sessions/s/kv"),
    ("GET", "/v1/stats"),
    ("GET", "/v1/export"),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_no_key_is_401_with_a_challenge(
    client: httpx.AsyncClient, method: str, path: str
) -> None:
    response = await client.request(method, path, json={"query": "q"})
    assert_problem(response, 401)
    assert response.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "authorization", ["Bearer sdm_unknown", "Bearer nonsense", "Basic YTpi", "Bearer"]
)
async def test_a_bad_key_is_401(client: httpx.AsyncClient, authorization: str) -> None:
    response = await client.get("/v1/stats", headers={"Authorization": authorization})
    assert_problem(response, 401)
    assert response.headers["www-authenticate"] == "Bearer"


async def test_a_revoked_key_is_401(client: httpx.AsyncClient, memory: Memory) -> None:
    issued = await memory.keys.create("acme")
    headers = {"Authorization": f"Bearer {issued.secret}"}
    assert (await client.get("/v1/stats", headers=headers)).status_code == 200
    await memory.keys.revoke(issued.key.id)
    problem = assert_problem(await client.get("/v1/stats", headers=headers), 401)
    assert "revoked" in str(problem["detail"])


async def test_admin_routes_refuse_tenant_keys(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    assert_problem(await client.post("/v1/keys", json={"tenant": "x"}, headers=auth), 403)
    assert_problem(await client.get("/v1/keys", headers=auth), 403)
    assert_problem(await client.get("/v1/keys"), 401)
    wrong = {"Authorization": "Bearer not-the-admin-key"}
    assert_problem(await client.post("/v1/keys", json={"tenant": "x"}, headers=wrong), 403)


async def test_the_admin_key_is_not_an_api_key(client: httpx.AsyncClient) -> None:
    assert_problem(await client.get("/v1/stats", headers=ADMIN), 401)


async def test_no_admin_key_configured_is_403(memory: Memory) -> None:
    app = create_app(memory, Settings(admin_key=None))
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        response = await client.post("/v1/keys", json={"tenant": "x"}, headers=ADMIN)
    problem = assert_problem(response, 403)
    assert "SEDIMEM_ADMIN_KEY" in str(problem["detail"])


async def test_non_ascii_tokens_are_compared_safely(memory: Memory) -> None:
    app = create_app(memory, Settings(admin_key=SecretStr("clé")))
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
        wrong = {"Authorization": "Bearer clé-no".encode()}
        assert_problem(await client.get("/v1/keys", headers=wrong), 403)
        right = {"Authorization": "Bearer clé".encode()}
        assert (await client.get("/v1/keys", headers=right)).status_code == 200
    assert not is_admin(Settings(admin_key=SecretStr("clé")), "Bearer \u20ac")


async def test_a_tenant_in_the_query_is_refused(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    response = await client.get("/v1/stats", params={"tenant": "other"}, headers=auth)
    problem = assert_problem(response, 422, "tenant")
    assert problem["allowed"] == "omit it: the tenant comes from the API key"
    typo = await client.get("/v1/episodes", params={"limt": 5}, headers=auth)
    assert "limit" in str(assert_problem(typo, 422, "limt")["allowed"])
    none = await client.get("/healthz", params={"verbose": 1})
    assert assert_problem(none, 422, "verbose")["allowed"] == "no query parameters"


async def test_the_tenant_comes_from_the_key(client: httpx.AsyncClient, memory: Memory) -> None:
    globex = await bearer(memory, "globex")
    stats = await client.get("/v1/stats", headers=globex)
    assert stats.json()["tenant"] == "globex"
