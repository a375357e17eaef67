import asyncio
import uuid

import pytest

from sedimem.errors import NotFound, ValidationError
from sedimem.lifecycle import LifecycleResult
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Outcome, TaskState, TaskStatus


def session_scope() -> Scope:
    return Scope(tenant="t", project="p", agent="bot", session=f"s-{uuid.uuid4().hex[:8]}")


async def test_the_whole_lifecycle(memory: Memory) -> None:
    scope = session_scope()
    life = memory.lifecycle
    await life.spawn(
        scope,
        initial_state={"goal": "summarise the report"},
        metadata={"by": "test"},
        total_steps=3,
    )
    wm = memory.working(scope)
    await wm.set("draft", {"sections": 1}, ttl_seconds=600)
    await wm.update_task_progress(current_step=1, progress_percent=33)
    await wm.append_scratchpad("read the table of contents")
    paused = await life.pause(scope, "before lunch")
    assert paused.checkpoint_id is not None
    assert (await wm.get_task_state()).status is TaskStatus.PAUSED  # type: ignore[union-attr]

    await wm.set("draft", {"sections": 99})
    await wm.set("scratch", "junk")
    await wm.set_task_state(TaskState(task_id="other", current_step=3))
    await wm.append_scratchpad("went astray")

    resumed = await life.resume(scope)
    assert resumed.checkpoint_id == paused.checkpoint_id
    assert await wm.get_all() == {"draft": {"sections": 1}, "goal": "summarise the report"}
    state = await wm.get_task_state()
    assert state is not None
    assert (state.task_id, state.current_step, state.status) == (
        scope.session,
        1,
        TaskStatus.IN_PROGRESS,
    )
    assert state.metadata == {"by": "test"}
    assert await wm.get_scratchpad() == ["read the table of contents"]

    await asyncio.sleep(0.05)
    done = await life.terminate(
        scope, Outcome.SUCCESS, lessons_learned=["start with the ToC"], tokens_used=1234
    )
    episode = done.episode
    assert episode is not None
    assert episode.duration_seconds is not None
    assert episode.duration_seconds >= 0.05
    assert "step 1 of 3" in episode.context_summary
    assert "read the table of contents" in episode.context_summary
    assert episode.actions == ["read the table of contents"]
    assert episode.tokens_used == 1234
    assert episode.importance == pytest.approx(0.6)
    assert done.duration_ms > 0
    stats = await wm.get_stats()
    assert (stats.keys, stats.scratchpad_entries, stats.checkpoints, stats.has_task_state) == (
        0,
        0,
        0,
        False,
    )
    stored = await memory.episodes.get(episode.id, tenant="t")
    assert stored.description == episode.description

    again = await life.terminate(scope, Outcome.SUCCESS)
    assert again.already_terminated is True
    assert again.episode is None
    page = await memory.episodes.list(Scope(tenant="t", project="p"))
    assert [e.id for e in page.items] == [episode.id]


async def test_concurrent_terminates_record_one_episode(memory: Memory) -> None:
    scope = session_scope()
    await memory.lifecycle.spawn(scope)
    results = await asyncio.gather(
        *(memory.lifecycle.terminate(scope, "failure", cleanup=False) for _ in range(5))
    )
    assert sum(r.episode is not None for r in results) == 1
    assert sum(r.already_terminated for r in results) == 4
    recorded = next(r.episode for r in results if r.episode is not None)
    assert recorded.outcome is Outcome.FAILURE
    assert recorded.importance == pytest.approx(0.7)


async def test_hooks_run_after_the_operation_and_failures_are_reported(memory: Memory) -> None:
    scope = session_scope()
    seen: list[tuple[str, str]] = []
    life = memory.lifecycle

    @life.on_spawn
    def record_spawn(s: Scope, result: LifecycleResult) -> None:
        seen.append(("spawn", result.operation))

    @life.on_pause
    async def record_pause(s: Scope, result: LifecycleResult) -> None:
        seen.append(("pause", result.checkpoint_id or ""))

    @life.on_resume
    def broken(s: Scope, result: LifecycleResult) -> None:
        raise RuntimeError("hook exploded")

    @life.on_terminate
    def after_terminate(s: Scope, result: LifecycleResult) -> None:
        seen.append(("terminate", result.session))

    await life.spawn(scope, {"k": 1})
    paused = await life.pause(scope)
    resumed = await life.resume(scope, paused.checkpoint_id)
    assert [f.hook for f in resumed.hook_failures] == [broken.__qualname__]
    assert "hook exploded" in resumed.hook_failures[0].error
    assert await memory.working(scope).get("k") == 1  # the resume itself stood
    await life.terminate(scope, "success")
    assert seen == [
        ("spawn", "spawn"),
        ("pause", paused.checkpoint_id),
        ("terminate", scope.session),
    ]


async def test_lifecycle_errors_are_raised_not_swallowed(memory: Memory) -> None:
    scope = session_scope()
    with pytest.raises(NotFound):
        await memory.lifecycle.resume(scope)
    with pytest.raises(NotFound):
        await memory.lifecycle.resume(scope, "0192e4f0-0000-7000-8000-000000000000")
    with pytest.raises(ValidationError, match="outcome"):
        await memory.lifecycle.terminate(scope, "meh")
    with pytest.raises(ValidationError, match="tokens_used"):
        await memory.lifecycle.terminate(scope, "success", tokens_used=-1)
    with pytest.raises(ValidationError, match="key"):
        await memory.lifecycle.spawn(scope, {"__reserved": 1})
    with pytest.raises(ValidationError, match="initial_state"):
        await memory.lifecycle.spawn(scope, ["not", "a", "dict"])  # type: ignore[arg-type]
    assert (await memory.working(scope).get_stats()).has_task_state is False


async def test_terminate_without_consolidation_or_cleanup(memory: Memory) -> None:
    scope = session_scope()
    await memory.lifecycle.spawn(scope, {"k": 1})
    kept = await memory.lifecycle.terminate(scope, "partial", consolidate=False, cleanup=False)
    assert (kept.episode, kept.cleaned_up) == (None, False)
    assert await memory.working(scope).get("k") == 1
    assert len(await memory.lifecycle.list_checkpoints(scope)) == 0
    last = await memory.lifecycle.terminate(scope, "partial", task_description="wrap up")
    assert last.episode is not None
    assert last.episode.description == "wrap up"
    assert "No task state" not in last.episode.context_summary


async def test_a_bad_task_description_names_it_and_changes_nothing(memory: Memory) -> None:
    scope = session_scope()
    await memory.lifecycle.spawn(scope, {"goal": "ship"}, total_steps=2)
    before = await memory.working(scope).get_task_state()
    with pytest.raises(ValidationError, match="NUL") as raised:
        await memory.lifecycle.terminate(scope, "success", task_description="a\x00b", cleanup=False)
    assert raised.value.field == "task_description"
    assert await memory.working(scope).get_task_state() == before  # nothing half-written
    with pytest.raises(ValidationError) as raised:
        await memory.lifecycle.terminate(scope, "success", lessons_learned=["ok", "x\x00"])
    assert raised.value.field.startswith("lessons_learned")
    assert await memory.working(scope).get_task_state() == before
