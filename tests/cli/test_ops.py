import asyncio
import json
import re
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.config import load_settings
from sedimem.memory import Memory
from sedimem.scope import Scope
from sedimem.types.longterm import Episode


def test_demo_runs_on_the_embedded_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["demo", "--home", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "resumed: destination='Oslo'" in result.output
    assert "one episode recorded" in result.output
    assert re.search(r"consolidated \(.*facts: [1-9]\d* changed", result.output)
    assert "Booked the train to Oslo" in result.output
    assert "You plan trips carefully" in result.output  # the pinned block leads the context
    assert "sqlite" in result.output
    assert (tmp_path / "sedimem.db").exists()


def test_demo_leaves_the_default_home_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run twice, the demo adds nothing to the user's store: its home is temporary."""
    home = tmp_path / "home"
    monkeypatch.setenv("SEDIMEM_HOME", str(home))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    for _ in range(2):
        result = CliRunner().invoke(app, ["demo"])
        assert result.exit_code == 0, result.output
        assert "Booked the train to Oslo" in result.output
        assert "temporary" in result.output
        assert str(tmp_path / "tmp") in result.output
    assert not home.exists()
    assert list((tmp_path / "tmp").glob("sedimem-demo-*")) == []  # removed at the end


def test_version_prints_the_version() -> None:
    import sedimem

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"sedimem {sedimem.__version__}"


def test_demo_on_other_stores(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["demo", "--working", "memory://", "--store", f"sqlite:///{tmp_path}/lt.db"]
    )
    assert result.exit_code == 0, result.output
    assert "working memory on memory" in result.output


def test_no_arguments_prints_help() -> None:
    result = CliRunner().invoke(app, [])
    assert "demo" in result.output
    for command in ("serve", "mcp", "keys", "stats", "export", "import", "forget", "consolidate"):
        assert command in result.output
    for command in ("eval", "bench"):
        assert command in result.output


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    return tmp_path


def test_stats_counts_what_the_demo_wrote(home: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["demo", "--home", str(home)]).exit_code == 0
    result = runner.invoke(app, ["stats", "--tenant", "default", "--user", "ana"])
    assert result.exit_code == 0, result.output
    assert re.search(r"episodes\s*│\s*2\b", result.output), result.output
    assert re.search(r"procedures\s*│\s*1\b", result.output)
    assert "working memory: sqlite; long-term store: sqlite" in result.output
    empty = runner.invoke(app, ["stats", "--tenant", "nobody"])
    assert re.search(r"episodes\s*│\s*0\b", empty.output)
    # the tenant's view counts every user's records: ana's too, split per user on request
    tenant = runner.invoke(app, ["stats", "--tenant", "default", "--by-user"])
    assert tenant.exit_code == 0, tenant.output
    assert "every user" in tenant.output
    assert "user ana" in tenant.output
    assert re.search(r"episodes\s*│\s*2\s*│\s*2\b", tenant.output), tenant.output


def test_consolidate_reports_each_job_and_dry_run_changes_nothing(home: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["demo", "--home", str(home)]).exit_code == 0
    dry = runner.invoke(app, ["consolidate", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "(dry run)" in dry.output
    for job in ("facts", "procedures", "decay"):
        assert job in dry.output
    real = runner.invoke(app, ["consolidate"])
    assert real.exit_code == 0
    assert "dry run" not in real.output


def test_bench_prints_percentiles_and_a_json_last_line(home: Path) -> None:
    result = CliRunner().invoke(app, ["bench", "--episodes", "200", "--queries", "20"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.output.strip().splitlines()[-1])["metrics"]
    for name in ("working.set", "working.get", "recall"):
        assert (
            0 < metrics[f"{name}.p50_ms"] <= metrics[f"{name}.p95_ms"] <= metrics[f"{name}.p99_ms"]
        )
        assert metrics[f"{name}.ratio_to_baseline"] > 0
    assert metrics["ingest_per_s"] > 0
    # the temporary tenant is erased afterwards
    stats = CliRunner().invoke(app, ["stats", "--tenant", "default", "--user", "bench"])
    assert re.search(r"episodes\s*│\s*0\b", stats.output)


def test_bench_refuses_out_of_range_sizes(home: Path) -> None:
    result = CliRunner().invoke(app, ["bench", "--episodes", "5"])
    assert result.exit_code == 1
    assert "episodes" in result.output
    assert "100..1000000" in result.output


def test_consolidate_follows_the_consolidation_settings_of_the_environment(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command line builds its Memory from the settings tree: two successes make a
    procedure only once SEDIMEM_CONSOLIDATION__MIN_PROCEDURE_EPISODES says two are enough."""
    steps = ["open the billing dashboard", "download the CSV export"]

    async def record() -> None:
        async with await Memory.open(settings=load_settings()) as memory:
            for _ in range(2):
                await memory.episodes.record(
                    Episode(task_type="export", description="export run", actions=steps)
                )

    async def procedures() -> int:
        async with await Memory.open(settings=load_settings()) as memory:
            return (await memory.stats(Scope())).procedures

    asyncio.run(record())
    runner = CliRunner()
    # by default (3) the job would pass them over: see the dry run
    dry = runner.invoke(app, ["consolidate", "--dry-run"])
    assert re.search(r"procedures\s*│\s*ok\s*│[^│]*│\s*-\s*│", dry.output), dry.output
    monkeypatch.setenv("SEDIMEM_CONSOLIDATION__MIN_PROCEDURE_EPISODES", "2")
    result = runner.invoke(app, ["consolidate"])
    assert result.exit_code == 0, result.output
    assert asyncio.run(procedures()) == 1
