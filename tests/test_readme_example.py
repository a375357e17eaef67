"""The README's Python example as written there (read from README.md), on the embedded
default a new user gets: one SQLite file under ``SEDIMEM_HOME`` and the packaged embedder.

Session 2's context holds what session 1 learned (the fact, the episode by its goal's words,
the lesson), and a third session, after a fact that supersedes the first, holds only the new
value. tests/test_wheel.py runs the same example again from the installed wheel.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sedimem import Memory, Scope
from sedimem.types import Fact
from tests.test_wheel import readme_example


def test_the_readme_example_carries_into_the_next_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path / "home"))
    exec(compile(readme_example(), "README.md", "exec"), {"__name__": "readme"})
    told = capsys.readouterr().out
    assert "Ana prefers trains" in told
    assert "plan Ana's trip to Oslo" in told  # the episode, by its goal's words
    assert "book early" in told  # and its lesson
    assert "in progress" not in told  # the session ended as a success

    async def third_session() -> str:
        async with await Memory.open() as memory:  # the same file, reopened
            run2 = Scope(tenant="acme", user="ana", agent="planner", session="run-2")
            learned = await memory.facts.learn(
                Fact(
                    scope=run2,
                    statement="Ana prefers planes",
                    subject="Ana",
                    predicate="prefers",
                    object="planes",
                    cardinality="one",  # replaces the earlier preference
                )
            )
            assert learned.action == "superseded"
            await memory.lifecycle.terminate(run2, "success")
            run3 = run2.with_session("run-3")
            await memory.lifecycle.spawn(run3, {"goal": "book the Oslo trip"})
            context = await memory.assemble("how should Ana travel?", run3, budget_tokens=500)
            return context.text or ""

    text = asyncio.run(third_session())
    assert "Ana prefers planes" in text
    assert "Ana prefers trains" not in text
    assert "plan Ana's trip to Oslo" in text
