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
