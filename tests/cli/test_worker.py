"""``sedimem worker`` in-process: it consolidates on schedule and stops on SIGINT. (The
journey in tests/journeys/test_llm_settings.py runs it as a real process with an LLM.)"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.longterm import Episode

SCOPE = Scope(tenant="default")


async def _record(url: str) -> None:
    async with await Memory.open(url, embedder=HashEmbedder(32)) as memory:
        await memory.episodes.record(Episode(scope=SCOPE, description="Oslo is cold"))


async def _current_facts(url: str) -> int:
    async with await Memory.open(url, embedder=HashEmbedder(32)) as memory:
        return (await memory.stats(SCOPE)).current_facts


def test_worker_runs_rounds_until_interrupted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    monkeypatch.setenv("SEDIMEM_EMBEDDER", "hash")
    monkeypatch.setenv("SEDIMEM_EMBEDDER_DIMENSION", "32")
    url = f"sqlite:///{tmp_path / 'sedimem.db'}"
    asyncio.run(_record(url))
    # SIGINT reaches the command's own handler (installed within a second of the start)
    timer = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        result = CliRunner().invoke(app, ["worker", "--interval", "0.2"])
    finally:
        timer.cancel()
    assert result.exit_code == 0, result.output
    assert "consolidating default every 0.2 s (facts: rules; embedder: sedimem/hash-v1-32)" in (
        result.output
    )
    assert "stopped after" in result.output
    assert asyncio.run(_current_facts(url)) == 1  # "Oslo is cold." by the rule extractor
