"""Job ``sessions``: a session left idle without terminate -> exactly one episode, cleaned up."""

from __future__ import annotations

import asyncio
import secrets
import uuid

import pytest

from sedimem.access import Access
from sedimem.clock import SystemClock
from sedimem.consolidation.context import JobContext
from sedimem.consolidation.lease import Leases
from sedimem.consolidation.sessions_job import run_sessions
from sedimem.consolidation.settings import ConsolidationSettings
from sedimem.errors import ConfigurationError, ValidationError
from sedimem.lifecycle.summary import importance_of
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import RecordFilter
from sedimem.types import Episode, Outcome, TaskState, TaskStatus
from tests.consolidation.conftest import EMBEDDER, Env

SESSIONS = ("sessions",)


def session_scope(tenant: str) -> Scope:
    return Scope(tenant=tenant, project="p", agent="bot", session=f"s-{uuid.uuid4().hex[:8]}")


def new_tenant() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


async def episodes_of(memory: Memory, tenant: str) -> list[Episode]:
    page = await memory.episodes.list(Scope(tenant=tenant), limit=1000)
    return page.items


async def is_gone(memory: Memory, scope: Scope) -> bool:
    stats = await memory.working(scope).get_stats()
    return (stats.keys, stats.scratchpad_entries, stats.checkpoints, stats.has_task_state) == (
        0,
        0,
        0,
        False,
    )


async def work(env: Env, memory: Memory, scope: Scope) -> float:
    """A session that did some work and then stopped; returns when it started."""
    await memory.lifecycle.spawn(scope, {"goal": "summarise the report"}, total_steps=4)
    state = await memory.working(scope).get_task_state()
    assert state is not None
    assert state.started_at is not None
    await env.pass_a_little()
    wm = memory.working(scope)
    await wm.update_task_progress(current_step=2, progress_percent=50)
    await wm.append_scratchpad("read the table of contents")
    await env.pass_a_little()
    await wm.append_scratchpad("drafted section one")
    return state.started_at.timestamp()


async def test_an_idle_session_becomes_one_episode_and_is_cleaned_up(env: Env) -> None:
    memory = await env.open()
    tenant = new_tenant()
    scope = session_scope(tenant)
    started = await work(env, memory, scope)
    early = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    assert early.job("sessions").counts_in == {}  # not idle yet: nothing happens
    await env.pass_idle()

    report = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    job = report.job("sessions")
    assert job.status == "ok", job.error
    assert job.counts_in == {"sessions": 1}
    assert job.counts_out == {"recorded": 1, "dropped": 1}
    (episode,) = await episodes_of(memory, tenant)
    assert episode.scope == scope
    assert episode.outcome is Outcome.PARTIAL  # never finished: abandoned
    assert "abandoned" in episode.outcome_details
    # the same episode terminate records (shared code): the goal describes it, the task
    # ends with the outcome's status, the values and first and last notes are its summary
    assert episode.description == "summarise the report"
    assert "in progress" not in episode.search_text()
    assert "stopped unfinished at step 2 of 4 (50% done)" in episode.context_summary
    assert "Working values: goal: summarise the report." in episode.context_summary
    assert (
        "Scratchpad: 2 notes, first 'read the table of contents', last 'drafted section one'."
        in episode.context_summary
    )
    assert episode.actions == ["read the table of contents", "drafted section one"]
    assert episode.metadata["ended_by"] == "consolidation"
    assert episode.metadata["task_status"] == "in_progress"
    assert episode.duration_seconds is not None
    assert episode.importance == importance_of(Outcome.PARTIAL, episode.duration_seconds, [])
    ended = episode.occurred_at.timestamp()
    if env.clock is not None:  # the episode ends at the session's last write
        assert ended == env.clock.now() - env.idle - 1
        assert episode.duration_seconds == pytest.approx(10.0)
    else:  # Redis stamps the last write with its own clock
        assert started - 5 < ended < started + 5
    assert await is_gone(memory, scope)

    again = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    assert again.job("sessions").counts_in == {}
    assert len(await episodes_of(memory, tenant)) == 1
    (logged, *_) = await memory.consolidator.runs(tenant, job="sessions")
    assert logged.counts_in == {}
    assert (await memory.consolidator.runs(tenant, job="sessions"))[1].counts_out == {
        "recorded": 1,
        "dropped": 1,
    }


async def test_terminated_sessions_are_never_recorded_again(env: Env) -> None:
    memory = await env.open()
    tenant = new_tenant()
    kept, cleaned, first = session_scope(tenant), session_scope(tenant), session_scope(tenant)
    for scope in (kept, cleaned, first):
        await work(env, memory, scope)
    done = await memory.lifecycle.terminate(kept, "success", cleanup=False)
    assert done.episode is not None
    await memory.lifecycle.terminate(cleaned, "failure")
    await env.pass_idle()

    report = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    job = report.job("sessions")
    assert job.counts_in == {"sessions": 2}  # the cleaned-up one is gone already
    assert job.counts_out == {"already_recorded": 1, "recorded": 1, "dropped": 2}
    episodes = {e.scope.session: e for e in await episodes_of(memory, tenant)}
    assert set(episodes) == {kept.session, cleaned.session, first.session}
    assert episodes[kept.session].id == done.episode.id  # terminate's verdict stands
    assert episodes[kept.session].outcome is Outcome.SUCCESS
    assert await is_gone(memory, kept)
    # and the other way round: terminate after consolidation records nothing
    late = await memory.lifecycle.terminate(first, "success")
    assert late.already_terminated
    assert late.episode is None
    assert len(await episodes_of(memory, tenant)) == 3


async def test_task_verdicts_paused_and_empty_sessions(env: Env) -> None:
    memory = await env.open()
    tenant = new_tenant()
    completed, failed, paused, empty = (session_scope(tenant) for _ in range(4))
    for scope, status in ((completed, TaskStatus.COMPLETED), (failed, TaskStatus.FAILED)):
        await work(env, memory, scope)
        await memory.working(scope).update_task_progress(status=status)
    await work(env, memory, paused)
    await memory.lifecycle.pause(paused, "lunch")
    await memory.working(empty).set("k", 1)
    await memory.working(empty).delete("k")
    await env.pass_idle()

    report = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    job = report.job("sessions")
    assert job.counts_in == {"sessions": 4}
    assert job.counts_out == {"recorded": 2, "paused": 1, "empty": 1, "dropped": 3}
    outcomes = {e.scope.session: e.outcome for e in await episodes_of(memory, tenant)}
    assert outcomes == {completed.session: Outcome.SUCCESS, failed.session: Outcome.FAILURE}
    # a paused session is meant to be resumed: left as it is, checkpoint included
    resumed = await memory.lifecycle.resume(paused)
    assert resumed.checkpoint_id is not None
    assert await is_gone(memory, empty)


async def test_dry_run_writes_nothing(env: Env) -> None:
    memory = await env.open()
    tenant = new_tenant()
    scope = session_scope(tenant)
    await work(env, memory, scope)
    await env.pass_idle()
    dry = await memory.consolidate(Access.local(tenant), jobs=SESSIONS, dry_run=True)
    job = dry.job("sessions")
    assert (job.status, job.dry_run, job.run_id) == ("ok", True, None)
    assert job.counts_in == {"sessions": 1}
    assert job.counts_out == {"would_record": 1, "would_drop": 1}
    assert await episodes_of(memory, tenant) == []
    assert not await is_gone(memory, scope)
    assert await memory.working(scope).get_scratchpad() == [
        "read the table of contents",
        "drafted section one",
    ]
    assert await memory.consolidator.runs(tenant) == []
    kinds = ("episode", "consolidation_run", "consolidation_lease")
    for kind in kinds:
        assert await memory.longterm_store.count(tenant, RecordFilter(kind=kind)) == 0
    # the real run afterwards does what the dry run announced
    real = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    assert real.job("sessions").counts_out == {"recorded": 1, "dropped": 1}


async def test_a_tenant_never_touches_another_tenants_sessions(env: Env) -> None:
    memory = await env.open()
    a, b = new_tenant(), new_tenant()
    scope = session_scope(a)
    await work(env, memory, scope)
    await env.pass_idle()
    other = await memory.consolidate(Access.local(b), jobs=SESSIONS)
    assert other.job("sessions").counts_in == {}
    assert await episodes_of(memory, b) == []
    assert await episodes_of(memory, a) == []
    assert not await is_gone(memory, scope)
    mine = await memory.consolidate(Access.local(a), jobs=SESSIONS)
    assert mine.job("sessions").counts_out == {"recorded": 1, "dropped": 1}


async def test_concurrent_consolidations_record_one_episode_per_session(env: Env) -> None:
    one, two = await env.open(), await env.open()
    tenant = new_tenant()
    scopes = [session_scope(tenant) for _ in range(8)]
    for i, scope in enumerate(scopes):
        await (one if i % 2 else two).working(scope).append_scratchpad(f"note {i}")
    await env.pass_idle()
    reports = await asyncio.gather(
        one.consolidate(Access.local(tenant), jobs=SESSIONS),
        two.consolidate(Access.local(tenant), jobs=SESSIONS),
    )
    assert {r.job("sessions").status for r in reports} <= {"ok", "skipped"}
    episodes = await episodes_of(one, tenant)
    assert sorted(e.scope.session or "" for e in episodes) == sorted(
        s.session or "" for s in scopes
    )
    for scope in scopes:
        assert await is_gone(one, scope)


async def test_two_runs_without_leases_still_record_once(env: Env) -> None:
    """What holds when leases do not serialise two runs (one outlived its lease): the
    unique episode key and the conditional cleanup alone give one episode per session."""
    one, two = await env.open(), await env.open()
    tenant = new_tenant()
    scopes = [session_scope(tenant) for _ in range(6)]
    for scope in scopes:
        await work(env, one, scope)
    await env.pass_idle()

    def context(memory: Memory, job: str) -> JobContext:
        settings = memory.consolidator.settings
        return JobContext(
            tenant=tenant,
            job=job,  # a lease of its own: both run at once
            owner=secrets.token_hex(8),
            cursor=None,
            dry_run=False,
            store=memory.longterm_store,
            episodes=memory.episodes,
            facts=memory.facts,
            procedures=memory.procedures,
            extractor=None,  # type: ignore[arg-type]  # the sessions job extracts nothing
            settings=settings,
            clock=env.clock or SystemClock(),
            leases=Leases(memory.longterm_store, 60),
            working=memory.working_store,
            working_settings=memory.settings.working,
            embedder=memory.embedder,
            idle_seconds=memory.consolidator.session_idle_seconds,
        )

    first, second = context(one, "sessions-a"), context(two, "sessions-b")
    for ctx in (first, second):
        taken, _ = await ctx.leases.acquire(tenant, ctx.job, ctx.owner, ctx.clock.now())
        assert taken
    await asyncio.gather(run_sessions(first), run_sessions(second))
    recorded = first.counts_out.get("recorded", 0) + second.counts_out.get("recorded", 0)
    assert recorded == len(scopes)
    assert len(await episodes_of(one, tenant)) == len(scopes)
    for scope in scopes:
        assert await is_gone(one, scope)


async def test_bounded_runs_go_on_where_they_stopped(env: Env) -> None:
    memory = await env.open(batch_size=2, max_batches_per_run=1)
    tenant = new_tenant()
    paused = [session_scope(tenant) for _ in range(4)]
    for scope in paused:  # the oldest: listed first, and left where they are
        await memory.working(scope).set_task_state(TaskState(task_id="t"))
        await memory.lifecycle.pause(scope)
        await env.pass_a_little()
    abandoned = session_scope(tenant)
    await work(env, memory, abandoned)
    await env.pass_idle()
    seen = []
    for _ in range(4):
        job = (await memory.consolidate(Access.local(tenant), jobs=SESSIONS)).job("sessions")
        seen.append(job.counts_out)
    # the cursor moves past the paused sessions instead of reading them on every run
    assert seen == [{"paused": 2}, {"paused": 2}, {"recorded": 1, "dropped": 1}, {"paused": 2}]
    assert [e.scope for e in await episodes_of(memory, tenant)] == [abandoned]


async def test_a_run_that_died_before_cleanup_is_finished_without_a_duplicate(env: Env) -> None:
    memory = await env.open()
    tenant = new_tenant()
    scope = session_scope(tenant)
    await work(env, memory, scope)
    await env.pass_idle()
    # what a run that died between recording and cleanup leaves behind: the episode, the
    # session (the two-process test in test_sessions_processes.py does it with SIGKILL)
    dry = await memory.consolidate(Access.local(tenant), jobs=SESSIONS, dry_run=True)
    assert dry.job("sessions").counts_out["would_record"] == 1
    done = await memory.lifecycle.terminate(scope, "partial", cleanup=False)
    assert done.episode is not None
    await env.pass_idle()  # terminate wrote the task's final status: idle again after it
    report = await memory.consolidate(Access.local(tenant), jobs=SESSIONS)
    assert report.job("sessions").counts_out == {"already_recorded": 1, "dropped": 1}
    assert [e.id for e in await episodes_of(memory, tenant)] == [done.episode.id]


async def test_settings_are_checked_against_the_session_ttl(env: Env) -> None:
    from sedimem.config import Settings, WorkingSettings

    memory = await env.open()
    assert memory.consolidator.session_idle_seconds == env.idle
    assert "sessions" in memory.consolidator.jobs
    working = await env.open_working()
    try:
        from sedimem.longterm.stores import open_longterm_store

        longterm = await open_longterm_store(env.store_url)
        short = Settings(working=WorkingSettings(session_ttl_seconds=600))
        with pytest.raises(ValidationError) as caught:
            Memory(
                working,
                longterm,
                EMBEDDER,
                settings=short,
                consolidation=ConsolidationSettings(session_idle_seconds=600),
            )
        assert caught.value.field == "session_idle_seconds"
        # unset: an hour, or half the TTL when the TTL is shorter than two hours
        auto = Memory(working, longterm, EMBEDDER, settings=short)
        assert auto.consolidator.session_idle_seconds == 300
        assert Memory(working, longterm, EMBEDDER).consolidator.session_idle_seconds == 3600
        await longterm.aclose()
    finally:
        await working.aclose()
    with pytest.raises(ValueError, match="session_idle_seconds"):
        ConsolidationSettings(session_idle_seconds=0)


async def test_without_a_working_store_there_is_no_sessions_job(env: Env) -> None:
    from sedimem.consolidation import Consolidator

    memory = await env.open()
    bare = Consolidator(memory.longterm_store, memory.episodes, memory.facts, memory.procedures)
    assert "sessions" not in bare.jobs
    with pytest.raises(ValidationError, match="sessions needs a working store"):
        await bare.run("t", jobs=SESSIONS)
    report = await bare.run(new_tenant())
    assert [j.job for j in report.jobs] == ["facts", "procedures", "decay"]
    with pytest.raises(ConfigurationError, match="embedder"):
        Consolidator(
            memory.longterm_store,
            memory.episodes,
            memory.facts,
            memory.procedures,
            working=memory.working_store,
        )
    full = await memory.consolidate(Access.local(new_tenant()))
    assert [j.job for j in full.jobs] == ["sessions", "facts", "procedures", "decay"]
