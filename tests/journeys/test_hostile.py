"""Hostile values through every write route, then every read and consolidation: no 5xx,
no failed job, every refusal a 422 problem naming the field.

A deterministic list of values a narrowed key may send (nesting past the limit and past
what parsers take, lone surrogates, NaN and infinities, ``1e400``, a 400-digit integer,
oversized text, NUL, invalid UTF-8 bytes) goes through REST and MCP (a real ``sedimem
serve`` process: raw bytes on the wire, as a hostile client sends them), the Python API
and import, on SQLite and on Redis + PostgreSQL. Then every read route of the scope answers
and consolidation runs every job without a failure.
"""

from __future__ import annotations

import json
import math
from typing import Any

import httpx
import pytest

from sedimem.access import Access
from sedimem.config import Settings
from sedimem.errors import SedimemError, ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Fact, Procedure
from tests.journeys.backends import Stores, StoreUrls
from tests.journeys.drivers.rest import Served


def _nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


#: Hostile JSON values, as raw JSON text (some have no Python ``json.dumps`` form).
VALUES: dict[str, str] = {
    "deep 65": _nested(65),
    "deep 300": _nested(300),
    "deep 1200": _nested(1200),
    "deep list 120": "[" * 120 + "]" * 120,
    "lone surrogate": '"a\\ud800b"',
    "lone surrogate key": '{"\\udfff": 1}',
    "NaN": "NaN",
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
    "1e400": "1e400",
    "400 digits": "1" + "0" * 400,
    "70 KB of text": '"' + "x" * 70_000 + '"',
    "NUL": '"a\\u0000b"',
}

#: Write routes: (method, path, body template); ``@V@`` is where the value goes.
REST_WRITES: list[tuple[str, str, str]] = [
    ("POST", "/v1/episodes", '{"description": "d", "metadata": {"x": @V@}}'),
    ("POST", "/v1/episodes", '{"description": @V@}'),
    ("POST", "/v1/facts", '{"statement": "s", "metadata": {"x": @V@}}'),
    ("POST", "/v1/facts", '{"statement": "s", "subject": "a", "predicate": "p", "object": @V@}'),
    ("POST", "/v1/procedures", '{"name": "n", "trigger": "t", "steps": ["a"], "metadata": @V@}'),
    ("PUT", "/v1/sessions/s/kv/k", '{"value": @V@}'),
    ("PUT", "/v1/sessions/s/task", '{"task_id": "t", "metadata": {"x": @V@}}'),
    ("POST", "/v1/sessions/s/spawn", '{"initial_state": {"k": @V@}, "metadata": {"m": @V@}}'),
    ("POST", "/v1/messages", '{"messages": [{"role": "user", "content": @V@}]}'),
    ("PUT", "/v1/blocks/profile", '{"content": @V@}'),
]
IMPORT_LINE = '{"kind": "episode", "record": {"description": "d", "metadata": {"x": @V@}}}'

#: What a refusal may be: bad input, too large, or (a route that needs the admin key) 403.
REFUSALS = {400, 403, 404, 413, 422}


def _fill(template: str, value: str) -> bytes:
    return template.replace("@V@", value).encode("utf-8", "surrogatepass")


def _judge(response: httpx.Response, what: str) -> str | None:
    """A problem with the answer (None: it is fine)."""
    if response.status_code >= 500:
        return f"{what}: {response.status_code} {response.text[:200]}"
    if response.is_success:
        return None
    if response.status_code not in REFUSALS:
        return f"{what}: unexpected {response.status_code} {response.text[:200]}"
    if response.headers.get("content-type") != "application/problem+json":
        return f"{what}: {response.status_code} is not problem+json: {response.text[:200]}"
    problem = response.json()
    if response.status_code == 422 and not (problem.get("field") and problem.get("allowed")):
        return f"{what}: 422 names no field or limit: {problem}"
    return None


@pytest.fixture
def user_key(served: Served) -> tuple[str, dict[str, str]]:
    tenant = f"hostile-{served.server.port}-{id(served) % 1000}"
    return tenant, {"Authorization": f"Bearer {served.new_key(tenant, user='u')}"}


def test_hostile_values_over_rest_and_mcp_break_no_read(
    served: Served, user_key: tuple[str, dict[str, str]]
) -> None:
    tenant, auth = user_key
    wide = {"Authorization": f"Bearer {served.new_key(tenant)}"}
    problems: list[str] = []
    json_headers = {**auth, "Content-Type": "application/json"}
    with httpx.Client(base_url=served.url, timeout=60) as http:
        for name, value in VALUES.items():
            for method, path, template in REST_WRITES:
                answer = http.request(
                    method, path, content=_fill(template, value), headers=json_headers
                )
                problems.append(_judge(answer, f"{method} {path} {name}") or "")
            line = _fill(IMPORT_LINE, value)
            answer = http.post(
                "/v1/import", content=line, headers={**wide, "Content-Type": "application/x-ndjson"}
            )
            problems.append(_judge(answer, f"import {name}") or "")
            for tool, arguments in _mcp_calls(value):
                problems.append(_mcp(http, auth, tool, arguments, name) or "")
        # invalid UTF-8: in a body, a path, a query
        bad = b'{"description": "caf\xe9 \xff"}'
        problems.append(
            _judge(http.post("/v1/episodes", content=bad, headers=json_headers), "body bytes") or ""
        )
        for path in (
            "/v1/sessions/%FF/kv/x",
            "/v1/sessions/s/kv/%ED%A0%80",
            "/v1/episodes?user=%FE",
        ):
            answer = http.get(path, headers=auth)
            problems.append(_judge(answer, path) or "")
            assert answer.status_code == 422, (path, answer.text)
        assert [p for p in problems if p] == []
        _reads_answer(http, auth, wide)


def _mcp_calls(value: str) -> list[tuple[str, str]]:
    """Tool calls carrying the value, as raw JSON argument text."""
    return [
        (
            "remember",
            f'{{"kind": "episode", "text": "t", "fields": {{"metadata": {{"x": {value}}}}}}}',
        ),
        ("remember", f'{{"kind": "fact", "text": {value}}}'),
        ("working_memory", f'{{"session": "s", "action": "set", "key": "k", "value": {value}}}'),
    ]


def _mcp(
    http: httpx.Client, auth: dict[str, str], tool: str, arguments: str, name: str
) -> str | None:
    body = (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", '
        f'"params": {{"name": "{tool}", "arguments": {arguments}}}}}'
    )
    headers = {
        **auth,
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
    }
    answer = http.post("/mcp", content=body.encode("utf-8", "surrogatepass"), headers=headers)
    what = f"mcp {tool} {name}"
    if answer.status_code >= 500:
        return f"{what}: {answer.status_code} {answer.text[:200]}"
    if answer.status_code != 200:  # refused before the tool: a problem, or a JSON-RPC error
        kind = answer.headers.get("content-type", "")
        if answer.status_code == 413 and kind != "application/problem+json":
            return f"{what}: 413 is not problem+json"
        return None
    reply = answer.json()
    if "error" in reply:  # a JSON-RPC error (e.g. unparsable arguments): fine, not a crash
        return None if reply["error"].get("code") != -32603 else f"{what}: internal {reply}"
    result = reply["result"]
    text = result["content"][0]["text"] if result.get("content") else ""
    if result.get("isError") and ("internal" in text.lower() or "Traceback" in text):
        return f"{what}: {text[:200]}"
    return None


def _reads_answer(http: httpx.Client, auth: dict[str, str], wide: dict[str, str]) -> None:
    """Every read of the scope answers below 500, and consolidation fails no job."""
    reads = [
        http.get("/v1/episodes", headers=auth),
        http.get("/v1/episodes", params={"newest_first": "true"}, headers=auth),
        http.get("/v1/facts/current", headers=auth),
        http.get("/v1/procedures", headers=auth),
        http.post("/v1/recall", json={"query": "d s t x"}, headers=auth),
        http.post("/v1/context", json={"query": "d s t x", "budget_tokens": 2000}, headers=auth),
        http.post("/v1/reflect", json={}, headers=auth),
        http.post("/v1/procedures/match", json={"task_description": "t"}, headers=auth),
        http.get("/v1/sessions/s/kv", headers=auth),
        http.get("/v1/sessions/s/keys", headers=auth),
        http.get("/v1/sessions/s/task", headers=auth),
        http.get("/v1/blocks", headers=auth),
        http.get("/v1/export", headers=auth),
        http.get("/v1/stats", headers=auth),
        http.get("/v1/export", params={"user": "u"}, headers=wide),
    ]
    failed = [f"{r.request.method} {r.request.url}: {r.status_code} {r.text[:200]}"
              for r in reads if r.status_code >= 500 or r.status_code in (400, 422)]  # fmt: skip
    assert failed == []
    for listed in reads[:3]:
        assert listed.json()["items"], listed.request.url  # the valid writes are there
    episodes = reads[0].json()["items"]
    for episode in episodes:
        got = http.get(f"/v1/episodes/{episode['id']}", headers=auth)
        assert got.status_code == 200, got.text[:200]
    report = http.post("/v1/consolidate", json={}, headers=wide)
    assert report.status_code == 200, report.text[:300]
    jobs = report.json()["jobs"]
    assert [j for j in jobs if j["status"] == "failed"] == []


@pytest.fixture
def python_urls(stores: Stores) -> StoreUrls:
    return stores.new()


async def test_hostile_values_through_the_python_api(python_urls: StoreUrls, tmp_path: Any) -> None:
    """The same values as Python objects (what they parse to): our ValidationError, or
    stored; never another exception; then every read answers and consolidation runs."""
    settings = Settings(home=tmp_path, working_url=python_urls.working, store_url=python_urls.store)
    scope = Scope(tenant="hostile-python", user="u")
    session = scope.with_session("s")
    async with await Memory.open(settings=settings) as memory:
        refused = 0
        named: list[tuple[str, str, str | None]] = []
        for name, text in VALUES.items():
            try:
                value = json.loads(text)
            except RecursionError:
                continue  # Python's parser takes no more: nothing a Python caller could hold
            writes = [
                lambda v=value: memory.episodes.record(
                    Episode(scope=scope, description="d", metadata={"x": v})
                ),
                lambda v=value: memory.facts.learn(
                    Fact(scope=scope, statement="s", metadata={"x": v})
                ),
                lambda v=value: memory.procedures.record(
                    Procedure(scope=scope, name="n", trigger="t", steps=["a"], metadata={"x": v})
                ),
                lambda v=value: memory.working(session).set("k", v),
            ]
            for write in writes:
                try:
                    await write()
                except ValidationError as exc:
                    refused += 1
                    named.append((name, exc.field, exc.allowed))
                except SedimemError as exc:  # pragma: no cover - the assertion says what
                    raise AssertionError(f"{name}: {type(exc).__name__}: {exc}") from exc
        assert refused >= 4 * 8
        assert [n for n in named if not (n[1] and n[2])] == []  # each names field and limit
        floats = [v for v in (math.nan, math.inf) for _ in range(1)]
        for v in floats:
            with pytest.raises(ValidationError, match="metadata"):
                Episode(scope=scope, description="d", metadata={"x": [v]})
        assert await memory.episodes.list(scope=scope)
        await memory.episodes.recall("d", scope=scope)
        await memory.facts.recall("s", scope=scope)
        await memory.working(session).get_all()
        await memory.assemble("d s", scope=scope, budget_tokens=1000)
        report = await memory.consolidate(Access.local("hostile-python"))
        assert [j.job for j in report.jobs if j.status == "failed"] == []
