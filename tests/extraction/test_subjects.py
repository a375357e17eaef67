"""Who a statement is about: the user, never the role word; the assistant is nobody's memory."""

from __future__ import annotations

from datetime import UTC, datetime

from sedimem.extraction import UNNAMED_USER, extract_statements, turn_subjects
from sedimem.extraction.subjects import addressee, possessive
from sedimem.scope import Scope

NOW = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)


def test_turn_subjects() -> None:
    ana = Scope(user="ana")
    assert turn_subjects("user", ana) == (turn_subjects("user", ana, None))
    assert turn_subjects("user", ana).speaker == "ana"
    assert turn_subjects("user", ana, "Zoe").speaker == "Zoe"  # the turn's name wins
    assert turn_subjects("user", Scope()).speaker == UNNAMED_USER
    assert turn_subjects("user", Scope(), "user").speaker == UNNAMED_USER  # never the role word
    assistant = turn_subjects("assistant", ana, "Zoe")
    assert assistant.speaker is None  # the assistant's first person is nobody's memory
    assert assistant.addressee == "Zoe"  # the name the user gave, when the caller passes it
    assert turn_subjects("assistant", ana, "Bot").addressee == "ana"  # a role word is no name
    assert turn_subjects("assistant", ana).addressee == "ana"
    assert turn_subjects("tool", ana) == turn_subjects("system", ana)
    assert turn_subjects("tool", ana).speaker is turn_subjects("tool", ana).addressee is None
    assert addressee(Scope(user=" "), "  ") == UNNAMED_USER
    assert possessive("my brother and our dog", "Ana") == "Ana's brother and Ana's dog"


def facts(text: str, role: str = "user") -> list[tuple[str | None, str | None, str | None]]:
    speaker = "ana" if role == "user" else None
    return [
        (s.fact.subject, s.fact.predicate, s.fact.object)
        for s in extract_statements(text, speaker, NOW, role=role, addressee="ana")
    ]


def test_people_the_user_names_are_subjects_of_their_own() -> None:
    assert facts("My husband Tom is diabetic, so I'm looking for desserts.") == [
        ("ana", "spouse", "Tom"),
        ("Tom", "has_condition", "diabetes"),
    ]
    assert facts("My brother Carlos is a chef in London.") == [
        ("ana", "brother", "Carlos"),
        ("Carlos", "works_as", "chef"),
        ("Carlos", "lives_in", "London"),
    ]
    assert facts("My mom lives in Porto.") == [("ana's mother", "lives_in", "Porto")]
    # a name the user did not introduce is nobody we know: not noted
    assert facts("Carlos is a chef in London.") == []


def test_what_is_never_a_fact() -> None:
    never = [
        "What's your favorite color?",  # a question
        "I live in Leeds, right?",  # a question, even in first person
        "Please book a table for two.",  # a request
        "Can you recommend a laptop? I need it for work.",
        "Maybe I'll adopt a kitten next spring.",  # a hedge
        "If I moved to Spain I would learn Spanish.",  # a hypothetical
        "Roses are beautiful.",  # a general statement
        "Binoculars are an excellent tool for getting a closer look at birds.",
        "Hi! How are you?",  # small talk
        "You should try yoga.",  # advice
        "I don't either.",  # the other speaker's words, denied
    ]
    for text in never:
        assert facts(text) == [], text


def test_agreeing_with_the_other_speaker_still_says_it_of_oneself() -> None:
    assert facts("I love dogs too!") == [("ana", "likes", "dogs")]
    assert facts("Oh, I like to read mysteries as well.") == [("ana", "likes", "to read mysteries")]
    assert facts("I like to do those things too!") == []  # says nothing of its own


def test_the_assistant_records_only_what_the_user_did() -> None:
    assert (
        facts("I love hiking. I'm a large language model. I live in the cloud.", "assistant") == []
    )
    assert facts("You mentioned you live in Leeds. You should visit York.", "assistant") == []
    (booking,) = facts("I've booked your table for two at Luigi's.", "assistant")
    assert booking[:2] == ("ana", "has_booking")
    assert "Luigi's" in (booking[2] or "")
    assert facts("I'm allergic to nuts.", "tool") == []
    assert extract_statements("I've booked your table.", None, NOW, role="assistant") == []


def test_everyone_close_to_the_user_is_named_as_a_relation() -> None:
    """ "My coworker Dan": Dan is the user's colleague ("ana's colleague is Dan"), whatever
    kind of closeness the word names."""
    from sedimem.extraction.vocabulary import FAMILY, phrase

    for word, relation in FAMILY.items():
        assert phrase("ana", relation, "Dan") == f"ana's {relation} is Dan.", word
    said = [
        s.fact.statement
        for s in extract_statements("My coworker Dan is vegan.", "ana", NOW, role="user")
    ]
    assert said == ["ana's colleague is Dan.", "Dan is vegan."]
