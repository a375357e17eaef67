"""``python -m benchmarks.capacity`` at tiny sizes: the script runs to its end and its JSON
line holds the sustained rate per worker count and the latencies per tenant count. (Its
figures are docs/benchmarks.md's, not this test's: nothing here is timed.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sedimem.testing.postgres_server import find_postgres_bin
from tests.fixtures.services import unavailable

REPO = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.postgres]


def test_capacity_script_reports_sustained_rates_and_tenant_latencies() -> None:
    if find_postgres_bin() is None:
        unavailable("the capacity script's tenant part needs PostgreSQL binaries")
    command = [sys.executable, "-m", "benchmarks.capacity", "--stores", "sqlite"]
    command += ["--workers", "1", "--rates", "2,200", "--step-seconds", "2"]
    command += ["--tenants", "3,6", "--records", "5", "--queries", "3"]
    done = subprocess.run(
        command, cwd=REPO, capture_output=True, text=True, timeout=240, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    metrics = json.loads(done.stdout.strip().splitlines()[-1])["metrics"]
    rate = metrics["capacity.sqlite.workers1.sustained_per_s"]
    # an offered rate (or the one tried between the last sustained one and the first not)
    assert rate in (0.0, 2.0, 101.0, 200.0)
    assert metrics["capacity.sqlite.workers1.per_worker_per_s"] == rate
    if rate:
        assert metrics["capacity.sqlite.workers1.p95_ms_at_sustained"] <= 100
    assert "sqlite, 1" in done.stdout  # the table's rows
    for count in (3, 6):
        for call in ("recall", "assemble"):
            assert metrics[f"tenants.{call}.p95_ms@{count}"] > 0
    assert metrics["cpus"] >= 1
