"""What the speaker has: "I have a large garden", read only when "have" names a thing."""

from __future__ import annotations

import pytest

from sedimem.extraction import extract_statements
from sedimem.memory import Memory
from sedimem.scope import Scope
from tests.extraction.said import AT, said


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I have a large garden.", "ana owns a large garden."),
        ("I've got a boat.", "ana owns a boat."),
        ("I have an old pickup truck.", "ana owns an old pickup truck."),
        ("I have two cars.", "ana owns two cars."),
        ("I have my own bakery.", "ana owns a bakery."),
        ("We have a cabin in Maine.", "ana owns a cabin in Maine."),
        ("My wife and I have a farm.", "ana owns a farm."),
        ("I have a Volkswagen Beetle, but I rarely drive.", "ana owns a Volkswagen Beetle."),
        ("I have a website where I sell them.", "ana owns a website."),
        ("I have a wheelchair that is modded to go fast.", "ana owns a wheelchair."),
        ("I have a large collection of teddy bears.", "ana collects teddy bears."),
    ],
)
def test_a_thing_the_speaker_has_is_owned(text: str, statement: str) -> None:
    assert statement in said(text)


def test_a_make_with_its_model_is_owned() -> None:
    assert said("I have a vintage Land Rover Defender that I drive up there.") == [
        "ana owns a vintage Land Rover Defender."
    ]


@pytest.mark.parametrize(
    "text",
    [
        "I sold the Defender and bought an electric Volvo.",
        "I also sold the Defender and bought an electric Volvo, the gas cost too much.",
        "I sold my Defender and bought an electric Volvo.",
    ],
)
def test_selling_the_car_one_had_ends_it_and_the_new_one_is_driven(text: str) -> None:
    found = extract_statements(text, "ana", AT, role="user")
    ended = {(s.fact.predicate, s.fact.object) for s in found if s.ends}
    now = {(s.fact.predicate, s.fact.object) for s in found if not s.ends}
    assert ("owns", "Defender") in ended
    assert ("drives", "an electric Volvo") in now


@pytest.mark.parametrize("text", ["I sold the idea to my boss.", "I sold the tickets."])
def test_selling_the_thing_that_is_no_possession_ends_nothing(text: str) -> None:
    assert said(text) == []


def test_a_thing_said_among_other_clauses_is_read_beside_them() -> None:
    facts = said("I like to swim, I have a convertible mustang, and I'm a kindergarten teacher.")
    assert "ana owns a convertible mustang." in facts
    assert "ana works as a kindergarten teacher." in facts


@pytest.mark.parametrize(
    "text",
    [
        "I have a question about my car.",  # the thing belongs to no "have"
        "I have a business meeting.",
        "I have a garden party tonight.",
        "I have a car accident to report.",
        "I have a dream house in mind.",  # wished for, not had
        "I have a friend's car this week.",
        "I have a rental car.",
        "I don't have a car.",
        "I have a pool table.",  # not a pool
        "I have a lot on my mind.",
        "Do you have a boat?",
        "I have a store in mind.",  # thought of, not had
    ],
)
def test_have_that_names_no_thing_of_the_speakers_is_not_read(text: str) -> None:
    assert not [s for s in said(text) if " owns " in s or " collects " in s], said(text)


async def test_a_thing_said_in_a_chat_answers_a_later_question(tmp_path: object) -> None:
    user = Scope(tenant="t", user="ana")
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        chat = "Weekends are busy. I have a small sailboat and I take it out on Lake Como."
        await memory.ingest([{"role": "user", "content": chat, "timestamp": AT}], user)
        owned = await memory.facts.current("ana", "owns", scope=user)
        assert [f.statement for f in owned] == ["ana owns a small sailboat."]
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db") as memory:
        context = await memory.assemble(
            "Is my sailboat big enough for four people?", user.with_session("later"), 300
        )
        shown = [i.text for i in context.report.included if i.tier == "facts"]
        assert "ana owns a small sailboat." in shown


def test_a_crowd_is_no_count_of_children_and_ive_got_counts() -> None:
    assert said("I have a house full of kids this weekend.") == []
    assert said("I have two kids of my own.") == ["ana has 2 children."]
    assert said("I've got 2 cats, Miso and Tofu.") == [
        "ana has 2 cats.",
        "ana has a cat named Miso.",
        "ana has a cat named Tofu.",
    ]
