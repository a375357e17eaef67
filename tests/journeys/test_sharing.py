"""Journeys of who sees what: sibling agents share what was filed at agent-type level and
nothing each filed privately; one user's memories never reach another user; a key narrowed
to one user cannot read another's."""

from __future__ import annotations

from typing import Any

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import Refused, Who

pytestmark = pytest.mark.slow  # real server processes, six runs each

TEAM = Who(user="ana", agent_type="researcher")
ONE = Who(user="ana", agent_type="researcher", agent="researcher-1")
TWO = Who(user="ana", agent_type="researcher", agent="researcher-2")


def _ids(found: dict[str, list[dict[str, Any]]]) -> set[str]:
    return {h["record"]["id"] for hits in found.values() for h in hits}


async def test_two_instances_of_an_agent_type_share_only_what_was_filed_at_type_level(
    drive: Drive,
) -> None:
    shared = "Ana's reports use the APA 7 citation style"
    one_private = "Researcher one keeps its draft notes in notebook alpha"
    two_private = "Researcher two keeps its draft notes in notebook beta"
    one_lesson = "Never cite a preprint without checking its published version"
    async with drive() as d:
        await d.learn(TEAM, shared, subject="Ana", predicate="citation_style", object="APA 7")
        s1 = ONE.in_session("r1-s1")
        await d.spawn(s1, {"goal": "draft the literature review"})
        await d.learn(s1, one_private)
        await d.terminate(s1, "failure", lessons=[one_lesson])
        s2 = TWO.in_session("r2-s1")
        await d.spawn(s2, {"goal": "draft the methods section"})
        await d.learn(s2, two_private)
        await d.terminate(s2, "success")

        query = "Where are the draft notes kept, which citation style, preprints?"
        two_next = TWO.in_session("r2-s2")
        await d.spawn(two_next, {"goal": "revise the methods section"})
        seen_by_two = await d.assemble(two_next, query)
        assert shared in seen_by_two
        assert two_private in seen_by_two
        assert one_private not in seen_by_two
        assert one_lesson not in seen_by_two

        one_next = ONE.in_session("r1-s2")
        await d.spawn(one_next, {"goal": "revise the literature review"})
        seen_by_one = await d.assemble(one_next, query)
        assert shared in seen_by_one
        assert one_private in seen_by_one
        assert one_lesson in seen_by_one
        assert two_private not in seen_by_one


async def test_user_as_memories_never_reach_user_bs_context(drive: Drive) -> None:
    ana = Who(user="ana", agent_type="assistant", agent="assistant-1")
    ben = Who(user="ben", agent_type="assistant", agent="assistant-1")
    secrets = ["4711", "Blue Note", "before Friday", "Ana's party"]
    async with drive() as d:
        party = ana.in_session("party-1")
        await d.spawn(party, {"goal": "plan Ana's party"})
        code = await d.learn(
            party, "The door code of Ana's flat is 4711", subject="Ana", predicate="door_code"
        )
        booked = await d.record_episode(party, "Booked the Blue Note club for Ana's party")
        ended = await d.terminate(
            party, "success", lessons=["Tell Ana's party guests the venue only before Friday"]
        )
        assert ended is not None

        query = "Ana's party venue, door code and guests"
        own = await d.assemble(ana.in_session("party-2"), query)
        assert all(s in own for s in secrets)  # Ana's own context has them

        visit = ben.in_session("ben-1")
        await d.spawn(visit, {"goal": "plan a visit"})
        theirs = await d.assemble(visit, query)
        assert not [s for s in secrets if s in theirs]
        found = await d.recall(ben, query)
        assert not _ids(found) & {code.id, booked, ended["id"]}


async def test_a_procedure_distilled_from_one_users_sessions_stays_that_users(
    drive: Drive,
) -> None:
    ana = Who(user="ana", agent_type="clerk", agent="clerk-1")
    ben = Who(user="ben", agent_type="clerk", agent="clerk-1")
    steps = ["open Ana's tax folder", "fill in Ana's tax form", "send it to Ana's accountant"]
    async with drive() as d:
        for n in range(3):
            session = ana.in_session(f"tax-{n}")
            await d.spawn(session, {"goal": "file Ana's tax return"})
            for step in steps:
                await d.note(session, step)
            await d.terminate(session, "success", task_type="tax_return")
        await d.consolidate(["procedures"])

        offered = await d.procedures(ana, "file the tax return")
        assert [p["steps"] for p in offered][:1] == [steps]  # Ana is offered it
        assert await d.procedures(ben, "file the tax return") == []
        theirs = await d.assemble(ben.in_session("ben-tax"), "file the tax return")
        assert "Ana's tax" not in theirs


async def test_a_key_narrowed_to_one_user_cannot_read_anothers(drive: Drive) -> None:
    async with drive() as d:
        as_ana = await d.narrowed(user="ana")
        as_ben = await d.narrowed(user="ben")
        anas = await as_ana.learn(Who(), "Ana's passport expires in May 2031")
        bens = await as_ben.learn(Who(), "Ben's passport expires in June 2029")

        query = "when does the passport expire"
        mine = _ids(await as_ana.recall(Who(), query))  # the key fills in its own user
        assert anas.id in mine
        assert bens.id not in mine
        assert (await as_ana.get_fact(anas.id))["statement"] == "Ana's passport expires in May 2031"

        with pytest.raises(Refused):
            await as_ana.get_fact(bens.id)
        with pytest.raises(Refused):
            await as_ana.recall(Who(user="ben"), query)
        with pytest.raises(Refused):
            await as_ana.assemble(Who(user="ben", session="ben-1"), query)
        with pytest.raises(Refused):
            await as_ana.learn(Who(user="ben"), "Ben's passport was renewed")

        both = _ids(await d.recall(Who(user="ben"), query)) | _ids(
            await d.recall(Who(user="ana"), query)
        )
        assert {anas.id, bens.id} <= both  # the tenant's own key reaches both users
        assert "June 2029" not in await as_ana.assemble(Who(session="ana-1"), query)
