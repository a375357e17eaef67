"""Every path and query is UTF-8, and every response says nosniff (api/wire.py)."""

from __future__ import annotations

import httpx
import pytest

from sedimem.api.wire import invalid_part

from .conftest import ADMIN, assert_problem


@pytest.mark.parametrize(
    ("raw_path", "query", "part"),
    [
        (b"/v1/sessions/%FF/kv/x", b"", "path"),
        (b"/v1/sessions/%ED%A0%80/kv/x", b"", "path"),  # a lone surrogate in UTF-8 form
        (b"/v1/sessions/s/kv/x", b"user=%FE", "query"),
        (b"/v1/sessions/s/kv/x?user=%FE", b"user=%FE", "query"),  # raw_path with its query
        (b"/v1/sessions/%C3%A9/kv/x", b"user=%C3%A9+a", None),
        (b"/v1/sessions/s/kv/x", b"", None),
    ],
)
def test_which_part_is_not_utf8(raw_path: bytes, query: bytes, part: str | None) -> None:
    scope = {"type": "http", "raw_path": raw_path, "query_string": query}
    assert invalid_part(scope) == part


async def test_invalid_utf8_in_a_path_or_query_is_refused_before_any_route(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    put = await client.put("/v1/sessions/%FF/kv/x", json={"value": 1}, headers=auth)
    assert_problem(put, 422, field="path")
    # %FE does not read what %FF would have written: both are refused, nothing collides
    got = await client.get("/v1/sessions/%FE/kv/x", headers=auth)
    assert_problem(got, 422, field="path")
    listed = await client.get("/v1/episodes?user=%ED%A0%80", headers=auth)
    assert_problem(listed, 422, field="query")
    # valid UTF-8, percent-encoded, is fine
    fine = await client.put("/v1/sessions/caf%C3%A9/kv/x", json={"value": 1}, headers=auth)
    assert fine.status_code == 204, fine.text
    back = await client.get("/v1/sessions/café/kv/x", headers=auth)
    assert back.json()["value"] == 1


async def test_every_response_says_nosniff(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    answers = [
        await client.get("/healthz"),
        await client.get("/v1/stats", headers=auth),
        await client.get("/v1/stats"),  # 401
        await client.get("/v1/keys", headers=ADMIN),
        await client.get("/nowhere"),
        await client.get("/openapi.json"),
        await client.get("/docs"),
        await client.get("/ui"),
        await client.post("/v1/episodes", content=b"x" * (3 * 1024 * 1024), headers=auth),
    ]
    assert answers[-1].status_code == 413
    for answer in answers:
        assert answer.headers.get("x-content-type-options") == "nosniff", answer.request.url
    # the docs page names what it may load: this server, and its own inline script
    policy = answers[6].headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in policy
