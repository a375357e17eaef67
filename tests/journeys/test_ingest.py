"""A conversation handed over turn by turn: what the user said in session 1 is in session 2's
context, the same turns sent again change nothing, and a move told in session 2 supersedes
the old city."""

from __future__ import annotations

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Who

pytestmark = pytest.mark.slow  # real server processes, six runs each

ANA = Who(user="ana", agent_type="concierge")


ALLERGIES = "I'm allergic to peanuts, shellfish and eggs."


def said(n: int, role: str, content: str) -> dict[str, str]:
    name = {"user": "Ana"}.get(role, "Concierge")
    return {"id": f"t{n}", "role": role, "name": name, "content": content,
            "timestamp": f"2024-05-0{n}T09:00:00+00:00"}  # fmt: skip


async def test_turns_told_in_one_session_serve_the_next(drive: Drive) -> None:
    async with drive() as d:
        first = ANA.in_session("chat-1")
        turns = [
            said(1, "user", "I live in Oslo."),
            said(2, "assistant", "Oslo it is: I will look for trains from there."),
        ]
        told = await d.ingest(first, turns)
        assert len(told["stored"]) == 2
        assert len(told["inserted"]) >= 1
        before = await d.stats(ANA)
        again = await d.ingest(first, turns)
        assert again["stored"] == []
        assert len(again["duplicates"]) == 2
        assert await d.stats(ANA) == before

        second = ANA.in_session("chat-2")
        context = await d.assemble(second, "Where does Ana live?")
        assert "Ana lives in Oslo" in context or "I live in Oslo" in context
        moved = await d.ingest(second, [said(3, "user", "I moved to Bergen.")])
        assert len(moved["superseded"]) == 1
        (now,) = [v for v in await d.history(ANA, "Ana", "lives_in") if v.get("valid_to") is None]
        assert now["object"] == "Bergen"


async def test_what_a_user_says_in_passing_survives_a_restart_and_answers(drive: Drive) -> None:
    """Sentences the extraction reads since this wave, told through each interface: the
    facts they file are there after a restart, ended where the user said so, and answer."""
    async with drive() as d:
        first = ANA.in_session("chat-1")
        await d.ingest(
            first,
            [
                said(1, "user", "I work at Acme as a designer."),
                said(2, "assistant", "Nice: design at Acme sounds fun."),
                said(3, "user", "I was born in Brazil but grew up in Texas."),
                said(4, "user", "I love hiking and the view is amazing."),
                said(5, "user", "I got laid off last week."),  # dated before turn 1
                said(6, "user", "My parents live in Florida."),  # theirs, not Ana's
                said(7, "user", "Our cat Luna was diagnosed with diabetes."),
                # every item of a list, an allergy above all
                said(8, "user", f"I'm looking for a new job. {ALLERGIES}"),
            ],
        )
        # another session, another day: the search told in the first one is over
        await d.ingest(ANA.in_session("chat-3"), [said(9, "user", "I got a new job at Verde!")])
        await d.restart()
        objects = {
            predicate: [(v["object"], v.get("valid_to") is None)
                        for v in await d.history(ANA, "Ana", predicate)]
            for predicate in ("comes_from", "grew_up_in", "likes", "works_at", "works_as")
        }  # fmt: skip
        assert objects["comes_from"] == [("Brazil", True)]
        assert objects["grew_up_in"] == [("Texas", True)]  # the clause after "but"
        assert objects["likes"] == [("hiking", True)]  # not "... and the view is amazing"
        # the lay-off ended the job; the new one (another session) holds
        assert objects["works_at"] == [("Acme", False), ("Verde", True)]
        assert objects["works_as"] == [("designer", False)]  # and what it was
        context = await d.assemble(ANA.in_session("chat-2"), "Where am I from?")
        assert "Ana comes from Brazil" in context
        theirs = await d.history(ANA, "Ana's parents", "lives_in")
        assert [(v["object"], v.get("valid_to")) for v in theirs] == [("Florida", None)]
        assert await d.history(ANA, "Ana", "lives_in") == []  # no home of Ana's was said
        (luna,) = await d.history(ANA, "Luna", "has_condition")
        assert luna["object"] == "diabetes"
        allergies = [v["object"] for v in await d.history(ANA, "Ana", "allergic_to")]
        assert sorted(allergies) == ["eggs", "peanuts", "shellfish"]
        (pet,) = await d.history(ANA, "Ana", "has_pet")  # "our cat" is Ana's
        assert pet["object"] == "cat named Luna"
        # asked by kind, not by name: found through the pet Ana named
        context = await d.assemble(ANA.in_session("chat-2"), "How is my cat doing?")
        assert "Luna has diabetes" in context
        context = await d.assemble(ANA.in_session("chat-2"), "Where do my parents live?")
        assert "Ana's parents live in Florida" in context
        (search,) = await d.history(ANA, "Ana", "looking_for")
        assert search["object"] == "a new job"
        assert search.get("valid_to") is not None  # ended by the new job
