"""Journeys across sessions: what one session learns, the next one knows.

Long-term memory outlives its session (docs/longterm.md, "Visibility"): a fact, an
episode, a lesson filed in session 1 is in session 2's assembled context, and an episode is
found by the words of its session's goal.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tests.journeys.conftest import Drive
from tests.journeys.drivers.base import MISSING, Who

pytestmark = pytest.mark.slow  # real server processes, six runs each

ANA = Who(user="ana", agent_type="planner", agent="planner-1")


def _ids(hits: list[dict[str, Any]]) -> list[str]:
    return [h["record"]["id"] for h in hits]


async def test_a_fact_learned_in_session_1_is_in_session_2s_context(drive: Drive) -> None:
    async with drive() as d:
        run1 = ANA.in_session("run-1")
        await d.spawn(run1, {"goal": "plan Ana's trip to Oslo"})
        learned = await d.learn(
            run1, "Ana prefers trains", subject="Ana", predicate="prefers", object="trains"
        )
        assert learned.action == "inserted"
        await d.terminate(run1, "success", lessons=["Book night trains early: they sell out"])

        run2 = ANA.in_session("run-2")
        await d.spawn(run2, {"goal": "plan Ana's trip to Bergen"})
        text = await d.assemble(run2, "How should Ana travel to Bergen?")
        assert "Ana prefers trains" in text
        assert "Book night trains early: they sell out" in text
        assert "plan Ana's trip to Bergen" in text  # and session 2's own working state

        query = "how does Ana like to travel"
        found = await d.recall(run2, query, tiers=("facts",))  # from session 2: every session
        assert learned.id in _ids(found["facts"])
        only_two = await d.recall(run2, query, tiers=("facts",), from_session="run-2")
        assert learned.id not in _ids(only_two["facts"])  # "only this session", when asked
        only_one = await d.recall(run2, query, tiers=("facts",), from_session="run-1")
        assert learned.id in _ids(only_one["facts"])


async def test_a_lesson_found_by_the_words_of_its_sessions_goal(drive: Drive) -> None:
    async with drive() as d:
        run1 = ANA.in_session("oslo-1")
        await d.spawn(run1, {"goal": "plan Ana's trip to Oslo"})
        await d.note(run1, "compared the night trains")
        await d.note(run1, "booked a sleeper cabin")
        episode = await d.terminate(
            run1, "success", lessons=["Book the sleeper a week ahead: it sells out"]
        )
        assert episode is not None
        told = json.dumps(episode).lower()
        assert "in progress" not in told  # it ended as a success
        assert "plan Ana's trip to Oslo" in episode["description"]

        run2 = ANA.in_session("oslo-2")
        await d.spawn(run2, {"goal": "plan Ana's next holiday"})
        found = (await d.recall(ANA, "Oslo trip", tiers=("episodes",)))["episodes"]
        assert _ids(found)[:1] == [episode["id"]]
        assert found[0]["explain"]["keyword"] is not None  # matched on its words too
        text = await d.assemble(run2, "Oslo trip")
        assert "plan Ana's trip to Oslo" in text
        assert "Book the sleeper a week ahead: it sells out" in text


async def test_a_failed_attempts_lesson_surfaces_when_a_similar_task_starts(
    drive: Drive,
) -> None:
    ops = Who(user="ana", agent_type="deployer", agent="deployer-1")
    lesson = "Run the database migrations before deploying the billing service"
    async with drive() as d:
        first = ops.in_session("deploy-1")
        await d.spawn(first, {"goal": "deploy the billing service to staging"})
        await d.note(first, "ran the deploy script")
        await d.note(first, "the service crashed at start: its schema is behind")
        episode = await d.terminate(first, "failure", lessons=[lesson])
        assert episode is not None
        assert episode["outcome"] == "failure"

        later = ops.in_session("deploy-2")
        await d.spawn(later, {"goal": "deploy the billing service to production"})
        text = await d.assemble(later, "deploy the billing service to production")
        assert lesson in text
        failures = await d.recall(
            ops, "deploy the billing service", tiers=("episodes",), outcome="failure"
        )
        assert _ids(failures["episodes"]) == [episode["id"]]


async def test_an_idle_session_consolidated_by_the_job_is_recallable_by_its_goal(
    drive: Drive,
) -> None:
    ops = Who(user="ana", agent_type="operator", agent="operator-1")
    goal = "renew the TLS certificate of the payments gateway"
    async with drive() as d:
        left = ops.in_session("cert-1")
        await d.spawn(left, {"goal": goal})
        await d.note(left, "requested a new certificate from the CA")
        await d.note(left, "waiting for the DNS validation")
        await asyncio.sleep(1.5)  # nobody terminates it: it is idle past the threshold
        await d.consolidate(["sessions", "facts", "procedures", "decay"], idle_after_seconds=1)
        assert await d.get(left, "goal") is MISSING  # ended and cleaned up by the job

        found = (await d.recall(ops, "payments gateway certificate", tiers=("episodes",)))[
            "episodes"
        ]
        assert found, "the idle session left no episode"
        episode = found[0]["record"]
        assert goal in episode["description"]
        assert episode["outcome"] == "partial"  # abandoned, not a success
        assert found[0]["explain"]["keyword"] is not None
        assert "requested a new certificate from the CA" in json.dumps(episode)

        later = ops.in_session("cert-2")
        await d.spawn(later, {"goal": "check the gateway"})
        assert goal in await d.assemble(later, "renew the payments gateway certificate")


async def test_a_paused_session_resumes_after_the_process_restarts(drive: Drive) -> None:
    trip = ANA.in_session("trip-7")
    async with drive() as d:
        await d.spawn(trip, {"goal": "book Ana's trip to Oslo"}, task_id="trip-7-booking")
        await d.set(trip, "candidates", ["NSB 21:00", "SJ 06:10"])
        await d.note(trip, "compared the trains")
        paused_at = await d.pause(trip)
        assert await d.task_status(trip) == "paused"
        await d.set(trip, "candidates", ["written after the pause"])  # resume undoes it

        await d.restart()

        await d.resume(trip)
        assert await d.get(trip, "candidates") == ["NSB 21:00", "SJ 06:10"]
        assert await d.get(trip, "goal") == "book Ana's trip to Oslo"
        assert await d.notes(trip) == ["compared the trains"]
        assert await d.task_status(trip) == "in_progress"
        assert paused_at in await d.checkpoints(trip)

        await d.note(trip, "booked the NSB 21:00 sleeper")
        episode = await d.terminate(trip, "success")
        assert episode is not None
        assert "booked the NSB 21:00 sleeper" in episode["actions"]


async def test_a_forked_checkpoint_explores_an_alternative_without_touching_the_original(
    drive: Drive,
) -> None:
    plan = ANA.in_session("offsite-a")
    async with drive() as d:
        await d.spawn(plan, {"goal": "plan the team offsite", "transport": "train"})
        await d.note(plan, "the train takes six hours")
        before = await d.checkpoint(plan, "before choosing transport")

        alternative = await d.fork(plan, before, "offsite-b")
        assert await d.get(alternative, "transport") == "train"  # starts where it forked
        await d.set(alternative, "transport", "plane")
        await d.note(alternative, "trying a flight instead")
        assert await d.notes(alternative) == [
            "the train takes six hours",
            "trying a flight instead",
        ]

        assert await d.get(plan, "transport") == "train"
        assert await d.notes(plan) == ["the train takes six hours"]
        assert await d.checkpoints(plan) == [before]

        lesson = "Flights to the offsite cost three times the train"
        await d.terminate(alternative, "failure", lessons=[lesson])
        assert await d.get(plan, "transport") == "train"  # ending the fork ends only the fork
        assert await d.task_status(plan) == "in_progress"
        await d.terminate(plan, "success")

        later = ANA.in_session("offsite-next")
        await d.spawn(later, {"goal": "plan next year's offsite"})
        assert lesson in await d.assemble(later, "how to travel to the team offsite")
