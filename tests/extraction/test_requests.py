"""Standing requests about the assistant's answers, and what the user dislikes or works on."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import AT, said


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("Please keep your answers short.", "ana prefers short answers."),
        ("Please make your explanations simple.", "ana prefers simple answers."),
        ("Keep answers under 100 words, please.", "ana prefers answers under 100 words."),
        ("From now on, answer in Spanish.", "ana prefers answers in Spanish."),
        ("Please answer in Spanish from now on.", "ana prefers answers in Spanish."),
        ("Please always answer in bullet points.", "ana prefers answers in bullet points."),
        ("Thanks! Please don't use emojis.", "ana prefers no emojis."),
        ("Keep your answers short and use bullet points.", "ana prefers short answers."),
        ("Use metric units please.", "ana prefers metric units."),
        ("Please use imperial units.", "ana prefers imperial units."),
    ],
)
def test_a_standing_request_about_answers_is_a_preference(text: str, statement: str) -> None:
    assert said(text) == [statement]


@pytest.mark.parametrize(
    "text",
    [
        "Please answer in Spanish.",  # this once, perhaps
        "Please keep the receipts.",
        "Don't use the car today.",
        "Please use the other door.",
        "Can you keep your answers short?",  # asked, not stated
    ],
)
def test_a_request_for_this_once_or_about_something_else_is_not_read(text: str) -> None:
    assert said(text) == []


def test_the_assistant_asking_the_same_is_not_the_users_preference() -> None:
    assert said("Please keep your answers short.", role="assistant") == []


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I'm not a fan of horror movies.", "ana dislikes horror movies."),
        ("I'm not really a fan of jazz.", "ana dislikes jazz."),
        ("I'm not a big fan of the cold.", "ana dislikes the cold."),
        (
            "I'm working on a migration to Kubernetes.",
            "ana is working on a migration to Kubernetes.",
        ),
        ("I'm actually working on a quilt right now.", "ana is working on a quilt."),
        ("I'm reading a book of poetry right now.", "ana is reading a book of poetry."),
    ],
)
def test_what_one_is_no_fan_of_or_working_on(text: str, statement: str) -> None:
    assert said(text) == [statement]


@pytest.mark.parametrize(
    "text",
    ["I'm not a big fan of his.", "I'm actually working on one right now.", "I'm working on it."],
)
def test_a_pronoun_names_nothing_one_dislikes_or_works_on(text: str) -> None:
    assert said(text) == []


@pytest.fixture
async def memory(tmp_path: object) -> AsyncIterator[Memory]:
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as m:
        yield m


async def test_a_request_made_once_shapes_every_later_context(memory: Memory) -> None:
    user = Scope(tenant="t", user="ana")
    turns = [
        ("user", "Can you help me plan a trip to Lisbon? Please keep your answers short."),
        ("assistant", "Sure! When do you want to go, and for how long?"),
        ("user", "In May, for a week. I love seafood and old trams."),
    ]
    await memory.ingest(
        [{"role": r, "content": c, "timestamp": AT} for r, c in turns], user.with_session("a")
    )
    context = await memory.assemble("What should I cook tonight?", user.with_session("b"), 300)
    facts = [i.text for i in context.report.included if i.tier == "facts"]
    assert "ana prefers short answers." in facts, facts
