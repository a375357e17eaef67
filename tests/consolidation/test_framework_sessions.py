"""Framework state is durable: the ``sessions`` job never consolidates away a LangGraph
thread or an OpenAI Agents SDK session, and they outlive working memory's session TTL.

Each test lets more than the idle threshold and the session TTL pass, runs the job, and
checks that an ordinary session idle as long was ended (so the job did run and would have
removed them), while the framework's state is whole.
"""

from __future__ import annotations

import uuid
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from sedimem.access import Access
from sedimem.consolidation.settings import FRAMEWORK_KEY_PREFIXES, ConsolidationSettings
from sedimem.integrations.langgraph import SedimemSaver
from sedimem.integrations.langgraph.layout import PREFIX as LANGGRAPH_PREFIX
from sedimem.integrations.openai_agents import SedimemSession
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.consolidation.conftest import Env

SESSIONS = ("sessions",)


def new_tenant() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


async def wait_longer_than_a_session_lives(env: Env) -> None:
    # twice the idle threshold: past the session TTL (which is under 2 x idle here)
    await env.pass_idle()
    await env.pass_idle()


def session_ttl(env: Env) -> float:
    return env.idle * 1.5


async def ordinary_session(memory: Memory, tenant: str) -> Scope:
    scope = Scope(tenant=tenant, user="ana", session="plain")
    await memory.working(scope).append_scratchpad("looked at the flights")
    return scope


class Trip(TypedDict, total=False):
    request: str
    approved: str


def approval_graph() -> StateGraph[Trip]:
    def ask(state: Trip) -> Trip:
        answer = interrupt(f"approve {state['request']}?")  # waits for a human
        return {"approved": str(answer)}

    graph: StateGraph[Trip] = StateGraph(Trip)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    return graph


async def test_an_interrupted_graph_resumes_after_the_sessions_job_and_the_ttl(env: Env) -> None:
    memory = await env.open(session_ttl=session_ttl(env))
    tenant = new_tenant()
    saver = SedimemSaver(memory, Scope(tenant=tenant, user="ana"))
    graph = approval_graph().compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "trip-1"}}
    first = await graph.ainvoke({"request": "a flight to Oslo"}, config)
    assert "__interrupt__" in first
    before = [t.checkpoint["id"] async for t in saver.alist(config)]
    plain = await ordinary_session(memory, tenant)

    await wait_longer_than_a_session_lives(env)
    report = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    job = report.job("sessions")
    assert job.status == "ok", job.error
    # the ordinary session idle as long was ended (or had expired); the thread was kept
    assert job.counts_out.get("framework") == 1
    assert await memory.working(plain).get_scratchpad() == []

    assert [t.checkpoint["id"] async for t in saver.alist(config)] == before
    resumed = await graph.ainvoke(Command(resume="yes"), config)
    assert resumed == {"request": "a flight to Oslo", "approved": "yes"}


async def test_an_agents_session_returns_its_whole_history_after_the_same_wait(
    env: Env,
) -> None:
    memory = await env.open(session_ttl=session_ttl(env))
    tenant = new_tenant()
    session = SedimemSession("conv-1", memory, Scope(tenant=tenant, user="ana"))
    items: list[Any] = [
        {"role": "user", "content": "Book me a window seat to Oslo."},
        {"role": "assistant", "content": "Done: 14A, Friday 9:05."},
        {"role": "user", "content": "Thanks!"},
    ]
    await session.add_items(items)
    plain = await ordinary_session(memory, tenant)

    await wait_longer_than_a_session_lives(env)
    report = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    assert report.job("sessions").status == "ok"
    assert await memory.working(plain).get_scratchpad() == []

    assert await session.get_items() == items
    again = SedimemSession("conv-1", memory, Scope(tenant=tenant, user="ana"))
    assert await again.get_items() == items


async def test_filing_a_framework_session_records_it_once_and_keeps_it(env: Env) -> None:
    memory = await env.open(framework_sessions="file")
    tenant = new_tenant()
    scope = Scope(tenant=tenant, user="ana")
    session = SedimemSession("conv-2", memory, scope)
    await session.add_items([{"role": "user", "content": "I prefer aisle seats."}])
    await env.pass_idle()
    for _ in range(2):
        report = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
        assert report.job("sessions").status == "ok"
    page = await memory.episodes.list(scope, limit=10)
    assert [e.scope.session for e in page.items] == ["conv-2"]
    assert len(await session.get_items()) == 1


async def test_a_thread_with_an_idle_lifetime_expires(env: Env) -> None:
    """``ttl_seconds`` opts out of durability: the thread idles out like a session."""
    memory = await env.open()
    saver = SedimemSaver(memory, Scope(tenant=new_tenant()), ttl_seconds=env.idle)
    graph = approval_graph().compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": "short"}}
    await graph.ainvoke({"request": "a hotel"}, config)
    assert await saver.aget_tuple(config) is not None
    await env.pass_idle()
    assert await saver.aget_tuple(config) is None


def test_the_framework_prefixes_are_the_integrations_own() -> None:
    from sedimem.integrations import openai_agents

    assert LANGGRAPH_PREFIX in FRAMEWORK_KEY_PREFIXES
    assert any(openai_agents._PREFIX.startswith(p) for p in FRAMEWORK_KEY_PREFIXES)
    assert ConsolidationSettings().framework_key_prefixes == FRAMEWORK_KEY_PREFIXES
    assert ConsolidationSettings().framework_sessions == "keep"


async def test_an_idle_lifetime_out_of_range_is_refused(env: Env) -> None:
    from sedimem.errors import ValidationError
    from sedimem.limits import KEPT_SESSION_TTL_SECONDS

    memory = await env.open()
    for bad in (0, -1.0, KEPT_SESSION_TTL_SECONDS * 2, "soon", True):
        with pytest.raises(ValidationError, match="session_ttl_seconds"):
            SedimemSaver(memory, Scope(tenant=new_tenant()), ttl_seconds=bad)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match="session_ttl_seconds"):
        memory.working(Scope(session="s"), session_ttl_seconds=0)
