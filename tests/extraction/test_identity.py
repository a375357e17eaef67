"""What the speaker is, was and means to become, read from a chat turn."""

from __future__ import annotations

import pytest

from sedimem.extraction import extract_statements
from tests.extraction.said import AT, said


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I'm an environmentalist.", "ana is an environmentalist."),
        ("I'm a young mixed race girl.", "ana is a young mixed race girl."),
        ("I am an old man who only has one leg.", "ana is an old man."),
        ("I'm an old man with one leg.", "ana is an old man with one leg."),
        ("I'm a bodybuilder, so I eat a lot of meat.", "ana is a bodybuilder."),
        ("I'm a huge animal lover.", "ana is a huge animal lover."),
        ("I'm a morning person.", "ana is a morning person."),
        ("I'm a single mom of two boys.", "ana is a single mom of two boys."),
        ("I'm a model who lives in New York City.", "ana is a model."),
        ("I'm serving in the army.", "ana is in the army."),
        ("I'm currently attending school.", "ana attends school."),
        ("I'm in college.", "ana is in college."),
        ("I'm more of a homebody.", "ana is a homebody."),
        ("Honestly I'm more of a night owl anyway.", "ana is a night owl."),
        ("I'm a student studying biology.", "ana is a student studying biology."),
        ("I'm also an advertising professional.", "ana is an advertising professional."),
        ("I'm a wedding planner.", "ana is a wedding planner."),
        ("I'm retired from banking.", "ana is retired."),
    ],
)
def test_what_one_is(text: str, statement: str) -> None:
    assert statement in said(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm a bit tired.",
        "I'm a little nervous about it.",
        "I'm a long way from home.",
        "I'm a mess right now.",
        "I'm a big fan of his.",  # of whom?
        "I've been a fan since I was a kid.",  # of what?
        "I'm in the kitchen.",  # where one is this afternoon
        "I'm at school.",
        "I'm a sports.",  # no person
    ],
)
def test_what_does_not_say_what_one_is(text: str) -> None:
    assert not [s for s in said(text) if " is " in s], said(text)


def test_a_more_specific_reading_keeps_its_predicate() -> None:
    facts = extract_statements("I'm a chemistry teacher in Ohio, looking for ideas.", "ana", AT)
    assert [(s.fact.predicate, s.fact.object) for s in facts] == [
        ("works_as", "chemistry teacher"),
        ("lives_in", "Ohio"),
    ]
    assert said("I'm a vegan.") == ["ana is vegan."]
    assert said("I'm married.") == ["ana is married."]


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I used to be in the military.", "ana used to be in the military."),
        ("I used to be a carpenter before I went to college.", "ana used to be a carpenter."),
        ("I used to be a body builder myself.", "ana used to be a body builder."),
        ("I used to live in Paris.", "ana used to live in Paris."),
    ],
)
def test_what_one_was(text: str, statement: str) -> None:
    assert said(text) == [statement]


def test_what_one_used_to_do_needs_a_thing() -> None:
    assert said("I used to.") == []
    assert said("I used to play when I was younger.") == []
    assert said("I used to love that.") == []


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I want to be a doctor when I grow up.", "ana aims to become a doctor."),
        ("I want to be a marine biologist.", "ana aims to become a marine biologist."),
        ("I have a dream of becoming an actress.", "ana aims to become an actress."),
        ("My dream is to become a pilot one day.", "ana aims to become a pilot."),
        ("I hope to be a teacher someday.", "ana aims to become a teacher."),
        (
            "I want to be a nurse practitioner eventually.",
            "ana aims to become a nurse practitioner.",
        ),
    ],
)
def test_who_one_means_to_become(text: str, statement: str) -> None:
    assert said(text) == [statement]


def test_a_passing_wish_is_no_goal() -> None:
    assert said("I want to try that new place.") == []
    assert said("I want to be a bit more careful.") == []
    assert said("I'd love to be there.") == []


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("I love to read too!", ["ana likes to read."]),
        ("I like hiking and camping too!", ["ana likes hiking.", "ana likes camping."]),
        ("I'm from Wisconsin too!", ["ana comes from Wisconsin."]),
        ("I like all of those games too!", []),
        ("I like to do those things too.", []),
        ("I use that app too.", []),  # named elsewhere
    ],
)
def test_agreeing_says_it_of_oneself(text: str, facts: list[str]) -> None:
    assert said(text) == facts


def test_where_one_lives_on_an_island() -> None:
    assert said("I live on Edris Island.") == ["ana lives in Edris Island."]
    assert said("I live on a budget.") == []


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("Yes, I have two boys.", "ana has 2 children."),
        ("I have two kids of my own, so I know.", "ana has 2 children."),
        ("I have three grown children and six grandchildren.", "ana has 3 children."),
        ("I have two dogs and one cat.", "ana has 2 dogs."),
    ],
)
def test_how_many_children_and_pets(text: str, statement: str) -> None:
    assert statement in said(text)
