"""Request validation errors name the field and what its schema allows."""

from __future__ import annotations

import httpx
import pytest

from sedimem.api.validation import describe
from tests.api.conftest import assert_problem


@pytest.mark.parametrize(
    ("schema", "allowed"),
    [
        ({"type": "integer", "minimum": 1, "maximum": 10}, "1..10"),
        ({"type": "number", "exclusiveMinimum": 0, "maximum": 5.5}, "> 0 and <= 5.5"),
        ({"type": "number", "minimum": 0.0}, ">= 0"),
        ({"type": "number", "exclusiveMaximum": 1}, "< 1"),
        ({"type": "integer"}, "an integer"),
        ({"type": "number"}, "a number"),
        ({"type": "string", "minLength": 1, "maxLength": 8}, "1..8 characters"),
        ({"type": "string", "maxLength": 8, "pattern": "^a"}, "at most 8 characters matching ^a"),
        ({"type": "string", "minLength": 2}, "at least 2 characters"),
        ({"type": "string"}, "text"),
        ({"type": "string", "format": "date-time"}, "an RFC 3339 date-time with a UTC offset"),
        ({"enum": ["a", "b"]}, "one of: a, b"),
        ({"const": "x"}, "exactly x"),
        ({"type": "array", "minItems": 1, "maxItems": 3}, "a list of 1..3 items"),
        ({"type": "array"}, "a list"),
        ({"type": "boolean"}, "true or false"),
        ({"type": "object", "required": ["q"]}, "a JSON object with q"),
        ({}, "any JSON value"),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, None),
    ],
)
def test_describe(schema: dict[str, object], allowed: str | None) -> None:
    assert describe(schema) == allowed


async def test_query_parameters(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await client.get("/v1/episodes", params={"min_importance": 3}, headers=auth)
    problem = assert_problem(response, 422, "min_importance")
    assert problem["allowed"] == "0..1"
    assert problem["detail"].startswith("min_importance: ")
    typed = await client.get("/v1/episodes", params={"limit": "many"}, headers=auth)
    assert assert_problem(typed, 422, "limit")["allowed"] == "1..1000"
    enum = await client.get("/v1/episodes", params={"outcome": "meh"}, headers=auth)
    assert assert_problem(enum, 422, "outcome")["allowed"] == (
        "one of: success, failure, partial, none"
    )


async def test_path_parameters(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    long = "s" * 129
    problem = assert_problem(await client.get(f"/v1/sessions/{long}/kv", headers=auth), 422)
    assert problem["field"] == "session"
    assert str(problem["allowed"]).startswith("1..128 characters")


async def test_body_fields(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    nested = await client.post(
        "/v1/context",
        json={"query": "q", "budget_tokens": 10, "quotas": {"facts": -1}},
        headers=auth,
    )
    assert assert_problem(nested, 422, "quotas.facts")["allowed"] == "0..1000000"
    missing = await client.post("/v1/recall", json={}, headers=auth)
    assert assert_problem(missing, 422, "query")["allowed"] == "1..10000 characters without NUL"
    several = await client.post("/v1/recall", json={"k": 0}, headers=auth)
    assert "more problem" in str(assert_problem(several, 422)["detail"])
    unknown = await client.post("/v1/recall", json={"query": "q", "colour": 1}, headers=auth)
    assert assert_problem(unknown, 422, "colour")["allowed"] == "only the fields the schema names"


async def test_bodies_that_are_not_json(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    headers = {**auth, "content-type": "application/json"}
    broken = await client.post("/v1/recall", content=b'{"query": ', headers=headers)
    assert assert_problem(broken, 422, "body")["allowed"] == "a JSON document"
    array = await client.post("/v1/recall", json=["query"], headers=auth)
    assert_problem(array, 422, "body")
    missing = await client.post("/v1/recall", headers=auth)
    assert_problem(missing, 422, "body")


async def test_service_errors_borrow_allowed_from_the_schema(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    lonely = await client.post(
        "/v1/facts", json={"statement": "s", "predicate": "lives_in"}, headers=auth
    )
    assert assert_problem(lonely, 422, "predicate")["allowed"] == "1..256 characters without NUL"


async def test_the_whole_document_is_used_once_built(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await client.get("/openapi.json")
    response = await client.get("/v1/episodes", params={"limit": 0}, headers=auth)
    assert assert_problem(response, 422, "limit")["allowed"] == "1..1000"
