from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Outcome


async def test_reflect_through_the_facade(memory: Memory) -> None:
    scope = Scope(tenant="reflect", project="p")
    episodes = []
    for i in range(40):
        tested = i % 2 == 0
        episodes.append(
            Episode(
                scope=scope,
                task_type="deploy",
                description=f"deploy {i}",
                actions=["build", "run tests", "push"] if tested else ["build", "push"],
                outcome=Outcome.SUCCESS if tested else Outcome.FAILURE,
                duration_seconds=60.0,
            )
        )
    await memory.episodes.record_many(episodes)
    report = await memory.reflect(scope)
    assert report.episodes_analyzed == 40
    factors = [f for r in report.success_factors for f in r.success_factors + r.risk_factors]
    assert any("run tests" in f.subject for f in factors)
    assert all(0.0 <= f.confidence <= 1.0 for f in factors)
    empty = await memory.reflect(Scope(tenant="nobody"))
    assert empty.episodes_analyzed == 0


async def test_reflection_from_a_session_covers_every_session_of_its_owner(
    memory: Memory,
) -> None:
    owner = Scope(tenant="reflect-sessions", user="ana", agent="planner")
    for i in range(6):
        await memory.episodes.record(
            Episode(scope=owner.with_session(f"s{i}"), task_type="trip", description=f"trip {i}")
        )
    await memory.episodes.record(
        Episode(scope=owner.model_copy(update={"user": "bo"}), task_type="trip", description="bo")
    )
    report = await memory.reflect(owner.with_session("s-new"))
    assert report.episodes_analyzed == 6  # every session of ana's, none of bo's
