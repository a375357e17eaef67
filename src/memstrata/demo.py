"""A scripted agent session that shows working memory at work, step by step."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from memstrata.config import WorkingSettings
from memstrata.ids import new_id
from memstrata.scope import Scope
from memstrata.storage.working.factory import open_working_store
from memstrata.types.working import TaskState, TaskStatus
from memstrata.working.memory import WorkingMemory

__all__ = ["run_demo"]


async def run_demo(url: str, settings: WorkingSettings, console: Console) -> None:
    store = await open_working_store(url, settings)
    scope = Scope(tenant="default", project="demo", agent="researcher", session=new_id())
    console.print(f"[bold]memstrata demo[/] — working memory on [cyan]{url}[/]")
    async with WorkingMemory(store, scope, settings=settings, owns_store=True) as wm:
        await wm.set_task_state(TaskState(task_id="summarise-report", total_steps=3))
        await wm.set("query", "quarterly revenue by region")
        await wm.set("draft", {"regions": ["EMEA"]}, ttl_seconds=600)
        await wm.append_scratchpad("Read the report's table of contents.")
        await wm.update_task_progress(current_step=1, progress_percent=33, status="in_progress")
        console.print("1. task started, 2 keys set, scratchpad noted, progress 33%")

        checkpoint = await wm.create_checkpoint("after step 1")
        console.print(f"2. checkpoint [green]{checkpoint}[/] taken")

        await wm.set("draft", {"regions": ["EMEA", "a wrong turn"]})
        await wm.append_scratchpad("Went down a dead end.")
        await wm.update_task_progress(current_step=2, progress_percent=66)
        console.print("3. went down a dead end (draft changed, step 2)")

        await wm.restore_checkpoint(checkpoint)
        state = await wm.get_task_state()
        assert state is not None
        console.print(
            f"4. restored: draft={await wm.get('draft')}, step={state.current_step}, "
            f"scratchpad={await wm.get_scratchpad()}"
        )

        fork = await wm.fork(checkpoint, f"{scope.session}-alt")
        await fork.append_scratchpad("Try the appendix instead.")
        console.print(f"5. forked session {fork.scope.session}: {await fork.get_scratchpad()}")

        await wm.update_task_progress(
            current_step=3, progress_percent=100, status=TaskStatus.COMPLETED
        )
        stats = await wm.get_stats()
        table = Table("backend", "keys", "scratchpad", "checkpoints", "fallback")
        table.add_row(
            stats.backend,
            str(stats.keys),
            str(stats.scratchpad_entries),
            str(stats.checkpoints),
            str(stats.using_fallback),
        )
        console.print(table)
        await fork.destroy()
        await wm.destroy()
    console.print("6. task completed; session cleaned up.")
