"""Seeded data for the inspector's browser tests, written over REST to a real server.

Tenant ``acme`` holds two users' episodes, a fact with a bi-temporal history (Ana moved
from Lisbon to Porto), procedures with outcomes and a second version, a pinned block, a
live session with keys, task state, scratchpad and a checkpoint, and one consolidation run.
Tenant ``globex`` holds one episode of its own: nothing of it may show for acme's key.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from sedimem.testing import SedimemServer

ADMIN = "admin-secret-for-the-inspector-tests"
SESSION = "s-checkout"


@dataclass(frozen=True)
class Seeded:
    url: str
    key_a: str  # tenant acme, narrowed to nothing
    key_b: str  # tenant globex
    key_ana: str  # tenant acme, narrowed to user ana
    key_reader: str  # tenant acme, read-only
    checkpoint: str


def client(url: str, key: str) -> httpx.Client:
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {key}"}, timeout=30)


def _ok(response: httpx.Response) -> Any:
    assert response.status_code < 300, (response.request.url, response.text)
    return None if response.status_code == 204 else response.json()


def new_key(url: str, tenant: str, **narrowing: str | bool) -> str:
    with client(url, ADMIN) as admin:
        secret: str = _ok(admin.post("/v1/keys", json={"tenant": tenant, **narrowing}))["secret"]
    return secret


EPISODES = [
    (
        "ana",
        "checkout",
        "Fixed the failing checkout test by pinning the payment mock",
        "success",
        ["ran the test suite", "read the stack trace", "pinned the mock version"],
        ["pin mocks of payment providers"],
        0.8,
        "2026-11-20T09:00:00Z",
    ),
    (
        "ana",
        "checkout",
        "Tried to speed up checkout by caching prices",
        "failure",
        ["added a price cache", "saw stale totals"],
        ["never cache prices across a sale"],
        0.6,
        "2026-11-21T10:30:00Z",
    ),
    (
        "bob",
        "deploy",
        "Deployed the billing service with a canary",
        "partial",
        ["built the image", "rolled out 10%", "rolled back one pod"],
        ["watch the error budget"],
        0.5,
        "2026-11-22T15:00:00Z",
    ),
    (
        None,
        "triage",
        "Triaged the weekly bug reports about checkout latency",
        "success",
        ["grouped reports", "filed two issues"],
        ["latency reports cluster on Mondays"],
        0.4,
        "2026-11-23T08:00:00Z",
    ),
]


def seed(server: SedimemServer) -> Seeded:
    url = server.url
    key_a = new_key(url, "acme")
    key_b = new_key(url, "globex")
    key_ana = new_key(url, "acme", user="ana")
    key_reader = new_key(url, "acme", read_only=True)
    with client(url, key_a) as a:
        for user, task, text, outcome, actions, lessons, importance, at in EPISODES:
            body: dict[str, Any] = {
                "task_type": task, "description": text, "outcome": outcome, "actions": actions,
                "lessons_learned": lessons, "importance": importance, "occurred_at": at,
                "session": SESSION if user == "ana" else None, "duration_seconds": 42.0,
            }  # fmt: skip
            if user:
                body["user"] = user
            _ok(a.post("/v1/episodes", json={k: v for k, v in body.items() if v is not None}))
        _ok(a.post("/v1/facts", json={
            "user": "ana", "subject": "ana", "predicate": "lives_in", "object": "Lisbon",
            "statement": "Ana lives in Lisbon", "valid_from": "2020-01-01T00:00:00Z"}))  # fmt: skip
        time.sleep(1.5)  # learned later: the first belief has a visible span of record time
        _ok(a.post("/v1/facts", json={
            "user": "ana", "subject": "ana", "predicate": "lives_in", "object": "Porto",
            "statement": "Ana lives in Porto", "valid_from": "2024-06-01T00:00:00Z"}))  # fmt: skip
        _ok(a.post("/v1/facts", json={
            "user": "ana", "subject": "ana", "predicate": "likes", "object": "green tea",
            "statement": "Ana likes green tea"}))  # fmt: skip
        _ok(a.post("/v1/facts", json={
            "subject": "checkout", "predicate": "owned_by", "object": "payments team",
            "statement": "The checkout service is owned by the payments team"}))  # fmt: skip
        for steps in (["run tests", "deploy canary"], ["run tests", "deploy canary", "watch"]):
            proc = _ok(a.post("/v1/procedures", json={
                "name": "safe deploy", "trigger": "deploying a service to production",
                "steps": steps}))  # fmt: skip
        for success in (True, True, False):
            _ok(a.post(f"/v1/procedures/{proc['id']}/outcome", json={"success": success}))
        _ok(a.post("/v1/procedures", json={
            "name": "fix flaky test", "trigger": "a test fails now and then",
            "steps": ["rerun it alone", "pin its dependencies"]}))  # fmt: skip
        _ok(a.put("/v1/blocks/persona", json={"content": "You are a careful release engineer."}))
        base = f"/v1/sessions/{SESSION}"
        q = {"user": "ana"}
        _ok(a.post(f"{base}/spawn", params=q, json={"task_id": "checkout-fix", "total_steps": 4}))
        _ok(a.put(f"{base}/kv/cart", params=q, json={"value": {"items": 2}}))
        _ok(a.put(f"{base}/kv/step", params=q, json={"value": "read logs", "ttl_seconds": 3600}))
        _ok(a.post(f"{base}/scratchpad", params=q, json={"text": "the mock changed last week"}))
        checkpoint = _ok(
            a.post(f"{base}/checkpoints", params=q, json={"description": "before fix"})
        )
        _ok(a.put(f"{base}/kv/step", params=q, json={"value": "patched mock"}))
        _ok(a.put(f"{base}/kv/lock", params=q, json={"value": True, "ttl_seconds": 900}))
        _ok(a.patch(f"{base}/task", params=q, json={"current_step": 3, "progress_percent": 75.0}))
        _ok(a.post(f"{base}/scratchpad", params=q, json={"text": "pinned payment-mock 2.1"}))
        _ok(a.post("/v1/consolidate", json={"jobs": ["facts", "procedures", "decay"]}))
    with client(url, key_b) as b:
        _ok(b.post("/v1/episodes", json={
            "task_type": "secret", "description": "Globex merger plan reviewed",
            "user": "zed"}))  # fmt: skip
        _ok(b.post("/v1/facts", json={
            "subject": "globex", "predicate": "ceo", "object": "Hank",
            "statement": "Globex is run by Hank"}))  # fmt: skip
    return Seeded(
        url=url,
        key_a=key_a,
        key_b=key_b,
        key_ana=key_ana,
        key_reader=key_reader,
        checkpoint=checkpoint["id"],
    )
