"""Ingesting chat turns on every long-term backend: episodes once per message, facts by the
cardinality rules, endings, background jobs and bad input."""

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import pytest

from sedimem.access import Access
from sedimem.consolidation import OpenAIChatExtractor
from sedimem.conversation import Conversations
from sedimem.embed import HashEmbedder
from sedimem.errors import NotFound, ValidationError
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.testing.llm_server import ScriptedLLMServer
from sedimem.types import Episode, Fact
from sedimem.types.conversation import MAX_MESSAGE_CHARS, MAX_MESSAGES, Message
from sedimem.types.longterm import Outcome
from tests.extraction.dev_chats import CHATS as DEV_CHATS
from tests.extraction.dev_chats import Chat

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
    assert first.usage is None  # the rule extractor calls no model
    assert len(first.stored) == 3
    assert first.duplicates == []
    assert len(first.inserted) >= 2
    episodes = [await memory.episodes.get(i, scope=scope) for i in first.stored]
    assert episodes[0].input_text == "I live in Oslo."
    assert episodes[0].output_text is None
    # what the assistant said is memory too
    assert episodes[1].output_text is not None
    assert episodes[1].input_text is None
    # ... but the assistant's first person is not the user's memory, nor anyone's fact
    assert await memory.facts.current("Bot", "works_at", scope=scope) == []
    assert await memory.facts.current("Ana", "works_at", scope=scope) == []
    assert episodes[0].metadata["role"] == "user"
    # a chat turn is no attempt at anything: it neither succeeds nor fails
    assert {e.outcome for e in episodes} == {Outcome.NONE}
    assert episodes[0].scope == scope
    before = await memory.stats(scope)

    again = await memory.ingest(messages, scope)
    assert again.stored == []
    assert sorted(again.duplicates) == sorted(first.stored)
    assert again.inserted == again.reinforced == []
    assert await memory.stats(scope) == before


def bare(role: str, content: str, minute: int) -> dict[str, object]:
    """A turn as agents send it: role and content, no name."""
    return {
        "role": role,
        "content": content,
        "timestamp": (T0 + timedelta(minutes=minute)).isoformat(),
    }


async def test_unnamed_turns_are_about_the_scope_user(memory: Memory, scope: Scope) -> None:
    result = await memory.ingest(
        [
            bare("user", "I live in Leeds and I'm allergic to penicillin.", 0),
            bare("assistant", "Noted! How are you settling in? I love Leeds, it is lovely.", 1),
            bare("user", "I prefer tea. I also prefer quiet cafés.", 2),
            bare("user", "Please book a table for two at Luigi's on Friday.", 3),
            bare("assistant", "I've booked your table for two at Luigi's on Friday.", 4),
        ],
        scope,
    )
    assert result.status == "done"
    # first person in a user turn is the scope's user (its id), never the role word
    assert [f.object for f in await memory.facts.current("ana", "lives_in", scope=scope)] == [
        "Leeds"
    ]
    assert await memory.facts.current("user", "lives_in", scope=scope) == []
    allergies = await memory.facts.current("ana", "allergic_to", scope=scope)
    assert [f.object for f in allergies] == ["penicillin"]
    # prefers accumulates: the second preference does not end the first
    prefers = await memory.facts.current("ana", "prefers", scope=scope)
    assert sorted(f.object or "" for f in prefers) == ["quiet cafés", "tea"]
    # the assistant's record of what it did for the user is the user's; nothing else it said
    (booking,) = await memory.facts.current("ana", "has_booking", scope=scope)
    assert "Luigi's" in (booking.object or "")
    learned = [await memory.facts.get(i, scope=scope) for i in result.inserted]
    assert len(learned) == 5
    assert not any("settling" in f.statement or "?" in f.statement for f in learned)
    assert {f.subject for f in learned} == {"ana"}


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
    await memory.ingest([turn("I'm vegetarian.", 120)], scope)
    assert [f.object for f in await memory.facts.current("Ana", "diet", scope=scope)] == [
        "vegetarian"
    ]
    quit = await memory.ingest([turn("I'm no longer vegetarian.", 180)], scope)
    assert len(quit.ended) == 1
    assert await memory.facts.current("Ana", "diet", scope=scope) == []


async def test_stopping_a_habit_ends_what_was_told_of_it(memory: Memory, scope: Scope) -> None:
    told = await memory.ingest(
        [turn("I play tennis every Sunday.", 0), turn("I play the guitar in a band.", 1)], scope
    )
    assert len(told.inserted) == 2
    stopped = await memory.ingest(
        [turn("I stopped playing tennis and I no longer play the guitar.", 60)], scope
    )
    assert len(stopped.ended) == 2
    assert await memory.facts.current("Ana", "habit", scope=scope) == []
    assert await memory.facts.current("Ana", "plays", scope=scope) == []
    context = await memory.assemble("Do I play tennis?", scope, 300)
    said = next(line for line in (context.text or "").splitlines() if "every Sunday" in line)
    assert "earlier" in said


@pytest.mark.parametrize(
    ("before", "after", "predicate", "now"),
    [
        ("I'm 34.", "Actually, I'm 35, not 34.", "age", "35"),
        ("I live in Lisbon.", "Correction: I live in Porto, not Lisbon.", "lives_in", "Porto"),
        ("My budget for the trip is 2000 euros.", "We raised the budget to 3000 euros.",
         "budget", "3000 euros"),
        ("I work at Google.", "I left Google and joined Stripe last month.", "works_at",
         "Stripe"),
        ("I'm vegetarian.", "I've gone vegan since last week.", "diet", "vegan"),
        ("My favorite color is blue.", "These days my favorite color is green.",
         "favorite_color", "green"),
        ("I have two cats.", "We got another cat, so now I have three cats.",
         "number_of_cats", "3"),
        ("I work at Acme.", "I changed jobs, I'm at Spotify now.", "works_at", "Spotify"),
        ("I prefer iPhone.", "I switched from iPhone to Android.", "prefers", "Android"),
        ("I have a brother.", "I have two brothers and a sister.", "number_of_brothers", "2"),
        ("I'm 34.", "I turned 35 last week.", "age", "35"),
        ("I'm 29.", "I just celebrated my 30th birthday!", "age", "30"),
        ("Our budget is 5000 dollars.", "And we raised the trip budget to 6500 dollars.",
         "budget", "6500 dollars"),
        ("I weigh 80 kg.", "I'm down to 74 kg now.", "weight", "74 kg"),
        ("My favorite band is Coldplay.", "Honestly, Radiohead is my favorite band now.",
         "favorite_band", "Radiohead"),
        ("I have two kids.", "We just had our third baby!", "number_of_children", "3"),
        ("I work as a teacher.", "I quit teaching and now I'm a software developer.",
         "works_as", "software developer"),
        ("I play the guitar in a band.", "I no longer play the guitar.", "plays", None),
        ("I drive a Civic.", "I sold my Civic and bought a Tesla.", "drives", "a Tesla"),
        ("I drive a Civic to work.", "I sold my Civic.", "drives", None),
        ("I drive a 2015 Honda Civic to work.", "I sold my Honda Civic.", "drives", None),
        ("I drive a Honda Civic to work.", "Also I sold my Civic and bought a Tesla.",
         "drives", "a Tesla"),
        ("My cat Luna keeps me company.", "Sad news: Luna passed away yesterday.", "has_pet",
         None),
        ("I drive a Civic to work.", "I sold my Civic and bought a Tesla.", "drives",
         "a Tesla"),
        ("I play chess with my dad.", "I no longer play chess.", "plays", None),
        ("I'm learning Spanish.", "I gave up on Spanish.", "learning", None),
        ("I'm learning Spanish.", "I stopped learning Spanish.", "learning", None),
        ("I play tennis every Sunday.", "I quit tennis, my knee can't take it.", "habit",
         None),
        ("I'm a student at NYU.", "I graduated from NYU yesterday.", "works_as", None),
        ("I'm a student at NYU.", "I graduated from NYU yesterday.", "works_at", None),
        ("My cat Luna sleeps all day.", "Luna passed away.", "has_pet", None),
        ("I have a dog named Rex. My cat Luna is shy.", "Sadly, Luna died last night.",
         "has_pet", "dog named Rex"),
    ],
)  # fmt: skip
async def test_a_value_told_again_in_other_words_replaces_the_old_one(
    memory: Memory, scope: Scope, before: str, after: str, predicate: str, now: str | None
) -> None:
    await memory.ingest([turn(before, 0)], scope)
    await memory.ingest([turn(after, 3 * 24 * 60)], scope.with_session("s2"))
    current = [f.object for f in await memory.facts.current("Ana", predicate, scope=scope)]
    assert current == ([] if now is None else [now])


async def test_a_pet_that_died_is_no_longer_the_users(memory: Memory, scope: Scope) -> None:
    await memory.ingest([turn("We adopted a dog named Rex and a cat named Tom.", 0)], scope)
    pets = await memory.facts.current("Ana", "has_pet", scope=scope)
    assert sorted(f.object or "" for f in pets) == ["cat named Tom", "dog named Rex"]
    died = await memory.ingest([turn("My dog Rex passed away last night.", 3600)], scope)
    assert len(died.ended) == 1
    pets = await memory.facts.current("Ana", "has_pet", scope=scope)
    assert [f.object for f in pets] == ["cat named Tom"]  # only the one that died ends


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
        ([{"role": "robot", "content": "hi"}], "messages.0.role"),
        ([{"role": "user", "content": ""}], "messages.0.content"),
        ([{"role": "user", "content": "x" * (MAX_MESSAGE_CHARS + 1)}], "messages.0.content"),
        ([{"role": "user", "content": "hi", "mood": "ok"}], "messages.0.mood"),
        ([{"role": "user", "content": "a\x00b"}], "messages.0.content"),
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
            "messages.1.timestamp",
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


async def test_llm_extractor_facts_and_a_reply_that_is_not_json(
    memory: Memory, scope: Scope, llm_server: ScriptedLLMServer
) -> None:
    """The configured extractor reads the turns: a good reply becomes facts; a reply that
    is not JSON after its retry is reported, the turns stay filed, and the facts job (with
    the memory's own extractor) reads them later."""
    lisbon = {"statement": "Ana lives in Lisbon.", "subject": "Ana", "predicate": "lives_in",
              "object": "Lisbon", "confidence": 0.9}  # fmt: skip
    llm_server.script_chat(
        {"content": json.dumps({"facts": [lisbon]})},
        {"content": "not json {"},
        {"content": '{"facts": [{"statement": "Ana lives in Lis'},
    )
    async with OpenAIChatExtractor(
        llm_server.base_url, "m", retry_wait=0, invalid_retries=1
    ) as llm:
        service = Conversations(memory.longterm_store, memory.embedder, memory.facts, llm)
        good = await service.ingest([turn("Guess where I live now!", 0)], scope)
        assert good.status == "done"
        assert len(good.inserted) == 1
        failed = await service.ingest([turn("I live in Oslo.", 5)], scope)
    # each ingest reports its own share of the model's calls and tokens
    assert good.usage is not None
    assert (good.usage.requests, good.usage.invalid_replies) == (1, 0)
    assert good.usage.prompt_tokens > 0
    assert good.usage.completion_tokens > 0
    assert failed.usage is not None
    assert (failed.usage.requests, failed.usage.invalid_replies) == (2, 2)
    assert failed.status == "failed"
    assert "JSON" in (failed.error or "")
    assert len(failed.stored) == 1
    assert (await memory.stats(scope)).episodes == 2
    await memory.consolidate(Access.local(scope.tenant), jobs=["facts"])
    (now,) = await memory.facts.current("Ana", "lives_in", scope=scope)
    assert now.object == "Oslo"


async def test_a_note_is_filed_once_and_read_for_facts(memory: Memory, scope: Scope) -> None:
    first = await memory.remember("Ana works at Acme.", scope)
    (note,) = first.stored
    assert (await memory.episodes.get(note, scope=scope)).task_type == "note"
    assert len(first.inserted) == 1
    again = await memory.remember("Ana works at Acme.", scope.model_copy(update={"session": "s2"}))
    assert (again.stored, again.duplicates, again.inserted) == ([], [note], [])
    elsewhere = await memory.remember("Ana works at Acme.", Scope(tenant=scope.tenant, user="bo"))
    assert len(elsewhere.stored) == 1  # another owner's note is its own
    for bad, problem in (("", "at least 1 character"), ("a\x00b", "NUL")):
        with pytest.raises(ValidationError, match=problem) as raised:
            await memory.remember(bad, scope)
        assert raised.value.field == "text"  # the argument the caller gave, not the record's


async def test_kind_of_names_the_kind_of_an_id_within_the_tenant(
    memory: Memory, scope: Scope
) -> None:
    result = await memory.remember("Ana works at Acme.", scope)
    assert await memory.kind_of(result.stored[0], scope) == "episode"
    assert await memory.kind_of(result.inserted[0], scope) == "fact"
    for missing, where in (("nope", scope), (result.stored[0], Scope(tenant="other"))):
        with pytest.raises(NotFound, match="no episode, fact or procedure"):
            await memory.kind_of(missing, where)
    with pytest.raises(ValidationError, match="id"):
        await memory.kind_of("a\x00b", scope)


class _BrokenExtractor:
    """A custom extractor with a bug: it raises what is not a SedimemError."""

    async def extract(self, episode: Episode) -> list[Fact]:
        raise RuntimeError(f"cannot read {episode.id}")


async def test_a_background_job_that_meets_an_unexpected_error_is_failed_not_running(
    memory_urls: tuple[str, str], scope: Scope
) -> None:
    working, store = memory_urls
    async with await Memory.open(
        working=working, store=store, embedder=HashEmbedder(64), extractor=_BrokenExtractor()
    ) as memory:
        pending = await memory.ingest([turn("I work at Acme.", 0)], scope, background=True)
        assert pending.job_id is not None
        await memory.conversations.wait()
        failed = memory.conversations.job(pending.job_id, tenant=scope.tenant)
        assert failed.status == "failed"
        assert failed.error is not None
        assert failed.error.startswith("RuntimeError: cannot read")
        assert failed.finished_at is not None
        assert failed.stored == pending.stored  # the turns stay filed


class _StuckExtractor:
    """An extractor waiting on a model that never answers."""

    async def extract(self, episode: Episode) -> list[Fact]:
        await asyncio.Event().wait()
        return []


async def test_a_background_job_cancelled_at_shutdown_is_failed_not_running(
    memory_urls: tuple[str, str], scope: Scope
) -> None:
    working, store = memory_urls
    memory = await Memory.open(
        working=working, store=store, embedder=HashEmbedder(64), extractor=_StuckExtractor()
    )
    pending = await memory.ingest([turn("I work at Acme.", 0)], scope, background=True)
    assert pending.job_id is not None
    await memory.aclose()  # before the job started or while it ran: either way, ended
    ended = memory.conversations.job(pending.job_id, tenant=scope.tenant)
    assert ended.status == "failed"
    assert ended.error == "CancelledError"


@pytest.mark.parametrize(
    "chat", [c for c in DEV_CHATS if c.current], ids=lambda c: "-".join(sorted(c.current))
)
async def test_the_development_chats_keep_each_changed_value_current(
    memory: Memory, scope: Scope, chat: Chat
) -> None:
    """The development chats name the value a reader keeps after a change (a move, a new
    job): handed over as agents send them, a turn a minute, each is the current one, and
    only it ("I live in Munich", then "I moved to Hamburg last week": Hamburg, though the
    move is dated before the turn that named Munich)."""
    turns = [bare(role, text, minute) for minute, (role, text) in enumerate(chat.turns)]
    assert (await memory.ingest(turns, scope)).status == "done"
    for predicate, value in chat.current.items():
        current = await memory.facts.current("ana", predicate, scope=scope)
        assert [f.object for f in current] == [value], predicate
