"""The published OpenAPI document: every error documented as a problem, limits stated."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory

PROBLEM = {"$ref": "#/components/schemas/Problem"}


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The document as served, built once for the module (building it takes a second)."""

    async def fetch() -> dict[str, Any]:
        url = f"sqlite:///{tmp_path_factory.mktemp('openapi') / 'm.db'}"
        async with await Memory.open(url, embedder=HashEmbedder(64)) as memory:
            transport = httpx.ASGITransport(create_app(memory, Settings()))
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                response = await client.get("/openapi.json")
        assert response.status_code == 200
        return dict(response.json())

    return asyncio.run(fetch())


def test_everything_is_versioned(document: dict[str, Any]) -> None:
    assert document["info"]["title"] == "sedimem"
    unversioned = [p for p in document["paths"] if not p.startswith("/v1/")]
    assert sorted(unversioned) == ["/healthz", "/metrics", "/readyz"]


def test_problems_are_documented(document: dict[str, Any]) -> None:
    assert "HTTPValidationError" not in document["components"]["schemas"]
    problem = document["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail", "field", "allowed"} <= problem["properties"].keys()
    for path, item in document["paths"].items():
        for method, operation in item.items():
            responses = operation["responses"]
            assert "413" in responses, (method, path)
            if path.startswith("/v1/"):
                for status in ("401", "403", "404", "422", "503"):
                    content = responses[status]["content"]
                    assert content == {"application/problem+json": {"schema": PROBLEM}}


def test_security_schemes(document: dict[str, Any]) -> None:
    schemes = document["components"]["securitySchemes"]
    assert schemes["ApiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": schemes["ApiKey"]["description"],
    }
    assert document["paths"]["/v1/keys"]["post"]["security"] == [{"AdminKey": []}]
    revoke = document["paths"]["/v1/keys/{key_id}"]["delete"]["security"]
    assert {"AdminKey": []} in revoke
    assert {"ApiKey": []} in revoke
    assert document["paths"]["/v1/episodes"]["get"]["security"] == [{"ApiKey": []}]
    assert "security" not in document["paths"]["/healthz"]["get"]


def test_bodies_forbid_a_tenant(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    for name in ("EpisodeIn", "FactIn", "ProcedureIn", "RecallRequest", "KvPut", "ForgetRequest"):
        assert schemas[name]["additionalProperties"] is False, name
        assert "tenant" not in schemas[name]["properties"], name


def test_streams_are_documented(document: dict[str, Any]) -> None:
    export = document["paths"]["/v1/export"]["get"]["responses"]["200"]["content"]
    assert "application/x-ndjson" in export
    body = document["paths"]["/v1/import"]["post"]["requestBody"]
    assert body["required"] is True
    assert "application/x-ndjson" in body["content"]
    readyz = document["paths"]["/readyz"]["get"]["responses"]
    assert readyz["503"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/MemoryHealth"
    }
