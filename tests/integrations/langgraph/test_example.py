"""The docs' example graph, run as written, in separate processes: interrupted, resumed
after a real process restart (an ended process, and a killed one) from the SQLite file, and
read by a new thread."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).parents[3] / "docs" / "integrations" / "langgraph.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)


def _example() -> str:
    return next(b for b in _blocks() if "__main__" in b)


def _run(script: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.slow
def test_the_example_resumes_after_a_restart_and_remembers_across_threads(
    tmp_path: Path,
) -> None:
    script = tmp_path / "agent.py"
    script.write_text(_example())
    db = str(tmp_path / "agent.db")

    first = _run(script, db, "start", "trip-1", "window seat to Lisbon")
    assert first == {"interrupted": True, "recalled": [], "answer": ""}

    # a new process: the interrupted thread continues from its checkpoint in the file
    resumed = _run(script, db, "resume", "trip-1", "yes")
    assert resumed == {
        "interrupted": False,
        "recalled": [],
        "answer": "window seat to Lisbon: yes",
    }

    # another thread, another process: it finds what the first thread stored
    second = _run(script, db, "start", "trip-2", "hotel in Lisbon")
    assert second["interrupted"] is True
    assert second["recalled"] == ["window seat to Lisbon"]


@pytest.mark.slow
def test_the_example_resumes_after_its_process_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "agent.py"
    script.write_text(_example())
    db = str(tmp_path / "agent.db")
    killer = Path(__file__).parent / "killed_example.py"

    # the first process stops for approval, prints, and is killed before closing anything
    done = subprocess.run(
        [sys.executable, str(killer), str(script), db, "start", "trip-1", "aisle seat to Oslo"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    first = json.loads(done.stdout.strip().splitlines()[-1])
    assert first == {"interrupted": True, "recalled": [], "answer": ""}

    resumed = _run(script, db, "resume", "trip-1", "no")
    assert resumed == {"interrupted": False, "recalled": [], "answer": "aisle seat to Oslo: no"}
    second = _run(script, db, "start", "trip-2", "taxi in Oslo")
    assert second["recalled"] == ["aisle seat to Oslo"]


def test_the_async_example_runs_the_same_graph(tmp_path: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "example"}
    exec(_example(), namespace)
    exec(next(b for b in _blocks() if "run_async" in b), namespace)
    result = asyncio.run(namespace["run_async"](str(tmp_path / "async.db")))
    assert result["answer"] == "taxi: no"
