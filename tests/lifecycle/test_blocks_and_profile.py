"""Pinned blocks and the profile, on SQLite and on Redis + PostgreSQL (the facade fixtures)."""

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from sedimem.blocks import Blocks
from sedimem.errors import LimitExceeded, NotFound, ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Fact
from sedimem.types.blocks import MAX_BLOCK_CHARS, Block


async def test_blocks_are_ordered_owned_and_durable(memory: Memory) -> None:
    ana = Scope(tenant="t", project="p", user="ana", session="s1")
    blocks = memory.blocks(ana)
    await blocks.update("persona", "You are a careful travel agent.", position=0)
    await blocks.update("user profile", "Ana prefers trains.", position=1)
    await blocks.append("user profile", "Ana is vegetarian.")
    await blocks.update("instructions", "Answer briefly.", position=2)
    listed = await memory.blocks(ana.with_session("s2")).list()  # sessions share the owner's
    assert [b.name for b in listed] == ["persona", "user profile", "instructions"]
    assert listed[1].content == "Ana prefers trains.\nAna is vegetarian."
    assert (await blocks.get("USER PROFILE")).position == 1
    # another user, and another tenant, see none of them
    assert await memory.blocks(Scope(tenant="t", project="p", user="bob")).list() == []
    assert await memory.blocks(Scope(tenant="other", project="p", user="ana")).list() == []
    # project-wide blocks are seen by everyone in the project, after their own
    await memory.blocks(Scope(tenant="t", project="p")).update(
        "house rules", "Be kind.", position=5
    )
    names = [b.name for b in await blocks.list()]
    assert names == ["persona", "user profile", "instructions", "house rules"]
    assert await blocks.delete("persona") is True
    assert await blocks.delete("persona") is False
    with pytest.raises(NotFound):
        await blocks.get("persona")


async def test_concurrent_appends_all_land(memory: Memory) -> None:
    blocks = memory.blocks(Scope(tenant="t", agent="bot"))
    await asyncio.gather(*(blocks.append("journal", f"line {i}") for i in range(20)))
    lines = (await blocks.get("journal")).content.split("\n")
    assert sorted(lines) == sorted(f"line {i}" for i in range(20))


async def test_block_limits(memory: Memory) -> None:
    blocks = memory.blocks(Scope(tenant="t", user="ana"))
    with pytest.raises(LimitExceeded, match="content"):
        await blocks.update("big", "x" * (MAX_BLOCK_CHARS + 1))
    await blocks.update("near", "x" * (MAX_BLOCK_CHARS - 1))
    with pytest.raises(LimitExceeded, match="text"):
        await blocks.append("near", "yy")
    with pytest.raises(ValidationError) as info:
        await blocks.update("", "no name")
    assert info.value.field == "name"
    with pytest.raises(ValidationError, match="content"):
        await blocks.update("n", 5)  # type: ignore[arg-type]
    assert [b.name for b in await blocks.list()] == ["near"]


@pytest.mark.parametrize(
    ("field", "edit"),
    [
        ("content", lambda b: b.update("n", "a\x00b")),
        ("text", lambda b: b.append("n", "a\x00b")),
        ("separator", lambda b: b.append("n", "ab", separator="\x00")),
        ("text", lambda b: b.append("near", "a\x00b")),  # an existing block too
    ],
)
async def test_nul_in_a_block_is_refused_naming_the_field(
    memory: Memory, field: str, edit: Callable[[Blocks], Awaitable[Block]]
) -> None:
    """The same refusal on SQLite (which could store it) and PostgreSQL (which cannot)."""
    blocks = memory.blocks(Scope(tenant="t", user="ana"))
    await blocks.update("near", "kept")
    with pytest.raises(ValidationError) as info:
        await edit(blocks)
    assert info.value.field == field
    assert "NUL" in str(info.value)
    assert [(b.name, b.content) for b in await blocks.list()] == [("near", "kept")]


async def test_profile_counts_and_samples(memory: Memory) -> None:
    ana = Scope(tenant="t", user="ana")
    for i, session in enumerate(["s1", "s2", "s2"]):
        await memory.episodes.record(
            Episode(scope=ana.model_copy(update={"session": session}), description=f"trip {i}")
        )
    await memory.facts.learn(Fact(scope=ana, statement="Ana likes trains"))
    await memory.blocks(ana).update("persona", "hi")
    profile = await memory.profile(ana, sample=5)
    assert (profile.episodes, profile.facts, profile.current_facts, profile.blocks) == (3, 1, 1, 1)
    assert profile.recent_sessions == ["s2", "s1"]
    assert profile.first_seen is not None
    assert profile.last_seen is not None
    assert profile.first_seen <= profile.last_seen
    assert [f.statement for f in profile.facts_sample] == ["Ana likes trains"]
    empty = await memory.profile(Scope(tenant="t", user="nobody"))
    assert (empty.episodes, empty.first_seen, empty.recent_sessions) == (0, None, [])
    with pytest.raises(ValidationError, match="sample"):
        await memory.profile(ana, sample=500)
