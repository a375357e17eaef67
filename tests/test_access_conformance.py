"""A forbidden operation is refused the same way through every interface.

The rules live in the services (:class:`sedimem.access.Access` handed to ``Memory.forget``,
``export``, ``import_``, ``consolidate``...); Python, REST and MCP only translate the
refusal. For each narrowed or read-only key and each operation beyond its reach, the
Python caller gets ``PermissionDenied`` with a field, REST answers 403 problem+json with
the same type, field and detail, and MCP an error result with the same message. Nothing is
erased, exported or imported on the way.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from sedimem.access import Access
from sedimem.api import create_app
from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.errors import PermissionDenied
from sedimem.keys import ApiKey
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.longterm import Episode
from tests.mcp.conftest import client_as, error_of

TENANT = "acme"
PROBLEM = "urn:sedimem:problem:permission-denied"


@dataclass(frozen=True)
class Forbidden:
    """One operation a key may not run, through each interface."""

    name: str
    key: dict[str, Any]  # how the key is narrowed (and whether read-only)
    field: str  # what refuses it
    python: Callable[[Memory, Access], Awaitable[object]]
    rest: tuple[str, str, dict[str, Any] | str | None]  # method, path, body
    mcp: tuple[str, dict[str, Any]] | None = None  # tool and arguments (MCP has no tool for some)


async def _export(memory: Memory, access: Access, user: str | None = None) -> list[str]:
    return [line async for line in memory.export(access, user)]


CASES = [
    Forbidden(
        "erase another user",
        {"user": "ana"},
        "user",
        lambda m, a: m.forget(a, user="bob"),
        ("POST", "/v1/forget", {"user": "bob"}),
        ("erase_memories", {"user": "bob"}),
    ),
    Forbidden(
        "erase from a project key",
        {"project": "billing"},
        "project",
        lambda m, a: m.forget(a, user="bob"),
        ("POST", "/v1/forget", {"user": "bob"}),
        ("erase_memories", {"user": "bob"}),
    ),
    Forbidden(
        "erase with a read-only key",
        {"read_only": True},
        "read_only",
        lambda m, a: m.forget(a, user="bob"),
        ("POST", "/v1/forget", {"user": "bob"}),
        ("erase_memories", {"user": "bob"}),
    ),
    Forbidden(
        "export another user",
        {"user": "ana"},
        "user",
        lambda m, a: _export(m, a, "bob"),
        ("GET", "/v1/export?user=bob", None),
    ),
    Forbidden(
        "export from an agent key",
        {"agent": "bot"},
        "agent",
        lambda m, a: _export(m, a, "bob"),
        ("GET", "/v1/export?user=bob", None),
    ),
    Forbidden(
        "import with a user key",
        {"user": "ana"},
        "user",
        lambda m, a: m.import_(a, []),
        ("POST", "/v1/import", ""),
    ),
    Forbidden(
        "import with a read-only key",
        {"read_only": True},
        "read_only",
        lambda m, a: m.import_(a, []),
        ("POST", "/v1/import", ""),
    ),
    Forbidden(
        "consolidate with a user key",
        {"user": "ana"},
        "user",
        lambda m, a: m.consolidate(a),
        ("POST", "/v1/consolidate", {}),
    ),
    Forbidden(
        "consolidate with a read-only key",
        {"read_only": True},
        "read_only",
        lambda m, a: m.consolidate(a, dry_run=True),
        ("POST", "/v1/consolidate", {"dry_run": True}),
    ),
    Forbidden(
        "read the consolidation log with a project key",
        {"project": "billing"},
        "project",
        lambda m, a: m.consolidation_runs(a),
        ("GET", "/v1/consolidation/runs", None),
    ),
    Forbidden(
        "revoke another key with a user key",
        {"user": "ana"},
        "user",
        lambda m, a: m.keys.revoke("some-other-key", access=a),
        ("DELETE", "/v1/keys/some-other-key", None),
    ),
    Forbidden(
        "issue a key without being the operator",
        {},
        "admin",
        lambda m, a: m.keys.create(TENANT, access=a),
        ("POST", "/v1/keys", {"tenant": TENANT}),
    ),
]


@pytest.fixture
async def memory(tmp_path: Path) -> AsyncIterator[Memory]:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    settings = Settings(home=tmp_path, admin_key=SecretStr("the-admin-key"))
    async with await Memory.open(url, embedder=HashEmbedder(64), settings=settings) as opened:
        # something of bob's that a wrongful erasure or export would reach
        await opened.episodes.record(
            Episode(
                description="Bob booked the night train", scope=Scope(tenant=TENANT, user="bob")
            )
        )
        yield opened


async def _python_refusal(memory: Memory, case: Forbidden, key: ApiKey) -> PermissionDenied:
    with pytest.raises(PermissionDenied) as refused:
        await case.python(memory, key.access)
    return refused.value


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
async def test_the_refusal_is_the_same_through_python_rest_and_mcp(
    memory: Memory, case: Forbidden
) -> None:
    issued = await memory.keys.create(TENANT, **case.key)
    refused = await _python_refusal(memory, case, issued.key)
    assert refused.field == case.field

    app = create_app(memory, memory.settings)
    transport = httpx.ASGITransport(app)
    async with httpx.AsyncClient(transport=transport, base_url="http://sedimem.test") as client:
        method, path, body = case.rest
        headers = {"Authorization": f"Bearer {issued.secret}"}
        if isinstance(body, str):
            response = await client.request(method, path, content=body, headers=headers)
        else:
            response = await client.request(method, path, json=body, headers=headers)
    assert response.status_code == 403, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert (problem["type"], problem["status"]) == (PROBLEM, 403)
    assert (problem["field"], problem["detail"]) == (case.field, str(refused))

    if case.mcp is not None:
        tool, arguments = case.mcp
        async with client_as(memory, issued.key) as session:
            text = error_of(await session.call_tool(tool, arguments))
        assert text == f"Error executing tool {tool}: {refused}"

    # nothing of bob's was erased on the way
    assert (await memory.stats(Scope(tenant=TENANT, user="bob"))).episodes == 1


async def test_the_local_access_is_the_whole_default_tenant(memory: Memory) -> None:
    """The default of an embedded program: erasure, export, import and consolidation run."""
    bob = Scope(user="bob")
    await memory.episodes.record(Episode(description="Bob likes tea", scope=bob))
    exported = await _export(memory, Access.local(), "bob")
    assert len(exported) == 1
    assert (await memory.consolidate(dry_run=True)).jobs
    assert (await memory.forget(user="bob")).episodes == 1
    assert (await memory.import_(Access.local(), exported))["episode"] == 1
    assert all(run.tenant == "default" for run in await memory.consolidation_runs())


async def test_a_user_key_reaches_its_own_user_only(memory: Memory) -> None:
    """Narrowed to a user, erasure and export default to that user and stay in it."""
    ana = Scope(tenant=TENANT, user="ana")
    await memory.episodes.record(Episode(description="Ana plays chess", scope=ana))
    key = (await memory.keys.create(TENANT, user="ana")).key
    assert len(await _export(memory, key.access)) == 1
    assert (await memory.forget(key.access)).episodes == 1
    assert (await memory.stats(Scope(tenant=TENANT, user="bob"))).episodes == 1
