"""Chat as people type it: lower-case "i", apostrophes left out, fillers, lower-case names."""

from __future__ import annotations

import pytest

from sedimem.extraction.casual import as_written
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import AT, said


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("im a nurse", "ana works as a nurse."),
        ("i live in leeds", "ana lives in leeds."),
        ("im vegan btw", "ana is vegan."),
        ("i have 2 kids", "ana has 2 children."),
        ("i dont eat meat", "ana does not eat meat."),
        ("ive been learning spanish", "ana is learning spanish."),
        ("i hate cilantro lol", "ana dislikes cilantro."),
        ("i'm allergic to nuts", "ana is allergic to nuts."),
        ("my wife is called anna", "ana's spouse is Anna."),
        ("My dogs name is rex", "ana has a dog named Rex."),
        ("we got a puppy named biscuit", "ana has a puppy named Biscuit."),
        ("call me jo", "ana's name is Jo."),
        ("im a nurse lol. i have a boat", "ana owns a boat."),
    ],
)
def test_casual_typing_is_read_as_written(text: str, statement: str) -> None:
    assert statement in said(text)


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("im vegan btw", "I'm vegan"),
        ("im a nurse btw. i have a dog", "I'm a nurse. I have a dog"),  # still two sentences
        ("Dont worry, i will", "Don't worry, I will"),
        ("i.e. nothing here", "i.e. nothing here"),  # not a lone "i"
        ("I'll be ill", "I'll be ill"),  # "ill", "its", "were" are words of their own
        ("its fine, we were there", "its fine, we were there"),
        ("My name is Zoe.", "My name is Zoe."),  # written with its capitals: unchanged
        ("ask for Anna, called bob", "ask for Anna, called bob"),  # capitals used: no guess
    ],
)
def test_only_what_is_unambiguous_is_restored(text: str, written: str) -> None:
    assert as_written(text) == written


def test_the_assistants_words_are_not_rewritten() -> None:
    assert said("im vegan btw", role="assistant") == []


async def test_a_casually_typed_chat_answers_later_questions(tmp_path: object) -> None:
    user = Scope(tenant="t", user="ana")
    turns = ["hey! im a nurse in leeds", "i have a dog named rex lol", "i dont eat pork"]
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        await memory.ingest(
            [{"role": "user", "content": t, "timestamp": AT} for t in turns], user.with_session("a")
        )
        context = await memory.assemble("What do you know about me?", user.with_session("b"), 300)
        facts = {i.text for i in context.report.included if i.tier == "facts"}
    assert {"ana works as a nurse.", "ana has a dog named Rex.", "ana does not eat pork."} <= facts


def test_a_filler_that_ends_a_sentence_does_not_join_it_to_the_next() -> None:
    assert said("im a nurse btw. i have a vintage Land Rover Defender.") == [
        "ana works as a nurse.",
        "ana owns a vintage Land Rover Defender.",
    ]
