"""Bad input gets a typed error naming the field, and nothing is written."""

import math
from datetime import UTC, datetime
from typing import Any

import pytest

from sedimem import LimitExceeded, NotFound, Scope, ValidationError
from sedimem.config import WorkingSettings
from sedimem.storage.working.inprocess import InProcessWorkingStore, SessionRegistry
from sedimem.types.working import TaskState
from sedimem.working.memory import WorkingMemory


@pytest.fixture
def wm() -> WorkingMemory:
    store = InProcessWorkingStore(SessionRegistry())
    settings = WorkingSettings(max_value_bytes=100, max_scratchpad_entry_bytes=20)
    return WorkingMemory(store, Scope(session="s"), settings=settings)


async def assert_untouched(wm: WorkingMemory) -> None:
    stats = await wm.get_stats()
    assert (stats.keys, stats.scratchpad_entries, stats.checkpoints) == (0, 0, 0)


@pytest.mark.parametrize(
    ("key", "value", "ttl", "field"),
    [
        ("", 1, None, "key"),
        ("k" * 257, 1, None, "key"),
        ("__task_state", 1, None, "key"),
        (7, 1, None, "key"),
        ("k", object(), None, "value"),
        ("k", {1, 2}, None, "value"),
        ("k", math.nan, None, "value"),
        ("k", {"text": "\ud800"}, None, "value"),  # a lone surrogate: not valid Unicode
        ("k", 1, 0, "ttl_seconds"),
        ("k", 1, -5, "ttl_seconds"),
        ("k", 1, "10", "ttl_seconds"),
        ("k", 1, True, "ttl_seconds"),
        ("k", 1, 10**12, "ttl_seconds"),
    ],
)
async def test_bad_set_is_refused_naming_the_field(
    wm: WorkingMemory, key: Any, value: Any, ttl: Any, field: str
) -> None:
    with pytest.raises(ValidationError) as info:
        await wm.set(key, value, ttl_seconds=ttl)
    assert info.value.field == field
    assert field in str(info.value)
    assert info.value.allowed
    await assert_untouched(wm)


async def test_256_character_key_is_accepted(wm: WorkingMemory) -> None:
    await wm.set("k" * 256, 1)
    assert await wm.get("k" * 256) == 1


async def test_value_over_the_size_limit(wm: WorkingMemory) -> None:
    with pytest.raises(LimitExceeded, match="at most 100 bytes") as info:
        await wm.set("k", "x" * 200)
    assert info.value.field == "value"
    await assert_untouched(wm)


async def test_bad_progress_is_refused_and_state_kept(wm: WorkingMemory) -> None:
    await wm.set_task_state(TaskState(task_id="t", current_step=1))
    cases: list[tuple[dict[str, Any], str]] = [
        ({"progress_percent": 101}, "progress_percent"),
        ({"progress_percent": -1}, "progress_percent"),
        ({"progress_percent": "half"}, "progress_percent"),
        ({"current_step": -1}, "current_step"),
        ({"current_step": 1.5}, "current_step"),
        ({"status": "dancing"}, "status"),
    ]
    for kwargs, field in cases:
        with pytest.raises(ValidationError) as info:
            await wm.update_task_progress(**kwargs)
        assert info.value.field == field
    state = await wm.get_task_state()
    assert state is not None
    assert state.current_step == 1
    assert state.progress_percent == 0


def test_task_state_model_refuses_out_of_range() -> None:
    with pytest.raises(ValueError, match="progress_percent"):
        TaskState(task_id="t", progress_percent=150)
    with pytest.raises(ValueError, match="current_step"):
        TaskState(task_id="t", current_step=-1)


async def test_task_state_keeps_given_start_time(wm: WorkingMemory) -> None:
    started = datetime(2025, 1, 2, tzinfo=UTC)
    await wm.set_task_state(TaskState(task_id="t", started_at=started))
    state = await wm.get_task_state()
    assert state is not None
    assert state.started_at == started


async def test_bad_scratchpad_entries(wm: WorkingMemory) -> None:
    for text, match in (("", "non-empty"), ("x" * 21, "20 bytes"), (5, "non-empty")):
        with pytest.raises(ValidationError, match=match):
            await wm.append_scratchpad(text)  # type: ignore[arg-type]
    await assert_untouched(wm)


async def test_bad_checkpoint_arguments(wm: WorkingMemory) -> None:
    with pytest.raises(ValidationError, match="description"):
        await wm.create_checkpoint("d" * 2000)
    with pytest.raises(ValidationError, match="checkpoint_id"):
        await wm.restore_checkpoint("")
    cp = await wm.create_checkpoint()
    with pytest.raises(ValidationError, match="new_session"):
        await wm.fork(cp, "s")
    with pytest.raises(ValidationError, match=r"scope\.session"):
        await wm.fork(cp, "")
    with pytest.raises(NotFound):
        await wm.restore_checkpoint("x" * 64)


def test_working_memory_needs_a_session_scope() -> None:
    store = InProcessWorkingStore(SessionRegistry())
    with pytest.raises(ValidationError, match=r"scope\.session"):
        WorkingMemory(store, Scope(tenant="t"))


async def test_context_manager_closes_only_an_owned_store() -> None:
    closed: list[bool] = []

    class Recording(InProcessWorkingStore):
        async def aclose(self) -> None:
            closed.append(True)

    async with WorkingMemory(Recording(SessionRegistry()), Scope(session="a")) as wm:
        await wm.set("k", 1)
    assert closed == []
    async with WorkingMemory(Recording(SessionRegistry()), Scope(session="a"), owns_store=True):
        pass
    assert closed == [True]


async def test_healthy_and_not_on_fallback(wm: WorkingMemory) -> None:
    assert await wm.is_healthy()
    assert wm.is_using_fallback() is False
    assert wm.store.name == "memory"


async def test_nul_is_refused_in_keys_scratchpad_and_checkpoint_descriptions(
    wm: WorkingMemory,
) -> None:
    # all of these can reach a session episode's text, which no store may hold with NUL
    with pytest.raises(ValidationError) as key:
        await wm.set("a\x00b", 1)
    with pytest.raises(ValidationError) as text:
        await wm.append_scratchpad("a\x00b")
    with pytest.raises(ValidationError) as description:
        await wm.create_checkpoint("a\x00b")
    assert [e.value.field for e in (key, text, description)] == ["key", "text", "description"]
    await assert_untouched(wm)
    # values are JSON, kept as JSON text (NUL written \u0000): they may hold it
    await wm.set("k", {"note": "a\x00b"})
    assert await wm.get("k") == {"note": "a\x00b"}
