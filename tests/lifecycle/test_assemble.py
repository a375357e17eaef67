"""Context assembly through the facade, on SQLite and on Redis + PostgreSQL."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sedimem.assembly import SESSION_BOOST
from sedimem.context.tokens import default_tokenizer
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode, Fact, Procedure, TaskState


async def fill(memory: Memory, scope: Scope) -> None:
    await memory.blocks(scope).update("persona", "You are a meticulous travel planner.")
    wm = memory.working(scope)
    await wm.set_task_state(TaskState(task_id="plan-oslo", total_steps=4, current_step=2))
    await wm.set("budget", {"eur": 900})
    await wm.append_scratchpad("Compared train and flight prices to Oslo.")
    await memory.procedures.record(
        Procedure(
            scope=scope.owner,
            name="book trip",
            trigger="plan and book a trip to Oslo",
            steps=["pick dates", "compare prices", "book"],
        )
    )
    await memory.facts.learn(Fact(scope=scope.owner, statement="Ana prefers trains to Oslo"))
    for i in range(30):
        await memory.episodes.record(
            Episode(scope=scope, description=f"Trip {i} to Oslo went fine; hotel number {i}.")
        )


async def test_assemble_takes_every_tier_blocks_first(memory: Memory) -> None:
    scope = Scope(tenant="t", user="ana", session="s")
    await fill(memory, scope)
    context = await memory.assemble("plan a trip to Oslo", scope, budget_tokens=400)
    assert context.tokens_used <= 400
    assert default_tokenizer().count(context.text or "") == context.tokens_used
    text = context.text or ""
    assert text.index("meticulous travel planner") < text.index("plan-oslo")
    for expected in (
        "plan-oslo",
        "eur",
        "Compared train",
        "compare prices",
        "prefers trains",
        "Trip",
    ):
        assert expected in text
    tiers = {item.tier for item in context.report.included}
    assert tiers == {"blocks", "working", "procedures", "facts", "episodes"}
    assert context.report.dropped  # 30 episodes cannot all fit in 400 tokens
    messages = await memory.assemble("Oslo", scope, budget_tokens=400, format="messages")
    assert messages.messages
    assert messages.messages[0]["role"] == "system"


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
# any UTF-8 text PostgreSQL can hold (it refuses NUL, with a ValidationError)
@given(
    budget=st.integers(min_value=1, max_value=600),
    extra=st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=300),
)
async def test_assemble_never_exceeds_the_budget(memory: Memory, budget: int, extra: str) -> None:
    scope = Scope(tenant="budget", user="ana", session="s")
    if not await memory.blocks(scope).list():
        await fill(memory, scope)
    await memory.blocks(scope).update("notes", extra)
    context = await memory.assemble("Oslo trip", scope, budget_tokens=budget)
    assert context.tokens_used <= budget
    assert default_tokenizer().count(context.text or "") <= budget


async def test_bad_assemble_arguments(memory: Memory) -> None:
    from sedimem.errors import ValidationError

    with pytest.raises(ValidationError, match="budget_tokens"):
        await memory.assemble("q", Scope(), budget_tokens=0)
    with pytest.raises(ValidationError, match="query"):
        await memory.assemble("  ", Scope(), budget_tokens=10)


async def test_the_asking_sessions_memories_get_a_small_boost(memory: Memory) -> None:
    owner = Scope(tenant="boost", user="ana", agent="planner")
    for session, city in (("s1", "Bergen"), ("s2", "Tromso"), ("s3", "Narvik")):
        await memory.facts.learn(
            Fact(scope=owner.with_session(session), statement=f"Ana took the train to {city}")
        )
    asking = owner.with_session("s2")
    raw = {h.record.id: h for h in await memory.facts.recall("train", scope=asking)}
    assert len(raw) == 3  # every session of the owner is searched
    context = await memory.assemble("train", asking, budget_tokens=400)
    facts = [item for item in context.report.included if item.tier == "facts"]
    assert len(facts) == 3
    for item in facts:
        hit = raw[item.id]
        factor = 1.0 + SESSION_BOOST if hit.record.scope.session == "s2" else 1.0
        assert item.score == pytest.approx(hit.score * factor)
    assert [item.score for item in facts] == sorted((item.score for item in facts), reverse=True)


async def test_assemble_packs_a_distinct_memory_before_near_copies(memory: Memory) -> None:
    scope = Scope(tenant="t", user="bo")
    for _ in range(4):  # the same event, recorded four times
        await memory.episodes.record(
            Episode(scope=scope, description="Deploy to production failed on the migration")
        )
    other = await memory.episodes.record(
        Episode(scope=scope, description="Production deploy failed; rolled back, paged on-call")
    )
    context = await memory.assemble("deploy to production failed", scope, budget_tokens=2000)
    episodes = [i.id for i in context.report.included if i.tier == "episodes"]
    assert episodes.index(other.id) == 1  # second: right after the best match
