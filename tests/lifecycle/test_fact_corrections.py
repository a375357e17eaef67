"""A changed preference through the facade, on SQLite and on Redis + PostgreSQL: only the new
value is current and in the assembled context, both stay in history with their intervals."""

from datetime import UTC, datetime

import pytest

from sedimem.config import FactSettings, Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Fact

T1, T2 = datetime(2025, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, tzinfo=UTC)
ANA = Scope(tenant="t", user="ana")


def seat(where: str, since: datetime, **kwargs: object) -> Fact:
    return Fact(
        scope=ANA,
        statement=f"Ana prefers the {where} seat on trains",
        subject="Ana",
        predicate="prefers_seat",
        object=where,
        valid_from=since,
        **kwargs,  # type: ignore[arg-type]
    )


async def assert_only_aisle(memory: Memory) -> None:
    current = await memory.facts.current("Ana", "prefers_seat", scope=ANA)
    assert [f.object for f in current] == ["aisle"]
    context = await memory.assemble("which seat does Ana prefer", ANA, 400)
    assert "aisle seat" in context.text
    assert "window seat" not in context.text
    history = await memory.facts.history("Ana", "prefers_seat", scope=ANA)
    assert [(f.object, f.valid_from, f.valid_to) for f in history] == [
        ("window", T1, T2),
        ("aisle", T2, None),
    ]


@pytest.mark.parametrize("how", ["fact", "tenant"])
async def test_a_changed_preference_leaves_only_the_new_value(memory: Memory, how: str) -> None:
    if how == "tenant":
        await memory.facts.declare(["prefers_seat"], scope=Scope(tenant="t"))
    await memory.facts.learn(seat("window", T1))
    cardinality = {"cardinality": "one"} if how == "fact" else {}
    learned = await memory.facts.learn(seat("aisle", T2, **cardinality))
    assert learned.action == "superseded"
    await assert_only_aisle(memory)


async def test_without_a_declaration_both_stay_and_the_conflict_is_reported(
    memory: Memory,
) -> None:
    window = await memory.facts.learn(seat("window", T1))
    aisle = await memory.facts.learn(seat("aisle", T2))
    assert [f.id for f in aisle.possible_conflicts] == [window.fact.id]
    context = await memory.assemble("which seat does Ana prefer", ANA, 400)
    assert "aisle seat" in context.text
    assert "window seat" in context.text
    # the agent settles it: invalidating the old value leaves the new one alone in context
    await memory.facts.invalidate(window.fact.id, scope=ANA)
    settled = await memory.assemble("which seat does Ana prefer", ANA, 400)
    assert "window seat" not in settled.text


async def test_the_setting_makes_a_predicate_single_valued(memory_urls: tuple[str, str]) -> None:
    working, store = memory_urls
    settings = Settings(facts=FactSettings(extra_single_valued=frozenset({"prefers_seat"})))
    async with await Memory.open(
        working=working, store=store, embedder=HashEmbedder(64), settings=settings
    ) as memory:
        assert memory.facts.is_single_valued("prefers_seat")
        assert memory.facts.is_single_valued("lives_in")
        await memory.facts.learn(seat("window", T1))
        assert (await memory.facts.learn(seat("aisle", T2))).action == "superseded"
        await assert_only_aisle(memory)
