"""The service accepts exactly what its schema states: JSON types as written, query values as
the JSON literal of their type, RFC 3339 times; and every path answers with its real methods."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.api.conftest import ADMIN, assert_problem

RECALL = "/v1/recall"
KV = "/v1/sessions/s1/kv/city"


@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("PUT", KV, {"value": 1, "ttl_seconds": True}, "ttl_seconds"),
        ("PUT", KV, {"value": 1, "ttl_seconds": "5"}, "ttl_seconds"),
        ("POST", RECALL, {"query": "q", "include_history": 0}, "include_history"),
        ("POST", RECALL, {"query": "q", "include_history": "true"}, "include_history"),
        ("POST", RECALL, {"query": "q", "k": "5"}, "k"),
        ("POST", RECALL, {"query": "q", "k": 5.0}, "k"),
        ("POST", RECALL, {"query": "q", "k": True}, "k"),
        ("POST", RECALL, {"query": "q", "min_importance": "0.5"}, "min_importance"),
        ("POST", RECALL, {"query": "q", "since": "-1"}, "since"),
        ("POST", RECALL, {"query": "q", "since": -1}, "since"),
        ("POST", RECALL, {"query": "q", "since": 1700000000}, "since"),
        ("POST", RECALL, {"query": "q", "since": "2024-01-01"}, "since"),
        ("POST", RECALL, {"query": "q", "since": "2024-01-01 10:00:00Z"}, "since"),
        ("POST", RECALL, {"query": "q", "since": "2024-01-01T10:00:00"}, "since"),
        ("POST", RECALL, {"query": "q", "outcome": 1}, "outcome"),
        ("POST", RECALL, {"query": 5}, "query"),
        ("POST", "/v1/context", {"query": "q", "budget_tokens": True}, "budget_tokens"),
        (
            "POST",
            "/v1/context",
            {"query": "q", "budget_tokens": 9, "quotas": {"facts": "1"}},
            "quotas.facts",
        ),
        ("POST", "/v1/consolidate", {"dry_run": 1}, "dry_run"),
        ("POST", "/v1/episodes", {"description": "d", "importance": "0.5"}, "importance"),
        ("POST", "/v1/episodes", {"description": "d", "tokens_used": 10.0}, "tokens_used"),
        ("POST", "/v1/episodes", {"description": "d", "actions": "one"}, "actions"),
        ("PUT", "/v1/sessions/s1/task", {"task_id": "t", "current_step": "2"}, "current_step"),
        ("PUT", "/v1/sessions/s1/task", {"task_id": 7}, "task_id"),
        ("POST", "/v1/sessions/s1/terminate", {"outcome": "success", "cleanup": "no"}, "cleanup"),
        ("POST", "/v1/forget", {"before": 0}, "before"),
    ],
)
async def test_bodies_take_json_types_as_written(
    client: httpx.AsyncClient,
    auth: dict[str, str],
    method: str,
    path: str,
    body: dict[str, Any],
    field: str,
) -> None:
    response = await client.request(method, path, json=body, headers=auth)
    assert_problem(response, 422, field)


async def test_the_json_forms_are_accepted(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    # an integer where a number is asked, enum values as strings, times with any offset
    assert (
        await client.put(KV, json={"value": 1, "ttl_seconds": 5}, headers=auth)
    ).status_code == 204
    recalled = await client.post(
        RECALL,
        json={
            "query": "q",
            "k": 3,
            "min_importance": 0,
            "include_history": True,
            "outcome": "failure",
            "since": "2024-01-01T10:00:00.25+02:00",
            "until": "2024-01-02t10:00:00z",
        },
        headers=auth,
    )
    assert recalled.status_code == 200, recalled.text
    task = {"task_id": "t", "status": "in_progress", "current_step": 2, "progress_percent": 50}
    stored = await client.put("/v1/sessions/s1/task", json=task, headers=auth)
    assert stored.json()["status"] == "in_progress"


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=5.0", "limit"),
        ("limit=%205", "limit"),
        ("limit=%2B5", "limit"),
        ("limit=05", "limit"),
        ("limit=1_0", "limit"),
        ("limit=true", "limit"),
        ("newest_first=yes", "newest_first"),
        ("newest_first=1", "newest_first"),
        ("newest_first=True", "newest_first"),
        ("min_importance=.5", "min_importance"),
        ("min_importance=nan", "min_importance"),
        ("min_importance=0x1", "min_importance"),
        ("since=-1", "since"),
        ("since=1700000000", "since"),
        ("since=2024-01-01", "since"),
        ("until=2024-01-01T10:00:00", "until"),
        ("outcome=1", "outcome"),
    ],
)
async def test_query_values_are_json_literals_of_their_type(
    client: httpx.AsyncClient, auth: dict[str, str], query: str, field: str
) -> None:
    assert_problem(await client.get(f"/v1/episodes?{query}", headers=auth), 422, field)


async def test_query_values_in_their_json_form_are_accepted(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await client.post("/v1/episodes", json={"description": "d", "importance": 0.9}, headers=auth)
    query = (
        "limit=5&newest_first=true&min_importance=0.5e0&outcome=success"
        "&since=2024-01-01T00:00:00Z&until=9999-01-01T00:00:00%2B01:00"
    )
    listed = await client.get(f"/v1/episodes?{query}", headers=auth)
    assert listed.status_code == 200, listed.text
    assert len(listed.json()["items"]) == 1
    keys = await client.get("/v1/keys?include_revoked=false", headers=ADMIN)
    assert keys.status_code == 200
    assert_problem(await client.get("/v1/keys?include_revoked=0", headers=ADMIN), 422)
    assert (await client.get("/v1/profile?sample=0", headers=auth)).status_code == 200
    assert_problem(await client.get("/v1/profile?sample=0.0", headers=auth), 422, "sample")


# -- methods --------------------------------------------------------------------------------

_EVERY_METHOD = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _concrete(path: str) -> str:
    """A path of the document with its parameters filled in."""
    for name in ("session", "key", "checkpoint_id", "episode_id", "fact_id", "name", "key_id"):
        path = path.replace(f"{{{name}}}", "x").replace(f"{{{name}:path}}", "x")
    return path.replace("{procedure_id}", "x")


async def test_options_and_405_list_the_real_methods(
    app: FastAPI, client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    paths = app.openapi()["paths"]
    assert len(paths) > 30
    for template in paths:
        path = _concrete(template)
        # every documented operation whose template the path fits (GET /v1/procedures/match
        # is the procedure of id "match")
        documented = {
            method.upper()
            for other, item in paths.items()
            if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", other), path)
            for method in item
        }
        allow = ", ".join(sorted(documented | {"OPTIONS"}))
        options = await client.options(path, headers=auth)
        assert options.status_code == 204, (template, options.text)
        assert options.headers["allow"] == allow, template
        for method in set(_EVERY_METHOD) - documented:
            refused = await client.request(method, path, headers=auth)
            assert_problem(refused, 405)
            assert refused.headers["allow"] == allow, (template, method)


async def test_unmatched_paths_are_problems(client: httpx.AsyncClient) -> None:
    for path in ("/nope", "/nope%0A", "/v1/%0A", "/v1/episodes/a/b", "/%00"):
        assert_problem(await client.get(path), 404)
    assert_problem(await client.options("/nope"), 404)
