"""The journeys over REST: httpx against a real ``sedimem serve`` process.

The server (:class:`Served`) runs on stores the journeys chose, with an admin key; each
driver acts with a key of its own tenant, issued through ``POST /v1/keys``.

- Consolidation: ``POST /v1/consolidate``. The ``sessions`` job's idle threshold is a
  setting of the process that runs it (half the session TTL, at most an hour), and the
  server runs with the default; with ``idle_after_seconds`` the driver runs the job with the
  CLI, ``sedimem consolidate``, on the server's stores, set up with that threshold, as an
  operator's consolidation worker would be.
- Restart: the server process is stopped (SIGINT, graceful) and started again on the same
  stores, port and home.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from sedimem.testing import SedimemServer
from tests.journeys.backends import Stores, StoreUrls
from tests.journeys.drivers.base import MISSING, TIERS, Driver, Learned, Refused, Tier, Who

__all__ = ["ADMIN", "RestDriver", "Served"]

ADMIN = "journeys-admin-key-0123456789"


@dataclass
class Served:
    """A ``sedimem serve`` process on known stores."""

    server: SedimemServer
    urls: StoreUrls

    @classmethod
    def start(cls, urls: StoreUrls) -> Served:
        env = {
            "SEDIMEM_ADMIN_KEY": ADMIN,
            "SEDIMEM_WORKING_URL": urls.working,
            "SEDIMEM_STORE_URL": urls.store,
        }
        return cls(SedimemServer(env=env).start(), urls)

    @property
    def url(self) -> str:
        return self.server.url

    def new_key(self, tenant: str, **narrowed: str) -> str:
        with httpx.Client(base_url=self.url, timeout=30) as admin:
            response = admin.post(
                "/v1/keys",
                json={"tenant": tenant, **narrowed},
                headers={"Authorization": f"Bearer {ADMIN}"},
            )
        assert response.status_code == 201, response.text
        secret: str = response.json()["secret"]
        return secret

    async def restart(self) -> None:
        await asyncio.to_thread(self.server.restart)

    def close(self) -> None:
        self.server.close()


def _check(response: httpx.Response) -> Any:
    """The JSON of a successful answer; :class:`Refused` for 403, 404 and 409 (a conflict:
    editing what is no longer current); else a failure."""
    if response.status_code in (403, 404, 409):
        raise Refused(response.status_code, response.text)
    assert response.is_success, f"{response.request.method} {response.request.url}: " + (
        f"{response.status_code} {response.text}"
    )
    if response.status_code == 204 or not response.content:
        return None
    if response.headers.get("content-type", "").startswith("application/json"):
        return response.json()
    return response.text


def _learned(learned: dict[str, Any]) -> Learned:
    return Learned(
        action=learned["action"],
        id=learned["fact"]["id"],
        superseded=tuple(learned.get("superseded", [])),
        possible_conflicts=tuple(f["id"] for f in learned.get("possible_conflicts", [])),
    )


def _given(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


class RestDriver(Driver):
    interface = "rest"

    def __init__(self, served: Served, stores: Stores, tenant: str, secret: str) -> None:
        self.backend = stores.backend
        self.tenant = tenant
        self.served = served
        self.stores = stores
        self._secret = secret
        self._http = httpx.AsyncClient(
            base_url=served.url, headers={"Authorization": f"Bearer {secret}"}, timeout=60
        )
        self._children: list[Driver] = []
        self._owned: Served | None = None  # a server of its own (``fresh``), closed with it

    @property
    def secret(self) -> str:
        return self._secret

    async def aclose(self) -> None:
        for child in self._children:
            await child.aclose()
        await self._http.aclose()
        if self._owned is not None:
            await asyncio.to_thread(self._owned.close)

    async def call(self, method: str, path: str, **kwargs: Any) -> Any:
        return _check(await self._http.request(method, path, **kwargs))

    @staticmethod
    def _session(who: Who) -> str:
        assert who.session is not None, "a session operation needs a session"
        return f"/v1/sessions/{who.session}"

    # -- working memory and lifecycle -----------------------------------------------------

    async def spawn(
        self, who: Who, state: dict[str, Any] | None = None, *, task_id: str | None = None
    ) -> None:
        body = _given(initial_state=state, task_id=task_id, **who.fields(session=False))
        await self.call("POST", self._session(who) + "/spawn", json=body)

    async def set(self, who: Who, key: str, value: Any) -> None:
        body = {"value": value, **who.fields(session=False)}
        await self.call("PUT", f"{self._session(who)}/kv/{key}", json=body)

    async def get(self, who: Who, key: str) -> Any:
        response = await self._http.get(
            f"{self._session(who)}/kv/{key}", params=who.fields(session=False)
        )
        if response.status_code == 404:
            return MISSING
        return _check(response)["value"]

    async def note(self, who: Who, text: str) -> None:
        body = {"text": text, **who.fields(session=False)}
        await self.call("POST", self._session(who) + "/scratchpad", json=body)

    async def notes(self, who: Who) -> list[str]:
        pad = await self.call(
            "GET", self._session(who) + "/scratchpad", params=who.fields(session=False)
        )
        return [entry["text"] for entry in pad["entries"]]

    async def task_status(self, who: Who) -> str | None:
        response = await self._http.get(
            self._session(who) + "/task", params=who.fields(session=False)
        )
        if response.status_code == 404:
            return None
        status: str = _check(response)["status"]
        return status

    async def checkpoint(self, who: Who, description: str = "") -> str:
        body = {"description": description, **who.fields(session=False)}
        created = await self.call("POST", self._session(who) + "/checkpoints", json=body)
        return str(created["id"])

    async def checkpoints(self, who: Who) -> list[str]:
        listed = await self.call(
            "GET", self._session(who) + "/checkpoints", params=who.fields(session=False)
        )
        return [c["id"] for c in listed["items"]]

    async def pause(self, who: Who) -> str:
        result = await self.call(
            "POST", self._session(who) + "/pause", json=who.fields(session=False)
        )
        return str(result["checkpoint_id"])

    async def resume(self, who: Who, checkpoint: str | None = None) -> None:
        body = _given(checkpoint_id=checkpoint, **who.fields(session=False))
        await self.call("POST", self._session(who) + "/resume", json=body)

    async def fork(self, who: Who, checkpoint: str, new_session: str) -> Who:
        body = {"new_session": new_session, **who.fields(session=False)}
        forked = await self.call(
            "POST", f"{self._session(who)}/checkpoints/{checkpoint}/fork", json=body
        )
        assert forked["session"] == new_session
        return who.in_session(new_session)

    async def terminate(
        self,
        who: Who,
        outcome: str,
        *,
        lessons: Sequence[str] = (),
        task_description: str | None = None,
        task_type: str | None = None,
    ) -> dict[str, Any] | None:
        body = _given(
            outcome=outcome,
            lessons_learned=list(lessons),
            task_description=task_description,
            task_type=task_type,
            **who.fields(session=False),
        )
        result = await self.call("POST", self._session(who) + "/terminate", json=body)
        episode: dict[str, Any] | None = result["episode"]
        return episode

    # -- long-term memory -------------------------------------------------------------------

    async def learn(
        self,
        who: Who,
        statement: str,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,
        cardinality: str | None = None,
    ) -> Learned:
        body = _given(
            statement=statement,
            subject=subject,
            predicate=predicate,
            object=object,
            cardinality=cardinality,
            **who.fields(),
        )
        return _learned(await self.call("POST", "/v1/facts", json=body))

    async def ingest(self, who: Who, messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
        body = {"messages": list(messages), **who.fields()}
        result: dict[str, Any] = await self.call("POST", "/v1/messages", json=body)
        return result

    async def record_episode(
        self,
        who: Who,
        description: str,
        *,
        outcome: str = "success",
        lessons: Sequence[str] = (),
        actions: Sequence[str] = (),
        task_type: str | None = None,
    ) -> str:
        body = _given(
            description=description,
            outcome=outcome,
            lessons_learned=list(lessons),
            actions=list(actions),
            task_type=task_type,
            **who.fields(),
        )
        return str((await self.call("POST", "/v1/episodes", json=body))["id"])

    async def declare_single_valued(self, predicates: Sequence[str]) -> None:
        body = {"predicates": list(predicates), "cardinality": "one"}
        await self.call("POST", "/v1/facts/predicates", json=body)

    async def correct_fact(
        self, fact_id: str, *, statement: str, object: str | None = None
    ) -> Learned:
        body = _given(statement=statement, object=object)
        return _learned(await self.call("PATCH", f"/v1/facts/{fact_id}", json=body))

    async def invalidate_fact(self, fact_id: str) -> None:
        await self.call("POST", f"/v1/facts/{fact_id}/invalidate")

    async def delete(self, tier: Tier, record_id: str) -> None:
        await self.call("DELETE", f"/v1/{tier}/{record_id}")

    async def put_block(self, who: Who, name: str, content: str) -> None:
        body = {"content": content, **who.fields(session=False)}
        await self.call("PUT", f"/v1/blocks/{name}", json=body)

    async def append_block(self, who: Who, name: str, text: str) -> None:
        body = {"text": text, **who.fields(session=False)}
        await self.call("POST", f"/v1/blocks/{name}/append", json=body)

    async def stats(self, who: Who) -> dict[str, int]:
        counted = await self.call("GET", "/v1/stats", params=who.fields())
        return {k: int(counted[k]) for k in ("episodes", "facts", "procedures")}

    async def get_fact(self, fact_id: str) -> dict[str, Any]:
        fact: dict[str, Any] = await self.call("GET", f"/v1/facts/{fact_id}")
        return fact

    async def read(self, record_id: str) -> dict[str, Any]:
        read: dict[str, Any] = await self.call("GET", f"/v1/memories/{record_id}")
        return read

    async def history(self, who: Who, subject: str, predicate: str) -> list[dict[str, Any]]:
        params = {"subject": subject, "predicate": predicate, **who.fields()}
        found = await self.call("GET", "/v1/facts/history", params=params)
        return list(found["items"])

    async def recall(
        self,
        who: Who,
        query: str,
        tiers: Sequence[Tier] = TIERS,
        *,
        outcome: str | None = None,
        from_session: str | None = None,
    ) -> dict[Tier, list[dict[str, Any]]]:
        body = _given(
            query=query,
            tiers=list(tiers),
            outcome=outcome,
            from_session=from_session,
            **who.fields(),
        )
        found = await self.call("POST", "/v1/recall", json=body)
        return {tier: found[tier] for tier in tiers}

    async def procedures(self, who: Who, task: str) -> list[dict[str, Any]]:
        body = {"task_description": task, **who.fields()}
        found = await self.call("POST", "/v1/procedures/match", json=body)
        return [hit["record"] for hit in found["hits"]]

    async def assemble(self, who: Who, query: str, budget_tokens: int = 3000) -> str:
        body = {"query": query, "budget_tokens": budget_tokens, **who.fields()}
        text: str = (await self.call("POST", "/v1/context", json=body))["text"]
        return text

    # -- operations ------------------------------------------------------------------------

    async def consolidate(
        self, jobs: Sequence[str], *, idle_after_seconds: float | None = None
    ) -> None:
        if idle_after_seconds is None:
            report = await self.call("POST", "/v1/consolidate", json={"jobs": list(jobs)})
            assert all(job["status"] == "ok" for job in report["jobs"]), report
            return
        await run_consolidate_cli(self.served.urls, self.tenant, idle_after_seconds)

    async def export(self, user: str) -> str:
        response = await self._http.get("/v1/export", params={"user": user})
        _check(response)
        return response.text

    async def import_(self, lines: str) -> dict[str, int]:
        counts: dict[str, int] = await self.call(
            "POST",
            "/v1/import",
            content=lines.encode(),
            headers={"Content-Type": "application/x-ndjson"},
        )
        return counts

    async def restart(self) -> None:
        await self.served.restart()

    async def narrowed(self, *, user: str) -> Driver:
        secret = await asyncio.to_thread(self.served.new_key, self.tenant, user=user)
        child = RestDriver(self.served, self.stores, self.tenant, secret)
        self._children.append(child)
        return child

    async def stranger(self) -> Driver:
        tenant = f"{self.tenant}-stranger"
        secret = await asyncio.to_thread(self.served.new_key, tenant)
        child = RestDriver(self.served, self.stores, tenant, secret)
        self._children.append(child)
        return child

    async def fresh(self) -> Driver:
        served = await asyncio.to_thread(Served.start, self.stores.new())
        secret = await asyncio.to_thread(served.new_key, self.tenant)
        driver = RestDriver(served, self.stores, self.tenant, secret)
        driver._owned = served
        return driver


async def run_consolidate_cli(urls: StoreUrls, tenant: str, idle_after_seconds: float) -> None:
    """``sedimem consolidate`` for ``tenant`` on the stores, with the idle threshold given."""
    env = {
        **os.environ,
        "SEDIMEM_WORKING__SESSION_TTL_SECONDS": str(2 * idle_after_seconds),
        "COLUMNS": "200",
    }
    command = [sys.executable, "-m", "sedimem", "consolidate", "--tenant", tenant]
    command += ["--working", urls.working, "--store", urls.store]
    process = await asyncio.create_subprocess_exec(
        *command,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    assert process.returncode == 0, output.decode(errors="replace")
