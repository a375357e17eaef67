"""Ingesting chat turns on every long-term backend: episodes once per message, facts by the
cardinality rules, endings, background jobs and bad input."""

import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from sedimem.conversation import Conversations
from sedimem.embed import HashEmbedder
from sedimem.errors import NotFound, SedimemError, ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.conversation import MAX_MESSAGE_CHARS, MAX_MESSAGES, Message
from sedimem.types.longterm import Episode, Fact

T0 = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
async def memory(memory_urls: tuple[str, str]) -> AsyncIterator[Memory]:
    working, store = memory_urls
    async with await Memory.open(working=working, store=store, embedder=HashEmbedder(64)) as m:
        yield m


@pytest.fixture
def scope() -> Scope:
    return Scope(tenant=f"t-{uuid.uuid4().hex[:8]}", user="ana", session="s1")


def turn(content: str, minute: int, role: str = "user", **extra: str) -> dict[str, object]:
    return {
        "role": role,
        "content": content,
        "name": "Ana" if role == "user" else "Bot",
        "timestamp": (T0 + timedelta(minutes=minute)).isoformat(),
        **extra,
    }


async def test_turns_become_episodes_and_facts_once(memory: Memory, scope: Scope) -> None:
    messages = [
        turn("I live in Oslo.", 0),
        turn("Noted: you live in Oslo. I work at Acme.", 1, "assistant"),
        turn("I eat meat.", 2),
    ]
    first = await memory.ingest(messages, scope)
    assert first.status == "done"
    assert len(first.stored) == 3
    assert first.duplicates == []
    assert len(first.inserted) >= 2
    episodes = [await memory.episodes.get(i, scope=scope) for i in first.stored]
    assert episodes[0].input_text == "I live in Oslo."
    assert episodes[0].output_text is None
    # what the assistant said is memory too
    assert episodes[1].output_text is not None
    assert episodes[1].input_text is None
    assert (await memory.facts.current("Bot", "works_at", scope=scope))[0].object == "Acme"
    assert episodes[0].metadata["role"] == "user"
    assert episodes[0].scope == scope
    before = await memory.stats(scope)

    again = await memory.ingest(messages, scope)
    assert again.stored == []
    assert sorted(again.duplicates) == sorted(first.stored)
    assert again.inserted == again.reinforced == []
    assert await memory.stats(scope) == before


async def test_new_value_supersedes_and_ending_closes(memory: Memory, scope: Scope) -> None:
    await memory.ingest([turn("I live in Oslo.", 0), turn("I eat meat.", 1)], scope)
    (oslo,) = await memory.facts.current("Ana", "lives_in", scope=scope)
    moved = await memory.ingest(
        [turn("I moved to Bergen.", 60), turn("I no longer eat meat.", 61)], scope
    )
    assert moved.superseded == [oslo.id]
    assert len(moved.ended) == 1
    (now,) = await memory.facts.current("Ana", "lives_in", scope=scope)
    assert now.object == "Bergen"
    assert await memory.facts.current("Ana", "eats", scope=scope) == []


async def test_same_turn_is_known_without_an_id(memory: Memory, scope: Scope) -> None:
    """Without an id a turn is known by role, timestamp and content; its id wins if given."""
    plain = turn("I live in Oslo.", 0)
    assert len((await memory.ingest([plain, plain], scope)).stored) == 1
    assert len((await memory.ingest([plain], scope)).duplicates) == 1
    # another session of the same owner: the same turn, the same memory
    other = scope.with_session("s2")
    assert len((await memory.ingest([plain], other)).duplicates) == 1
    with_id = await memory.ingest([{**plain, "id": "m-1"}, {**plain, "id": "m-2"}], scope)
    assert len(with_id.stored) == 2
    edited = await memory.ingest([{**plain, "content": "I live in Rome.", "id": "m-1"}], scope)
    assert edited.stored == []
    assert len(edited.duplicates) == 1
    # another user is another owner: nothing of ana's is a duplicate for bo
    bo = Scope(tenant=scope.tenant, user="bo")
    assert len((await memory.ingest([plain], bo)).stored) == 1


async def test_background_job_reports_when_done(memory: Memory, scope: Scope) -> None:
    pending = await memory.ingest([turn("I work at Acme.", 0)], scope, background=True)
    assert pending.status == "pending"
    assert pending.job_id
    assert len(pending.stored) == 1
    await memory.conversations.wait()
    done = memory.conversations.job(pending.job_id, tenant=scope.tenant)
    assert done.status == "done"
    assert len(done.inserted) == 1
    assert done.job_id == pending.job_id
    with pytest.raises(NotFound):
        memory.conversations.job(pending.job_id, tenant="another")


@pytest.mark.parametrize(
    ("messages", "field"),
    [
        ([], "messages"),
        ([{"role": "user", "content": "hi"}] * (MAX_MESSAGES + 1), "messages"),
        ([{"role": "robot", "content": "hi"}], "messages[0].role"),
        ([{"role": "user", "content": ""}], "messages[0].content"),
        ([{"role": "user", "content": "x" * (MAX_MESSAGE_CHARS + 1)}], "messages[0].content"),
        ([{"role": "user", "content": "hi", "mood": "ok"}], "messages[0].mood"),
        ([{"role": "user", "content": "a\x00b"}], "messages[0].content"),
        ("hello", "messages"),
        (
            [
                {"role": "user", "content": "ok"},
                {
                    "role": "user",
                    "content": "hi",
                    "timestamp": datetime.now(UTC) + timedelta(hours=1),
                },
            ],
            "messages[1].timestamp",
        ),
    ],
)
async def test_bad_input_names_the_field_and_writes_nothing(
    memory: Memory, scope: Scope, messages: object, field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        await memory.ingest(messages, scope)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert (await memory.stats(scope)).episodes == 0


async def test_small_clock_drift_is_tolerated(memory: Memory, scope: Scope) -> None:
    soon = datetime.now(UTC) + timedelta(seconds=60)
    result = await memory.ingest([Message(role="tool", content="42", timestamp=soon)], scope)
    (episode,) = [await memory.episodes.get(i, scope=scope) for i in result.stored]
    assert episode.description == "tool: 42"
    assert episode.occurred_at == soon


class Failing:
    """An extractor whose model answered nothing usable."""

    async def extract(self, episode: Episode) -> list[Fact]:
        raise SedimemError("the model's reply was not valid JSON after 3 tries")


async def test_extraction_failure_is_reported_and_turns_stay(memory: Memory, scope: Scope) -> None:
    service = Conversations(memory.longterm_store, memory.embedder, memory.facts, Failing())
    result = await service.ingest([turn("I live in Oslo.", 0)], scope)
    assert result.status == "failed"
    assert "not valid JSON" in (result.error or "")
    assert len(result.stored) == 1
    assert (await memory.stats(scope)).episodes == 1
    # the facts job reads the turn again with the memory's own extractor
    await memory.consolidate(scope.tenant, jobs=["facts"])
    assert (await memory.facts.current("Ana", "lives_in", scope=scope))[0].object == "Oslo"
