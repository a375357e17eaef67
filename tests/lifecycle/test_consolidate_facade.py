import asyncio

from sedimem.access import Access
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Outcome


async def test_consolidate_through_the_facade(memory: Memory) -> None:
    scope = Scope(tenant="cons", user="ana")
    await memory.episodes.record_many(
        [
            Episode(
                scope=scope,
                task_type="deploy",
                description=f"Ana lives in Lisbon. run {i}",
                actions=["build", "test", "ship"],
                outcome=Outcome.SUCCESS,
            )
            for i in range(4)
        ]
    )
    dry = await memory.consolidate(Access.local("cons"), dry_run=True)
    assert dry.ok
    assert await memory.facts.current("Ana", "lives_in", scope=scope) == []
    report = await memory.consolidate(Access.local("cons"))
    assert report.ok
    assert [f.object for f in await memory.facts.current("Ana", "lives_in", scope=scope)] == [
        "Lisbon"
    ]
    procedures = await memory.procedures.find_matching("deploy", scope=scope)
    assert [p.record.steps for p in procedures] == [["build", "test", "ship"]]
    again = await memory.consolidate(Access.local("cons"))
    assert again.ok
    facts_job = again.job("facts")
    assert facts_job is not None
    assert facts_job.counts_out.get("inserted", 0) == 0
    assert len(await memory.consolidator.runs("cons")) >= 6

    worker = memory.consolidation_worker(["cons"], interval_seconds=0.05)
    worker.start()
    for _ in range(100):
        if worker.rounds >= 1:
            break
        await asyncio.sleep(0.05)
    await worker.stop()
    assert worker.rounds >= 1
