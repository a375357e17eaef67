"""Pinned blocks over HTTP."""

from __future__ import annotations

import httpx

from tests.api.conftest import assert_problem


async def test_put_append_list_delete(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    put = await client.put(
        "/v1/blocks/persona", json={"content": "You plan trips.", "position": 1}, headers=auth
    )
    assert put.status_code == 200
    assert put.json()["name"] == "persona"
    await client.put("/v1/blocks/rules", json={"content": "Be brief."}, headers=auth)
    appended = await client.post(
        "/v1/blocks/rules/append", json={"text": "Cite sources."}, headers=auth
    )
    assert appended.json()["content"] == "Be brief.\nCite sources."
    listed = (await client.get("/v1/blocks", headers=auth)).json()["items"]
    assert [b["name"] for b in listed] == ["rules", "persona"]
    assert (await client.delete("/v1/blocks/rules", headers=auth)).status_code == 204
    assert_problem(await client.delete("/v1/blocks/rules", headers=auth), 404)


async def test_blocks_belong_to_their_owner(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    await client.put("/v1/blocks/profile?user=ana", json={"content": "Ana"}, headers=auth)
    mine = await client.get("/v1/blocks", params={"user": "ana"}, headers=auth)
    assert [b["content"] for b in mine.json()["items"]] == ["Ana"]
    assert (await client.get("/v1/blocks", params={"user": "bob"}, headers=auth)).json() == {
        "items": []
    }
    too_long = await client.put("/v1/blocks/x", json={"content": "x" * 20_001}, headers=auth)
    assert_problem(too_long, 422, "content")
