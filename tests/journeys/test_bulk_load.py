"""A bulk load, then a server: one process records thousands of episodes through the Python
API and exits; ``sedimem serve`` on the same home then answers recall over REST from the
indexes the loader saved when it closed, rebuilding nothing from the rows.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from sedimem.storage.longterm.sqlite.indexes import BULK_ROWS
from sedimem.testing import SedimemServer

ADMIN = "admin-secret-for-the-bulk-load-test"
EPISODES = BULK_ROWS + 500

pytestmark = pytest.mark.slow

_LOADER = """
import asyncio
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types import Episode

async def main():
    memory = await Memory.open()
    scope = Scope(tenant="acme")
    episodes = [Episode(scope=scope, description=f"routine check number {{i}} of the pumps")
                for i in range({count})]
    episodes.append(Episode(scope=scope, description="The heron nested on the water tower"))
    await memory.episodes.record_many(episodes, batch_size=500)
    await memory.aclose()

asyncio.run(main())
"""


def _index_files(home: Path) -> dict[str, int]:
    """The saved index files under the home, by name, with their modification times."""
    return {p.name: p.stat().st_mtime_ns for p in home.glob("*.idx/*.idx")}


def test_a_server_answers_from_the_indexes_a_bulk_load_saved(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "SEDIMEM_HOME": str(home)}
    loaded = subprocess.run(
        [sys.executable, "-c", _LOADER.format(count=EPISODES)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert loaded.returncode == 0, loaded.stderr
    saved = _index_files(home)
    assert saved, "the loader closed without saving its indexes"

    with SedimemServer(env={"SEDIMEM_HOME": str(home), "SEDIMEM_ADMIN_KEY": ADMIN}) as server:
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {ADMIN}"}, timeout=60
        ) as admin:
            created = admin.post("/v1/keys", json={"tenant": "acme"})
            assert created.status_code == 201, created.text
            secret = created.json()["secret"]
        with httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {secret}"}, timeout=60
        ) as client:
            found = client.post("/v1/recall", json={"query": "where did the heron nest?"})
            assert found.status_code == 200, found.text
            hits = [h["record"]["description"] for h in found.json()["episodes"]]
            assert hits[:1] == ["The heron nested on the water tower"]
            counted = client.post("/v1/recall", json={"query": "routine pumps", "k": 50})
            assert len(counted.json()["episodes"]) == 50

    # The server read the loader's file and changed nothing in it: an index it had built
    # from the rows would have been written again when it shut down. (It saves files of
    # its own for the other tiers its recalls searched, empty here.)
    after = _index_files(home)
    assert {name: after.get(name) for name in saved} == saved
