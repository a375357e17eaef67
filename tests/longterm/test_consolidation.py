"""Consolidation against the real stores (SQLite and PostgreSQL): facts, procedures,
decay and pruning, leases, cursors, idempotency, two processes and a crash."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from sedimem.clock import Clock
from sedimem.consolidation import (
    ConsolidationSettings,
    ConsolidationWorker,
    Consolidator,
    JobReport,
    RuleExtractor,
)
from sedimem.consolidation import consolidator as consolidator_module
from sedimem.consolidation.lease import LeaseLost, Leases
from sedimem.consolidation.runlog import RUN_KIND
from sedimem.embed import HashEmbedder
from sedimem.errors import ValidationError
from sedimem.longterm import EpisodicMemory, ProceduralMemory, SemanticMemory, records
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter, StoredRecord
from sedimem.types.longterm import Episode, Fact, Outcome

PROC = Path(__file__).with_name("consolidation_proc.py")
BASE = datetime(2026, 1, 1, tzinfo=UTC)
ALL_KINDS = ("episode", "fact", "procedure", "consolidation_lease", "consolidation_run")


class FixedClock:
    def __init__(self, now: float) -> None:
        self.value = now

    def now(self) -> float:
        return self.value


def make(
    store: LongTermStore,
    embedder: HashEmbedder,
    *,
    clock: Clock | None = None,
    extractor: RuleExtractor | None = None,
    **settings: object,
) -> Consolidator:
    return Consolidator(
        store,
        EpisodicMemory(store, embedder, clock=clock),
        SemanticMemory(store, embedder, clock=clock),
        ProceduralMemory(store, embedder, clock=clock),
        settings=ConsolidationSettings.model_validate(settings),
        extractor=extractor,
        clock=clock,
    )


def corpus(n: int, tenant: str) -> list[Episode]:
    """Deterministic episodes (fixed ids), identical for every tenant."""
    out = []
    for i in range(n):
        ok = i % 7 != 0
        out.append(
            Episode(
                id=f"00000000-0000-7000-8000-{i:012d}",
                task_type=f"task{i % 4}",
                description=f"User{i % 37} lives in City{i % 11}. Tool{i % 13} is in Lang{i % 3}.",
                actions=[f"open {i % 4}", "check", "submit"] if i % 5 else ["guess"],
                outcome=Outcome.SUCCESS if ok else Outcome.FAILURE,
                lessons_learned=[f"validate input of task{i % 4}"] if i % 6 == 0 else [],
                occurred_at=BASE + timedelta(minutes=i),
                scope=Scope(tenant=tenant, project="p"),
            )
        )
    return out


async def seed(store: LongTermStore, embedder: HashEmbedder, n: int, tenant: str) -> None:
    await EpisodicMemory(store, embedder).record_many(corpus(n, tenant))


async def all_rows(store: LongTermStore, tenant: str, kind: str) -> list[StoredRecord]:
    rows: list[StoredRecord] = []
    cursor: str | None = None
    while True:
        page = await store.find(tenant, RecordFilter(kind=kind), limit=1000, after=cursor)
        rows.extend(page)
        if len(page) < 1000:
            return rows
        cursor = page[-1].id


async def fact_view(store: LongTermStore, tenant: str) -> list[tuple[object, ...]]:
    """Facts without ids and system times: comparable across tenants and runs."""
    facts = [records.fact_from_row(r) for r in await all_rows(store, tenant, "fact")]
    rows = [
        (
            f.statement,
            f.subject,
            f.predicate,
            f.object,
            tuple(sorted(f.source_episode_ids)),
            f.reinforcement_count,
            f.valid_from,
            f.valid_to,
            f.invalidated_at is None,
        )
        for f in facts
    ]
    return sorted(rows, key=repr)


async def procedure_view(store: LongTermStore, tenant: str) -> list[tuple[object, ...]]:
    rows = await all_rows(store, tenant, "procedure")
    procs = [records.procedure_from_row(r) for r in rows]
    return sorted((p.name, tuple(p.steps), p.version, p.success_count) for p in procs)


# -- the facts job ---------------------------------------------------------------------------


async def test_facts_are_learned_with_provenance_and_supersession(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    t = "default"
    ep = EpisodicMemory(lt_store, embedder)
    first = await ep.record(
        Episode(
            description="Ana lives in Lisbon. Ana likes tea.",
            lessons_learned=["ask before booking"],
            task_type="travel",
            occurred_at=BASE,
            scope=Scope(project="p", session="s1"),
        )
    )
    second = await ep.record(
        Episode(
            description="Ana lives in Porto. Ana likes tea.",
            occurred_at=BASE + timedelta(days=10),
            scope=Scope(project="p", session="s2"),
        )
    )
    report = await make(lt_store, embedder).run(t, jobs=("facts",))
    job = report.job("facts")
    assert job.status == "ok", job.error
    assert job.counts_in["episodes"] == 2
    assert job.counts_out == {"inserted": 3, "superseded": 1, "reinforced": 1}
    sem = SemanticMemory(lt_store, embedder)
    (now,) = await sem.current("Ana", "lives_in", scope=Scope(project="p"))
    assert now.object == "Porto"
    assert now.source_episode_ids == [second.id]
    assert now.scope.session is None
    assert now.scope.project == "p"
    history = await sem.history("Ana", "lives_in", scope=Scope(project="p"))
    assert [f.object for f in history] == ["Lisbon", "Porto"]
    (tea,) = await sem.current("Ana", "likes", scope=Scope(project="p"))
    assert tea.reinforcement_count == 2
    assert tea.source_episode_ids == [first.id, second.id]
    (lesson,) = await sem.current("travel", "lesson", scope=Scope(project="p"))
    assert lesson.statement == "ask before booking"
    runs = await make(lt_store, embedder).runs(t)
    assert [r.job for r in runs] == ["facts"]
    assert runs[0].run_id == job.run_id


async def test_chat_turns_are_learned_and_a_negation_ends_a_fact(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    ep = EpisodicMemory(lt_store, embedder)
    scope = Scope(project="p", user="ana", session="s1")
    turns = [
        ("Ana: I eat meat and I moved to Oslo last May.", BASE),
        ("Ana: Lost my job at Initech yesterday. I no longer eat meat.", BASE + timedelta(days=40)),
    ]
    for text, when in turns:
        await ep.record(Episode(task_type="conversation", description=text, occurred_at=when,
                                scope=scope))  # fmt: skip
    dry = await make(lt_store, embedder).run("default", jobs=("facts",), dry_run=True)
    # the job at Initech, eating meat, and the habit of it ("eats meat almost every day")
    assert dry.job("facts").counts_out["would_end"] == 3
    report = await make(lt_store, embedder).run("default", jobs=("facts",))
    job = report.job("facts")
    assert job.status == "ok", job.error
    assert job.counts_out["ended"] == 1  # meat ends; no job at Initech was known
    sem = SemanticMemory(lt_store, embedder)
    owner = Scope(project="p", user="ana")
    assert await sem.current("Ana", "eats", scope=owner) == []
    (meat,) = await sem.history("Ana", "eats", scope=owner)
    assert (meat.valid_from, meat.valid_to) == (BASE, BASE + timedelta(days=40))
    (oslo,) = await sem.current("Ana", "lives_in", scope=owner)
    assert oslo.valid_from.month == 5
    again = await make(lt_store, embedder).run("default", jobs=("facts",))
    assert again.job("facts").counts_out.get("ended", 0) == 0  # nothing new, nothing closed


async def test_second_run_changes_nothing(lt_store: LongTermStore, embedder: HashEmbedder) -> None:
    await seed(lt_store, embedder, 60, "default")
    c = make(lt_store, embedder, batch_size=7, prune_threshold=0.0)
    first = await c.run("default")
    assert first.ok, first
    facts, procs = await fact_view(lt_store, "default"), await procedure_view(lt_store, "default")
    assert facts
    assert procs
    again = await c.run("default")
    assert again.job("facts").counts_in.get("episodes", 0) == 0
    assert again.job("facts").counts_out == {}
    assert again.job("procedures").counts_out == {}
    assert again.job("decay").counts_out == {}
    assert await fact_view(lt_store, "default") == facts
    assert await procedure_view(lt_store, "default") == procs
    # a forced replay of everything (cursor lost) neither duplicates nor re-reinforces
    replay = make(lt_store, embedder, batch_size=7)
    await lt_store.delete(
        "default",
        [
            r.id
            for r in await lt_store.find(
                "default", RecordFilter(kind="consolidation_lease"), limit=9
            )
        ],
    )
    report = await replay.run("default", jobs=("facts", "procedures"))
    assert report.job("facts").counts_in["episodes"] == 60
    assert set(report.job("facts").counts_out) == {"already_learned"}
    assert set(report.job("procedures").counts_out) == {"unchanged"}
    assert await fact_view(lt_store, "default") == facts
    assert await procedure_view(lt_store, "default") == procs


async def test_dry_run_changes_nothing(lt_store: LongTermStore, embedder: HashEmbedder) -> None:
    await seed(lt_store, embedder, 30, "default")
    clock = FixedClock((BASE + timedelta(days=400)).timestamp())
    c = make(lt_store, embedder, clock=clock, prune_threshold=0.5, decay_half_life_days=30)
    before = {k: len(await all_rows(lt_store, "default", k)) for k in ALL_KINDS}
    report = await c.run("default", dry_run=True)
    assert report.dry_run
    assert report.ok
    assert report.job("facts").counts_out["would_learn"] > 0
    assert report.job("procedures").counts_out["would_record"] == 4
    assert report.job("decay").counts_out == {"would_prune_episodes": 30}
    assert all(j.run_id is None for j in report.jobs)
    after = {k: len(await all_rows(lt_store, "default", k)) for k in ALL_KINDS}
    assert after == before


# -- procedures ------------------------------------------------------------------------------


async def test_procedures_inherit_the_narrowest_visibility_of_their_sources(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    """V's private episodes become V's procedure (with them as provenance), never one that
    O, a sibling agent or the tenant at large can read; more episodes only add sources."""
    ep = EpisodicMemory(lt_store, embedder)
    steps = ["upload the diagnosis result", "call insurer about claim 4711"]

    def e(user: str | None, agent: str | None = None) -> Episode:
        return Episode(
            task_type="claims",
            description="claim run",
            actions=steps,
            scope=Scope(user=user, agent_type="helper", agent=agent),
        )

    vs = await ep.record_many([e("v") for _ in range(4)])
    await ep.record_many([e("o"), e("o")])  # too few for O on their own
    await ep.record_many([e(None, "a1") for _ in range(3)] + [e(None, "a2") for _ in range(2)])
    c = make(lt_store, embedder)
    report = await c.run("default", jobs=("procedures",))
    assert report.job("procedures").counts_out == {"recorded": 2}  # V's and agent a1's
    pm = ProceduralMemory(lt_store, embedder)

    async def seen_by(**fields: str) -> list[Scope]:
        scope = Scope(agent_type="helper", **fields)
        return [h.record.scope for h in await pm.find_matching("claims", scope=scope)]

    (mine,) = await pm.find_matching("claims", scope=Scope(user="v", agent="x"))
    assert mine.record.scope == Scope(user="v", agent_type="helper")
    assert sorted(mine.record.source_episode_ids) == sorted(x.id for x in vs)
    assert await seen_by(user="o", agent="x") == []
    assert await seen_by(agent="a2") == []  # a1's episodes were a1's own
    assert await seen_by(agent="a1") == [Scope(agent_type="helper", agent="a1")]
    await ep.record(e("v"))
    report = await c.run("default", jobs=("procedures",))
    assert report.job("procedures").counts_out == {"sources_added": 1}
    (mine,) = await pm.find_matching("claims", scope=Scope(user="v", agent="x"))
    assert len(mine.record.source_episode_ids) == 5
    assert mine.record.version == 1


async def test_procedures_need_enough_successes_and_rate(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    ep = EpisodicMemory(lt_store, embedder)
    steps = ["plan", "book", "confirm"]

    def e(task: str, actions: list[str], ok: bool) -> Episode:
        return Episode(
            task_type=task,
            description=f"{task} run",
            actions=actions,
            outcome=Outcome.SUCCESS if ok else Outcome.FAILURE,
            scope=Scope(agent_type="planner"),
        )

    await ep.record_many(
        [e("booking", steps, True)] * 0
        + [e("booking", steps, True) for _ in range(3)]
        + [e("booking", steps, False)]  # 3/4 = 0.75 >= 0.7
        + [e("refund", ["a"], True) for _ in range(3)]
        + [e("refund", ["a"], False) for _ in range(2)]  # 3/5 = 0.6 < 0.7
        + [e("search", ["q"], True) for _ in range(2)]  # only 2 successes
    )
    c = make(lt_store, embedder)
    report = await c.run("default", jobs=("procedures",))
    assert report.job("procedures").counts_out == {"recorded": 1}
    pm = ProceduralMemory(lt_store, embedder)
    (best,) = await pm.find_matching("booking", scope=Scope(agent_type="planner"))
    assert best.record.name == "booking"
    assert best.record.steps == steps
    assert (best.record.success_count, best.record.failure_count) == (3, 1)
    assert best.record.scope.agent_type == "planner"
    # a better sequence appears: the procedure is refined into version 2
    better = ["plan", "book", "pay", "confirm"]
    await ep.record_many([e("booking", better, True) for _ in range(4)])
    report = await c.run("default", jobs=("procedures",))
    assert report.job("procedures").counts_out == {"refined": 1}
    (best,) = await pm.find_matching("booking", scope=Scope(agent_type="planner"))
    assert best.record.steps == better
    assert best.record.version == 2


# -- decay and pruning -----------------------------------------------------------------------


async def test_decay_prunes_old_unimportant_episodes_with_their_facts(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    ep = EpisodicMemory(lt_store, embedder)
    old = await ep.record(
        Episode(description="Bo likes jazz. Bo is tall.", importance=0.2, occurred_at=BASE)
    )
    keep = await ep.record(Episode(description="Bo likes jazz.", importance=0.9, occurred_at=BASE))
    recent = await ep.record(
        Episode(description="Cy is short.", importance=0.01, occurred_at=BASE + timedelta(days=95))
    )
    clock = FixedClock((BASE + timedelta(days=100)).timestamp())
    c = make(
        lt_store,
        embedder,
        clock=clock,
        decay_half_life_days=60,
        prune_threshold=0.1,
        prune_min_age_days=7,
    )
    await c.run("default", jobs=("facts",))
    dry = await c.run("default", jobs=("decay",), dry_run=True)
    assert dry.job("decay").counts_out == {
        "would_prune_episodes": 1,
        "would_delete_facts": 1,
        "would_unlink_facts": 1,
    }
    report = await c.run("default", jobs=("decay",))
    assert report.job("decay").counts_out == {
        "episodes_pruned": 1,
        "facts_deleted": 1,
        "facts_unlinked": 1,
    }
    left = {r.id for r in await all_rows(lt_store, "default", "episode")}
    assert left == {keep.id, recent.id}
    assert old.id not in left
    facts = {f[0]: f[4] for f in await fact_view(lt_store, "default")}
    assert facts == {"Bo likes jazz.": (keep.id,), "Cy is short.": (recent.id,)}
    again = await c.run("default", jobs=("decay",))
    assert again.job("decay").counts_out == {}


# -- leases ----------------------------------------------------------------------------------


async def test_a_live_lease_makes_another_worker_skip(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    await seed(lt_store, embedder, 5, "default")
    clock = FixedClock(1_000_000.0)
    leases = Leases(lt_store, 60)
    taken, _ = await leases.acquire("default", "facts", "other-worker", clock.now())
    assert taken
    c = make(lt_store, embedder, clock=clock, lease_ttl_seconds=60)
    report = await c.run("default", jobs=("facts", "procedures"))
    assert report.job("facts").status == "skipped"
    assert report.job("procedures").status == "ok"
    clock.value += 61  # the other worker died: its lease expires
    report = await c.run("default", jobs=("facts",))
    assert report.job("facts").status == "ok"
    assert report.job("facts").counts_in["episodes"] == 5
    statuses = [r.status for r in await c.runs("default", job="facts")]
    assert statuses == ["ok", "skipped"]


async def test_validation(lt_store: LongTermStore, embedder: HashEmbedder) -> None:
    c = make(lt_store, embedder)
    with pytest.raises(ValidationError):
        await c.run("default", jobs=("nope",))
    with pytest.raises(ValidationError):
        await c.run("")
    with pytest.raises(ValidationError):
        await c.runs("default", limit=0)
    with pytest.raises(ValueError, match="min_success_rate"):
        ConsolidationSettings(min_success_rate=1.5)


class Exploding(RuleExtractor):
    def __init__(self, after: int) -> None:
        self.left = after

    async def extract(self, episode: Episode) -> list[Fact]:
        if self.left == 0:
            raise RuntimeError("extractor crashed")
        self.left -= 1
        return await super().extract(episode)


async def test_failure_mid_batch_resumes_without_duplicates(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    await seed(lt_store, embedder, 40, "default")
    await seed(lt_store, embedder, 40, "ref")
    await make(lt_store, embedder).run("ref", jobs=("facts",))
    broken = make(lt_store, embedder, extractor=Exploding(23), batch_size=10)
    report = await broken.run("default", jobs=("facts",))
    job = report.job("facts")
    assert job.status == "failed"
    assert "extractor crashed" in (job.error or "")
    assert (await broken.runs("default"))[0].status == "failed"
    report = await make(lt_store, embedder, batch_size=10).run("default", jobs=("facts",))
    assert report.job("facts").counts_in["episodes"] == 20  # resumed from episode 20
    assert report.job("facts").counts_out["already_learned"] > 0
    assert await fact_view(lt_store, "default") == await fact_view(lt_store, "ref")


# -- the worker ------------------------------------------------------------------------------


async def test_worker_runs_on_a_schedule_and_stops(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    await seed(lt_store, embedder, 10, "a")
    await seed(lt_store, embedder, 10, "b")
    worker = ConsolidationWorker(
        make(lt_store, embedder, prune_threshold=0.0), ["a", "b", ""], 0.05
    )
    worker.start()
    assert worker.running
    with pytest.raises(Exception, match="already running"):
        worker.start()
    for _ in range(200):
        if worker.rounds >= 2:
            break
        await asyncio.sleep(0.05)
    await worker.stop()
    assert not worker.running
    assert worker.rounds >= 2
    assert set(worker.last_reports) == {"a", "b"}  # the bad tenant was logged, not fatal
    assert await fact_view(lt_store, "a") == await fact_view(lt_store, "b") != []
    await worker.stop()  # stopping twice is harmless
    with pytest.raises(ValidationError):
        ConsolidationWorker(make(lt_store, embedder), [], 1)
    with pytest.raises(ValidationError):
        ConsolidationWorker(make(lt_store, embedder), ["a"], 0)


# -- processes -------------------------------------------------------------------------------


def _spawn(url: str, tenant: str, mode: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(PROC), url, tenant, mode, *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
async def test_two_processes_consolidate_like_one(
    lt_url: str, lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    n = 1000
    await seed(lt_store, embedder, n, "ref")
    await seed(lt_store, embedder, n, "shared")
    await make(lt_store, embedder).run("ref", jobs=("facts", "procedures"))
    procs = [_spawn(lt_url, "shared", "loop") for _ in range(2)]
    outputs = [await asyncio.to_thread(p.communicate, timeout=280) for p in procs]
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert "ok=" in out
    assert any("skipped=" in out for out, _ in outputs)  # they really contended
    shared = await fact_view(lt_store, "shared")
    assert shared == await fact_view(lt_store, "ref")
    assert await procedure_view(lt_store, "shared") == await procedure_view(lt_store, "ref")
    current = [f for f in shared if f[-1]]
    keys = [(f[0], f[6], f[7]) for f in current]
    assert len(keys) == len(set(keys))  # no duplicate current facts
    runs = [
        JobReport.model_validate_json(r.body)
        for r in await all_rows(lt_store, "shared", "consolidation_run")
    ]
    learned = sum(r.counts_in.get("episodes", 0) for r in runs if r.job == "facts")
    assert learned == n  # every episode consolidated exactly once


@pytest.mark.slow
async def test_a_killed_process_is_resumed_without_duplicates(
    lt_url: str, lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    n = 200
    await seed(lt_store, embedder, n, "ref")
    await seed(lt_store, embedder, n, "crash")
    await make(lt_store, embedder).run("ref", jobs=("facts", "procedures"))
    proc = _spawn(lt_url, "crash", "crash", "137")  # dies inside its 3rd run, mid-batch
    _, err = await asyncio.to_thread(proc.communicate, timeout=120)
    assert proc.returncode == -9, err
    partial = await fact_view(lt_store, "crash")
    assert 0 < len(partial) < len(await fact_view(lt_store, "ref"))
    c = make(lt_store, embedder, lease_ttl_seconds=2, batch_size=25)
    report = await c.run("crash", jobs=("facts",))
    assert report.job("facts").status == "skipped"  # the dead worker's lease is still live
    await asyncio.sleep(2.1)
    report = await c.run("crash", jobs=("facts", "procedures"))
    assert report.ok, report
    assert report.job("facts").counts_out.get("already_learned", 0) > 0  # the replayed batch
    assert await fact_view(lt_store, "crash") == await fact_view(lt_store, "ref")
    assert await procedure_view(lt_store, "crash") == await procedure_view(lt_store, "ref")


class Thief(RuleExtractor):
    """Stalls past the lease TTL, during which another worker takes the lease over."""

    def __init__(self, store: LongTermStore, clock: FixedClock) -> None:
        self.store, self.clock, self.done = store, clock, False

    async def extract(self, episode: Episode) -> list[Fact]:
        if not self.done:
            self.done = True
            self.clock.value += 61
            taken, _ = await Leases(self.store, 60).acquire(
                "default", "facts", "thief", self.clock.now()
            )
            assert taken
        return await super().extract(episode)


async def test_a_worker_that_lost_its_lease_cannot_move_the_cursor(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    await seed(lt_store, embedder, 6, "default")
    clock = FixedClock(1_000_000.0)
    c = make(lt_store, embedder, clock=clock, extractor=Thief(lt_store, clock), batch_size=3)
    report = await c.run("default", jobs=("facts",))
    job = report.job("facts")
    assert job.status == "failed"
    assert "taken over" in (job.error or "")
    leases = Leases(lt_store, 60)
    state = await leases.peek("default", "facts")
    assert state.owner == "thief"
    assert state.cursor is None  # the fenced write did not happen
    with pytest.raises(LeaseLost):
        await leases.renew("default", "facts", "someone-else", clock.now())
    await leases.renew("default", "facts", "thief", clock.now())
    await leases.release("default", "facts", "thief")
    assert (await leases.peek("default", "facts")).owner is None


async def test_a_run_cancelled_as_a_job_ends_stops(
    lt_store: LongTermStore, embedder: HashEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker stopped just as a job ends (the run is stopping the job's lease heartbeat)
    must stop: a cancellation swallowed there let the run go on to the next job, and a
    worker on a short interval went on consolidating while ``stop()`` waited forever."""
    await seed(lt_store, embedder, 5, "a")
    consolidator = make(lt_store, embedder)
    first = consolidator.jobs[0]
    job = consolidator_module._JOBS[first]

    async def then_cancelled(ctx: Any) -> None:
        await job(ctx)
        # the cancellation lands while the run awaits its heartbeat's end
        asyncio.get_running_loop().call_soon(asyncio.current_task().cancel)  # type: ignore[union-attr]

    monkeypatch.setitem(consolidator_module._JOBS, first, then_cancelled)
    run = asyncio.create_task(consolidator.run("a"))
    await asyncio.wait({run}, timeout=30)
    assert run.cancelled()
    runs = await lt_store.count("a", RecordFilter(kind=RUN_KIND))
    assert runs == 0  # no report of a run that was stopped


async def test_stopping_a_busy_worker_returns(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    """A worker with no pause between runs is stopped at whatever point each stop lands."""
    await seed(lt_store, embedder, 5, "a")
    for delay in (0.0, 0.001, 0.003, 0.01, 0.02, 0.05):
        worker = ConsolidationWorker(make(lt_store, embedder), ["a"], 0.001)
        worker.start()
        await asyncio.sleep(delay)
        async with asyncio.timeout(30):
            await worker.stop()
        assert not worker.running


class _CitingTheVanished(RuleExtractor):
    """Facts citing an episode besides their own that no longer exists (erased meanwhile)."""

    async def extract(self, episode: Episode) -> list[Fact]:
        facts = await super().extract(episode)
        return [f.model_copy(update={"source_episode_ids": ["erased-meanwhile"]}) for f in facts]


async def test_a_derived_fact_refused_is_reported_not_a_failed_job(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    scope = Scope(tenant="t", user="ana")
    await EpisodicMemory(lt_store, embedder).record(
        Episode(scope=scope, description="Ana lives in Lisbon.")
    )
    report = await make(lt_store, embedder, extractor=_CitingTheVanished()).run("t", ["facts"])
    facts = report.job("facts")
    assert facts.status == "ok"
    assert facts.counts_out["refused"] >= 1
    assert "a derived fact was refused (source_episode_ids)" in facts.warnings[0]
