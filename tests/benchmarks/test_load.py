"""``python -m benchmarks.load`` with a few agents: the script runs to its end and its JSON
line reports no lost write, no duplicate episode and no error, although a server and a
consolidation worker were killed mid-run. (Its figures are docs/benchmarks.md's, not this
test's: nothing here is timed.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sedimem.testing.postgres_server import find_postgres_bin
from sedimem.testing.redis_server import find_redis_server
from tests.fixtures.services import unavailable

REPO = Path(__file__).resolve().parents[2]
OPERATIONS = {"spawn", "kv_put", "ingest", "recall", "assemble", "terminate"}

pytestmark = [pytest.mark.slow, pytest.mark.redis, pytest.mark.postgres]


def test_load_script_loses_nothing_when_a_server_and_a_worker_die() -> None:
    if find_redis_server() is None or find_postgres_bin() is None:
        unavailable("the load script needs redis-server and PostgreSQL binaries")
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.load", "--agents", "10", "--ramp", "2"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert (summary["agents"], summary["servers"], summary["workers"]) == (10, 2, 2)
    assert summary["killed_after_ops"] is not None  # the kill happened mid-run
    assert summary["workers_alive_at_end"] == 1
    assert summary["unfinished"] == 0
    assert summary["errors"] == 0, done.stdout
    assert summary["lost_writes"] == 0
    assert summary["duplicate_episodes"] == 0
    assert summary["lost_episodes"] == 0
    # each agent: spawn, 5 writes, ingest, recall, assemble, terminate, all acknowledged
    assert summary["ops"] == 10 * 10
    assert set(summary["p95_ms"]) == OPERATIONS
