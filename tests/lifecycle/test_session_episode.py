"""The episode a terminated session leaves: final status, described by its task, recallable
from the owner's later sessions by the goal's words (keyword and vector)."""

import uuid
from datetime import UTC, datetime

import pytest

from sedimem.lifecycle.summary import (
    MAX_SUMMARY_CHARS,
    SessionState,
    describe,
    final_task,
    summarise,
)
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Fact, Outcome, TaskState, TaskStatus
from sedimem.types.working import ScratchpadEntry


def readme_scope(session: str = "run-1") -> Scope:
    return Scope(
        tenant=f"acme-{uuid.uuid4().hex[:8]}", user="ana", agent="planner", session=session
    )


async def readme_session(memory: Memory, scope: Scope, outcome: str = "success") -> None:
    """The README's example, as written there."""
    await memory.lifecycle.spawn(scope, {"goal": "plan Ana's trip to Oslo"})
    wm = memory.working(scope)
    await wm.append_scratchpad("Trains are cheaper than flights this week.")
    await memory.facts.learn(
        Fact(
            scope=scope,
            statement="Ana prefers trains",
            subject="Ana",
            predicate="prefers",
            object="trains",
        )
    )
    await memory.blocks(scope).update("persona", "You are a careful travel planner.")
    checkpoint = (await memory.lifecycle.pause(scope)).checkpoint_id
    await memory.lifecycle.resume(scope, checkpoint)
    await memory.lifecycle.terminate(scope, outcome, lessons_learned=["book early"])


@pytest.mark.parametrize("outcome", ["success", "failure", "partial"])
async def test_the_readme_episode_is_described_by_its_goal_and_never_in_progress(
    memory: Memory, outcome: str
) -> None:
    scope = readme_scope()
    await readme_session(memory, scope, outcome)
    (episode,) = (await memory.episodes.list(scope.owner)).items
    text = episode.search_text()
    assert "in progress" not in text
    assert episode.description == "plan Ana's trip to Oslo"
    assert "run-1" not in episode.description
    assert "goal: plan Ana's trip to Oslo" in episode.context_summary
    assert "Trains are cheaper than flights this week." in episode.context_summary
    phrase = {"success": "completed", "failure": "failed", "partial": "stopped unfinished"}
    assert f"Task run-1 {phrase[outcome]}" in episode.context_summary
    if outcome == "success":
        assert "(100% done)" in episode.context_summary


async def test_the_readme_episode_is_recalled_from_another_session_by_keywords(
    memory: Memory,
) -> None:
    scope = readme_scope()
    await readme_session(memory, scope)
    later = scope.with_session("run-2")
    hits = await memory.episodes.recall("Oslo trip", scope=later)
    assert [h.record.description for h in hits] == ["plan Ana's trip to Oslo"]
    assert hits[0].explain.keyword is not None
    assert hits[0].explain.keyword > 0
    assert hits[0].explain.vector is not None
    # the same from the owner and from the README's user-wide scope
    for scope_ in (scope.owner, Scope(tenant=scope.tenant, user="ana")):
        assert [h.record.id for h in await memory.episodes.recall("Oslo trip", scope=scope_)] == [
            hits[0].record.id
        ]
    # another user of the tenant sees none of it
    assert (
        await memory.episodes.recall("Oslo trip", scope=later.model_copy(update={"user": "bo"}))
        == []
    )
    # the second session's assembled context has the fact, the episode and its lesson
    await memory.lifecycle.spawn(later, {"goal": "book the Oslo trip"})
    context = await memory.assemble("book the Oslo trip", later, budget_tokens=500)
    assert "Ana prefers trains" in context.text
    assert "plan Ana's trip to Oslo" in context.text
    assert "book early" in context.text
    assert "You are a careful travel planner." in context.text


async def test_terminate_without_cleanup_leaves_the_final_status(memory: Memory) -> None:
    scope = readme_scope()
    await memory.lifecycle.spawn(scope, {"task": {"city": "Oslo", "days": 3}}, total_steps=4)
    wm = memory.working(scope)
    await wm.update_task_progress(current_step=2, progress_percent=50)
    done = await memory.lifecycle.terminate(scope, "failure", cleanup=False)
    state = await wm.get_task_state()
    assert state is not None
    assert (state.status, state.progress_percent) == (TaskStatus.FAILED, 50.0)
    assert done.episode is not None
    # a non-text value is described as compact JSON
    assert done.episode.description == '{"city":"Oslo","days":3}'
    assert "Task run-1 failed at step 2 of 4 (50% done)." in done.episode.context_summary
    again = await memory.lifecycle.terminate(scope, "success", cleanup=False)
    assert again.already_terminated
    assert (await wm.get_task_state()).status is TaskStatus.COMPLETED  # type: ignore[union-attr]


def _state(
    task: TaskState | None = None, values: dict[str, object] | None = None, notes: int = 0
) -> SessionState:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    pad = [ScratchpadEntry(id=str(i), text=f"note {i}", created_at=when) for i in range(notes)]
    return SessionState(task, pad, dict(values or {}))


def test_the_description_comes_from_the_task_never_the_session() -> None:
    scope = Scope(session="s-1")
    own = TaskState(task_id="s-1")
    assert describe(scope, _state(own), "  explicit  ") == "explicit"
    assert describe(scope, _state(own, {"task": "t", "goal": "g"})) == "g"
    assert describe(scope, _state(own, {"description": "d", "task": " "})) == "d"
    assert describe(scope, _state(TaskState(task_id="report-7"))) == "Task report-7"
    assert describe(scope, _state(own, notes=2)) == "note 0"  # the task id is the session's
    assert describe(scope, _state(own)) == "A session with no stated task"
    assert describe(scope, _state(None, {"goal": "x" * 5000})).endswith("…")


def test_the_summary_is_bounded_and_keeps_first_and_last_notes() -> None:
    values = {f"k{i:03}": "word " * 200 for i in range(50)}
    text = summarise(TaskState(task_id="t", current_step=3), _state(notes=30).scratchpad, values)
    assert len(text) <= MAX_SUMMARY_CHARS
    assert "Task t pending at step 3 (0% done)." in text
    assert "Scratchpad: 30 notes, first 'note 0', last 'note 29'." in text
    assert "k000: word" in text
    assert "more." in text  # the values that did not fit are counted, not dropped silently
    assert summarise(None, [], {}) == "No task state was recorded. Scratchpad: empty."
    one = summarise(None, _state(notes=1).scratchpad, {"n": [1, 2]})
    assert (
        one == "No task state was recorded. Working values: n: [1,2]. Scratchpad: 1 note: 'note 0'."
    )


def test_outcome_sets_the_final_status() -> None:
    task = TaskState(task_id="t", status=TaskStatus.IN_PROGRESS, progress_percent=40)
    assert final_task(None, Outcome.SUCCESS) is None
    done = final_task(task, Outcome.SUCCESS)
    assert done is not None
    assert (done.status, done.progress_percent) == (TaskStatus.COMPLETED, 100)
    failed = final_task(task, Outcome.FAILURE)
    assert failed is not None
    assert (failed.status, failed.progress_percent) == (
        TaskStatus.FAILED,
        40,
    )
    partial = final_task(task, Outcome.PARTIAL)
    assert partial is not None
    assert partial.status is TaskStatus.CANCELLED


async def test_a_third_session_sees_only_the_superseding_value(memory: Memory) -> None:
    scope = readme_scope()
    await readme_session(memory, scope)
    second = scope.with_session("run-2")
    await memory.facts.learn(
        Fact(
            scope=second,
            statement="Ana prefers planes",
            subject="Ana",
            predicate="prefers",
            object="planes",
            cardinality="one",  # replaces the earlier preference
        )
    )
    third = scope.with_session("run-3")
    context = await memory.assemble("how does Ana prefer to travel", third, budget_tokens=500)
    assert "Ana prefers planes" in context.text
    assert "Ana prefers trains" not in context.text
    history = await memory.facts.history("Ana", "prefers", scope=third)
    assert [f.object for f in history] == ["trains", "planes"]
    assert history[0].valid_to == history[1].valid_from
