"""The journeys through MCP: the official SDK's client over streamable HTTP at ``/mcp`` of
the same ``sedimem serve`` process the REST driver talks to, with the tenant's key.

Every step an MCP tool exists for goes through that tool. MCP is a small set of tools for an
agent inside a task; the steps it has no tool for go through the same server process's REST
route with the same key (the nearest real path a host has), each said where it happens:

- the session lifecycle (``spawn``, ``pause``, ``fork``, ``terminate``): no tools (an MCP
  agent works inside a session; the host starts and ends it). ``resume`` is
  ``working_memory`` restoring the latest checkpoint its ``get`` lists, which is what
  resume does.
- reading a fact by id: no tool (``recall`` finds facts by query).
- fact history: ``recall`` of facts with ``subject``, ``predicate`` and ``include_history``
  (every world time, as believed now).
- consolidation, export and import: operator work, no tools.

Every call asks for ``format: "json"`` (structured results, as a program reads them); the
text answers a model reads are tested in tests/mcp.

The MCP client session is opened on the first tool call and opened anew after the server
restarts (a restart ends every MCP session).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import Any

import httpx2
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from tests.journeys.drivers.base import MISSING, TIERS, Driver, Learned, Refused, Tier, Who
from tests.journeys.drivers.rest import RestDriver

__all__ = ["McpDriver"]

_KINDS: dict[Tier, str] = {"episodes": "episode", "facts": "fact", "procedures": "procedure"}


def _given(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


class McpDriver(Driver):
    interface = "mcp"

    def __init__(self, rest: RestDriver, connections: AsyncExitStack | None = None) -> None:
        self.backend = rest.backend
        self.tenant = rest.tenant
        self._served = rest.served
        self._secret = rest.secret
        #: the same process's REST routes with the same key, for the steps MCP has no tool for
        self.rest = rest
        # Client sessions must close in the reverse order they opened, in the task that
        # opened them: a driver and the narrowed drivers it made share one stack, which the
        # driver that made it closes last.
        self._owns_connections = connections is None
        self._connections = connections or AsyncExitStack()
        self._client: Client | None = None
        self._children: list[Driver] = []

    async def _connect(self) -> Client:
        if self._client is None:
            http = await self._connections.enter_async_context(
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {self._secret}"}, timeout=60)
            )
            self._client = await self._connections.enter_async_context(
                Client(streamable_http_client(self._served.url + "/mcp", http_client=http))
            )
        return self._client

    async def aclose(self) -> None:
        for child in self._children:
            await child.aclose()
        if self._owns_connections:
            await self._connections.aclose()
        await self.rest.aclose()

    async def tool(self, tool: str, /, **arguments: Any) -> Any:
        """Call a tool; its JSON result, or :class:`Refused` with the error it reported."""
        client = await self._connect()
        result = await client.call_tool(tool, _given(format="json", **arguments))
        block = result.content[0] if result.content else None
        text = block.text if isinstance(block, TextContent) else ""
        if result.is_error:
            raise Refused("mcp", text)
        return (
            result.structured_content
            if result.structured_content is not None
            else (json.loads(text))
        )

    @staticmethod
    def _session(who: Who) -> dict[str, Any]:
        assert who.session is not None, "a session operation needs a session"
        return who.fields()

    # -- working memory and lifecycle -----------------------------------------------------

    async def spawn(
        self, who: Who, state: dict[str, Any] | None = None, *, task_id: str | None = None
    ) -> None:
        await self.rest.spawn(who, state, task_id=task_id)  # no MCP tool: REST

    async def working(self, who: Who, action: str, **arguments: Any) -> Any:
        return await self.tool("working_memory", action=action, **arguments, **self._session(who))

    async def set(self, who: Who, key: str, value: Any) -> None:
        await self.working(who, "set", key=key, value=value)

    async def get(self, who: Who, key: str) -> Any:
        found = await self.working(who, "get", key=key)
        return found["value"] if found["found"] else MISSING

    async def note(self, who: Who, text: str) -> None:
        await self.working(who, "note", text=text)

    async def _state(self, who: Who) -> dict[str, Any]:
        state: dict[str, Any] = await self.working(who, "get")
        return state

    async def notes(self, who: Who) -> list[str]:
        return [entry["text"] for entry in (await self._state(who))["scratchpad"]]

    async def task_status(self, who: Who) -> str | None:
        task = (await self._state(who))["task_state"]
        return None if task is None else str(task["status"])

    async def checkpoint(self, who: Who, description: str = "") -> str:
        made = await self.working(who, "checkpoint", text=description or None)
        return str(made["checkpoint_id"])

    async def checkpoints(self, who: Who) -> list[str]:
        return [c["id"] for c in (await self._state(who))["checkpoints"]]

    async def pause(self, who: Who) -> str:
        return await self.rest.pause(who)  # no MCP tool marks the task paused: REST

    async def resume(self, who: Who, checkpoint: str | None = None) -> None:
        if checkpoint is None:
            listed = await self.checkpoints(who)
            assert listed, "no checkpoint to resume from"
            checkpoint = listed[-1]
        await self.working(who, "restore", checkpoint_id=checkpoint)

    async def fork(self, who: Who, checkpoint: str, new_session: str) -> Who:
        return await self.rest.fork(who, checkpoint, new_session)  # no MCP tool: REST

    async def terminate(
        self,
        who: Who,
        outcome: str,
        *,
        lessons: Sequence[str] = (),
        task_description: str | None = None,
        task_type: str | None = None,
    ) -> dict[str, Any] | None:
        return await self.rest.terminate(  # no MCP tool: REST
            who,
            outcome,
            lessons=lessons,
            task_description=task_description,
            task_type=task_type,
        )

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
        stored = await self.tool(
            "remember",
            kind="fact",
            text=statement,
            subject=subject,
            predicate=predicate,
            object=object,
            cardinality=cardinality,
            **who.fields(),
        )
        return Learned(
            action=stored["action"],
            id=stored["id"],
            superseded=tuple(stored.get("superseded", [])),
            possible_conflicts=tuple(f["id"] for f in stored.get("possible_conflicts", [])),
        )

    async def ingest(self, who: Who, messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = await self.tool(
            "ingest_messages", messages=list(messages), **who.fields()
        )
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
        more = _given(actions=list(actions) or None, task_type=task_type)
        stored = await self.tool(
            "remember",
            kind="episode",
            text=description,
            outcome=outcome,
            lessons_learned=list(lessons) or None,
            fields=more or None,
            **who.fields(),
        )
        return str(stored["id"])

    async def declare_single_valued(self, predicates: Sequence[str]) -> None:
        await self.tool(
            "inspect_memory", report="predicates", declare=list(predicates), cardinality="one"
        )

    async def correct_fact(
        self, fact_id: str, *, statement: str, object: str | None = None
    ) -> Learned:
        edited = await self.tool("update_memory", id=fact_id, text=statement, object=object)
        return Learned(action="superseded", id=edited["id"], superseded=tuple(edited["superseded"]))

    async def invalidate_fact(self, fact_id: str) -> None:
        await self.tool("forget_memory", id=fact_id, keep_history=True)

    async def delete(self, tier: Tier, record_id: str) -> None:
        # the id says which kind it is: forget_memory takes no kind
        await self.tool("forget_memory", id=record_id)

    async def put_block(self, who: Who, name: str, content: str) -> None:
        await self.tool(
            "core_memory", action="set", name=name, text=content, **who.fields(session=False)
        )

    async def append_block(self, who: Who, name: str, text: str) -> None:
        await self.tool(
            "core_memory", action="append", name=name, text=text, **who.fields(session=False)
        )

    async def stats(self, who: Who) -> dict[str, int]:
        counted = (await self.tool("inspect_memory", **who.fields()))["longterm"]
        return {k: int(counted[k]) for k in ("episodes", "facts", "procedures")}

    async def get_fact(self, fact_id: str) -> dict[str, Any]:
        read = await self.read(fact_id)
        if read["kind"] != "fact":
            raise Refused("mcp", f"{fact_id!r} is a {read['kind']}")
        fact: dict[str, Any] = read["record"]
        return fact

    async def read(self, record_id: str) -> dict[str, Any]:
        read: dict[str, Any] = await self.tool("recall", id=record_id)
        return read

    async def history(self, who: Who, subject: str, predicate: str) -> list[dict[str, Any]]:
        found = await self.tool(
            "recall",
            query=f"{subject} {predicate}",
            kinds=["fact"],
            subject=subject,
            predicate=predicate,
            include_history=True,
            k=100,
            **who.fields(),
        )
        facts = [hit["record"] for hit in found["facts"]]
        return sorted(facts, key=lambda f: (f["valid_from"], f["recorded_at"]))

    async def recall(
        self,
        who: Who,
        query: str,
        tiers: Sequence[Tier] = TIERS,
        *,
        outcome: str | None = None,
        from_session: str | None = None,
    ) -> dict[Tier, list[dict[str, Any]]]:
        found = await self.tool(
            "recall",
            query=query,
            kinds=[_KINDS[t] for t in tiers],
            outcome=outcome,
            from_session=from_session,
            **who.fields(),
        )
        return {
            tier: [{"record": h["record"], "explain": h["explain"]} for h in found[tier]]
            for tier in tiers
        }

    async def procedures(self, who: Who, task: str) -> list[dict[str, Any]]:
        found = await self.tool(
            "recall", query=task, kinds=["procedure"], k=5, **who.fields(session=False)
        )
        return [hit["record"] for hit in found["procedures"]]

    async def assemble(self, who: Who, query: str, budget_tokens: int = 3000) -> str:
        packed = await self.tool(
            "assemble_context", query=query, budget_tokens=budget_tokens, **who.fields()
        )
        return str(packed["text"])

    # -- operations (no MCP tools: the same process's REST routes, or the CLI) ---------------

    async def consolidate(
        self, jobs: Sequence[str], *, idle_after_seconds: float | None = None
    ) -> None:
        await self.rest.consolidate(jobs, idle_after_seconds=idle_after_seconds)

    async def export(self, user: str) -> str:
        return await self.rest.export(user)

    async def import_(self, lines: str) -> dict[str, int]:
        return await self.rest.import_(lines)

    async def restart(self) -> None:
        # a restart ends the MCP session: the next call opens a new one (the old client
        # stays on the stack, closed in order at the end)
        self._client = None
        await self._served.restart()

    async def narrowed(self, *, user: str) -> Driver:
        secret = await asyncio.to_thread(self._served.new_key, self.tenant, user=user)
        rest = RestDriver(self._served, self.rest.stores, self.tenant, secret)
        child = McpDriver(rest, self._connections)
        self._children.append(child)
        return child

    async def stranger(self) -> Driver:
        tenant = f"{self.tenant}-stranger"
        secret = await asyncio.to_thread(self._served.new_key, tenant)
        child = McpDriver(
            RestDriver(self._served, self.rest.stores, tenant, secret), self._connections
        )
        self._children.append(child)
        return child

    async def fresh(self) -> Driver:
        rest = await self.rest.fresh()  # owns a new server, closed with it
        assert isinstance(rest, RestDriver)
        return McpDriver(rest)
