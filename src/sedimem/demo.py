"""A scripted agent session through the ``Memory`` facade, printing each step."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from sedimem.access import Access
from sedimem.ids import new_id
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.longterm import Episode, Fact, Outcome, Procedure

__all__ = ["run_demo"]


async def run_demo(memory: Memory, console: Console) -> None:
    run = new_id()[-8:]
    user = Scope(tenant="default", project="demo", user="ana")
    scope = user.model_copy(update={"agent": "planner", "session": f"trip-{run}"})
    console.print(
        f"[bold]sedimem demo[/] — working memory on [cyan]{memory.working_store.name}[/], "
        f"long-term memory on [cyan]{memory.longterm_store.name}[/]"
    )
    life = memory.lifecycle
    await memory.blocks(user).update("persona", "You plan trips carefully and cheaply.")
    await memory.facts.learn(
        Fact(
            scope=user,
            statement="Ana prefers trains to planes",
            subject="Ana",
            predicate="prefers",
            object="trains",
        )
    )
    await memory.procedures.record(
        Procedure(
            scope=user,
            name="book a trip",
            trigger="plan and book travel",
            steps=["fix the dates", "compare trains and flights", "book the cheapest"],
        )
    )
    await memory.episodes.record(
        Episode(
            scope=user,
            description="Booked Ana a night train to Vienna",
            outcome=Outcome.SUCCESS,
            lessons_learned=["night trains save a hotel night"],
        )
    )
    console.print("1. long-term memory seeded: a pinned persona, a fact, a procedure, an episode")

    await life.spawn(scope, {"destination": "Oslo"}, total_steps=3)
    wm = memory.working(scope)
    await wm.append_scratchpad("Train to Oslo costs 90 EUR, the flight 140 EUR.")
    await wm.update_task_progress(current_step=1, progress_percent=33)
    paused = await life.pause(scope, "waiting for Ana's dates")
    console.print(f"2. spawned {scope.session}, worked one step, paused at {paused.checkpoint_id}")

    await wm.set("destination", "Reykjavik")
    await wm.append_scratchpad("A detour that Ana did not ask for.")
    await life.resume(scope)
    console.print(
        f"3. resumed: destination={await wm.get('destination')!r}, "
        f"scratchpad={await wm.get_scratchpad()}"
    )

    await wm.append_scratchpad("Booked the train to Oslo.")
    await wm.update_task_progress(current_step=3, progress_percent=100)
    done = await life.terminate(
        scope,
        "success",
        "Planned and booked Ana's train trip to Oslo",
        lessons_learned=["ask for dates first"],
    )
    episode = done.episode
    assert episode is not None
    console.print(f"4. terminated: one episode recorded ({episode.duration_seconds:.2f} s)")
    console.print(f"   summary: {episode.context_summary}")

    report = await memory.consolidate(Access.local(user.tenant))
    changed = ", ".join(f"{job.job}: {sum(job.counts_out.values())} changed" for job in report.jobs)
    console.print(f"5. consolidated ({changed})")

    hits = await memory.episodes.recall("train trip", scope=user, k=3)
    table = Table("score", "vector", "keyword", "episode")
    for hit in hits:
        why = hit.explain
        table.add_row(
            f"{hit.score:.3f}",
            "-" if why.vector is None else f"{why.vector:.2f}",
            "-" if why.keyword is None else f"{why.keyword:.2f}",
            hit.record.description,
        )
    console.print("6. recall 'train trip':")
    console.print(table)

    context = await memory.assemble("book Ana's next train trip", scope, budget_tokens=200)
    console.print(f"7. context for the next prompt ({context.tokens_used}/200 tokens):")
    console.print(context.text or "", markup=False, highlight=False)
    stats = await memory.stats(user)
    console.print(
        f"8. Ana's memory: {stats.episodes} episodes, {stats.current_facts} current facts, "
        f"{stats.procedures} procedures"
    )
