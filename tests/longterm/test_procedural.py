import asyncio

import pytest

from sedimem.embed import HashEmbedder
from sedimem.errors import NotFound, PermissionDenied, ValidationError
from sedimem.limits import MAX_K, MAX_PROCEDURE_USES
from sedimem.longterm.procedural import ProceduralMemory
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore
from sedimem.testing.clock import ManualClock
from sedimem.types import Procedure


@pytest.fixture
def procedures(lt_store: LongTermStore, embedder: HashEmbedder) -> ProceduralMemory:
    return ProceduralMemory(lt_store, embedder)


def proc(scope: Scope, name: str, trigger: str, steps: list[str]) -> Procedure:
    return Procedure(scope=scope, name=name, trigger=trigger, steps=steps)


async def test_duplicates_merge_into_new_versions(procedures: ProceduralMemory) -> None:
    scope = Scope(tenant="a", agent_type="deployer")
    first = await procedures.record(
        proc(scope, "Deploy service", "deploy a service", ["build", "push"])
    )
    same = await procedures.record(
        proc(scope, "deploy  SERVICE", "deploy a service", ["build", "push"])
    )
    assert same.id == first.id
    assert same.version == 1
    changed = await procedures.record(
        proc(scope, "deploy service", "deploy a service", ["build", "test", "push"])
    )
    assert changed.id == first.id
    assert changed.version == 2
    assert changed.steps == ["build", "test", "push"]
    assert changed.metadata["history"] == [{"version": 1, "steps": ["build", "push"]}]
    other_owner = await procedures.record(
        proc(Scope(tenant="a", agent_type="tester"), "deploy service", "t", ["x"])
    )
    assert other_owner.id != first.id


async def test_matching_is_ranked_by_match_times_success(procedures: ProceduralMemory) -> None:
    scope = Scope(tenant="a", agent_type="ops")
    good = await procedures.record(
        proc(scope, "restart pods", "restart the web pods", ["kubectl rollout restart"])
    )
    bad = await procedures.record(proc(scope, "restart nodes", "restart the web nodes", ["reboot"]))
    for _ in range(5):
        await procedures.record_outcome(good.id, True, tenant="a")
        await procedures.record_outcome(bad.id, False, tenant="a")
    hits = await procedures.find_matching("restart web", scope=scope, k=2)
    assert [h.record.id for h in hits] == [good.id, bad.id]
    assert hits[0].score == pytest.approx(hits[0].explain.fused * hits[0].record.success_rate)
    best = await procedures.best("restart web", scope=scope)
    assert best is not None
    assert best.id == good.id
    assert best.success_count == 5
    assert best.last_used_at is not None
    assert await procedures.find_matching("restart", scope=Scope(tenant="b")) == []
    assert await procedures.best("restart", scope=Scope(tenant="b")) is None
    narrowed = await procedures.find_matching("restart", scope=Scope(tenant="a"), agent_type="qa")
    assert narrowed == []
    # the largest k a caller may ask for is served (candidates stay within the search's bound)
    widest = await procedures.find_matching("restart web", scope=scope, k=MAX_K)
    assert [h.record.id for h in widest] == [good.id, bad.id]


async def test_concurrent_outcomes_are_all_counted(procedures: ProceduralMemory) -> None:
    p = await procedures.record(proc(Scope(tenant="a"), "p", "t", ["s"]))
    await asyncio.gather(
        *(procedures.record_outcome(p.id, i % 2 == 0, tenant="a") for i in range(20))
    )
    after = await procedures.get(p.id, tenant="a")
    assert (after.success_count, after.failure_count) == (10, 10)


async def test_update_steps_and_errors(procedures: ProceduralMemory) -> None:
    p = await procedures.record(proc(Scope(tenant="a"), "triage", "triage a bug", ["read"]))
    updated = await procedures.update_steps(p.id, ["read", "reproduce"], tenant="a")
    assert (updated.version, updated.steps) == (2, ["read", "reproduce"])
    hits = await procedures.find_matching("reproduce", scope=Scope(tenant="a"), mode="vector")
    assert hits[0].record.id == p.id
    with pytest.raises(ValidationError, match="steps"):
        await procedures.update_steps(p.id, [], tenant="a")
    with pytest.raises(ValidationError, match="success"):
        await procedures.record_outcome(p.id, "yes", tenant="a")  # type: ignore[arg-type]
    with pytest.raises(NotFound):
        await procedures.record_outcome(p.id, True, tenant="b")
    with pytest.raises(NotFound):
        await procedures.get(p.id, tenant="b")
    assert await procedures.delete(p.id, tenant="a") is True
    with pytest.raises(NotFound):
        await procedures.update_steps(p.id, ["x"], tenant="a")


async def test_uses_are_logged_with_time_and_outcome_for_the_rate_over_time(
    lt_store: LongTermStore, embedder: HashEmbedder
) -> None:
    clock = ManualClock(1_800_000_000.0)
    procedures = ProceduralMemory(lt_store, embedder, clock=clock)
    team = Scope(tenant="uses", agent_type="ops")
    p = await procedures.record(proc(team, "restart", "restart the pods", ["kubectl restart"]))
    for success in (True, False):
        clock.advance(60)
        p = await procedures.record_outcome(p.id, success, scope=team)
    assert p.metadata["uses"] == [
        {"at": "2027-01-15T08:01:00+00:00", "success": True},
        {"at": "2027-01-15T08:02:00+00:00", "success": False},
    ]
    # kept through a new version and a metadata edit (whose own "uses" key is ignored)
    p = await procedures.update(
        p.id, {"steps": ["drain", "restart"], "metadata": {"owner": "ops", "uses": []}}, scope=team
    )
    assert p.metadata["owner"] == "ops"
    assert [u["success"] for u in p.metadata["uses"]] == [True, False]
    # the newest MAX_PROCEDURE_USES only; the counts stay complete
    for _ in range(MAX_PROCEDURE_USES):
        p = await procedures.record_outcome(p.id, True, scope=team)
    assert len(p.metadata["uses"]) == MAX_PROCEDURE_USES
    assert not any(u["success"] is False for u in p.metadata["uses"])
    assert (p.success_count, p.failure_count) == (MAX_PROCEDURE_USES + 1, 1)
    assert (await procedures.get(p.id, scope=team)).metadata["uses"] == p.metadata["uses"]


async def test_counting_outcomes_keeps_the_vector(procedures: ProceduralMemory) -> None:
    scope = Scope(tenant="vec")
    p = await procedures.record(
        proc(scope, "rotate keys", "rotate credentials", ["revoke", "issue"])
    )
    await procedures.record_outcome(p.id, True, tenant="vec")
    hits = await procedures.find_matching("rotate credentials", scope=scope, mode="vector")
    assert [h.record.id for h in hits] == [p.id]


async def test_update_and_delete_by_id(procedures: ProceduralMemory) -> None:
    team = Scope(tenant="a", agent_type="deployer")
    p = await procedures.record(proc(team, "deploy", "deploy a service", ["build", "push"]))
    renamed = await procedures.update(p.id, {"trigger": "ship a release"}, scope=team)
    assert (renamed.trigger, renamed.version, renamed.steps) == ("ship a release", 1, p.steps)
    hits = await procedures.find_matching("ship a release", scope=team, mode="keyword")
    assert [h.record.id for h in hits] == [p.id]
    stepped = await procedures.update(
        p.id, {"steps": ["build", "test", "push"], "metadata": {"owner": "ops"}}, scope=team
    )
    assert stepped.version == 2
    assert stepped.metadata["owner"] == "ops"
    assert stepped.metadata["history"] == [{"version": 1, "steps": ["build", "push"]}]
    assert (await procedures.get(p.id, scope=team)).steps == ["build", "test", "push"]
    # an agent of the type reads and counts uses of the shared procedure, may not change it
    agent = Scope(tenant="a", agent_type="deployer", agent="d1")
    assert (await procedures.record_outcome(p.id, True, scope=agent)).success_count == 1
    with pytest.raises(PermissionDenied):
        await procedures.update(p.id, {"trigger": "x"}, scope=agent)
    with pytest.raises(PermissionDenied):
        await procedures.delete(p.id, scope=agent)
    with pytest.raises(PermissionDenied):
        await procedures.get(p.id, scope=Scope(tenant="a", agent_type="planner"))
    with pytest.raises(NotFound):
        await procedures.update(p.id, {"trigger": "x"}, scope=Scope(tenant="b"))
    with pytest.raises(ValidationError) as empty:
        await procedures.update(p.id, {"steps": []}, scope=team)
    assert empty.value.field == "steps"
    assert await procedures.delete(p.id, scope=team) is True
    assert await procedures.find_matching("ship a release", scope=team) == []
    assert await procedures.delete(p.id, scope=team) is False


async def test_procedures_of_every_session_match_unless_one_is_asked_for(
    procedures: ProceduralMemory,
) -> None:
    owner = Scope(tenant="sessions", agent_type="deployer", agent="d1")
    await procedures.record(proc(owner.with_session("s1"), "deploy", "deploy a service", ["a"]))
    await procedures.record(
        proc(owner.with_session("s2"), "rollback", "roll a service back", ["b"])
    )
    later = owner.with_session("s3")
    names = {h.record.name for h in await procedures.find_matching("service", scope=later)}
    assert names == {"deploy", "rollback"}
    only = await procedures.find_matching("service", scope=later, session="s2")
    assert [h.record.name for h in only] == ["rollback"]
    sibling = Scope(tenant="sessions", agent_type="deployer", agent="d2", session="s1")
    assert await procedures.find_matching("service", scope=sibling) == []


async def test_a_short_list_is_the_head_of_the_whole_ranking(procedures: ProceduralMemory) -> None:
    """Only the top k of the candidates are read whole, chosen by the stored success rate:
    when the 4 k candidates drawn hold every match, the k found are the head of the
    longest list."""
    scope = Scope(tenant="a", agent_type="ops")
    made = [
        await procedures.record(
            proc(scope, f"restart service {i}", f"restart the web service {i}", [f"step {i}"])
        )
        for i in range(8)
    ]
    for i, p in enumerate(made):
        for n in range(i):  # later ones have worked more often
            await procedures.record_outcome(p.id, n % 3 != 0, tenant="a")
    whole = await procedures.find_matching("restart web service", scope=scope, k=MAX_K)
    assert len(whole) == 8
    assert [h.score for h in whole] == sorted((h.score for h in whole), reverse=True)
    for k in (2, 5):  # 8 and 20 candidates: all eight
        head = await procedures.find_matching("restart web service", scope=scope, k=k)
        assert [h.record.id for h in head] == [h.record.id for h in whole[:k]]
