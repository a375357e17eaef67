from pathlib import Path

import pytest
from typer.testing import CliRunner

from memstrata.cli import app


def test_demo_runs_on_the_embedded_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMSTRATA_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "resumed: destination='Oslo'" in result.output
    assert "one episode recorded" in result.output
    assert "Booked the train to Oslo" in result.output
    assert "You plan trips carefully" in result.output  # the pinned block leads the context
    assert "sqlite" in result.output
    assert (tmp_path / "memstrata.db").exists()


def test_demo_on_other_stores(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["demo", "--working", "memory://", "--store", f"sqlite:///{tmp_path}/lt.db"]
    )
    assert result.exit_code == 0, result.output
    assert "working memory on memory" in result.output


def test_no_arguments_prints_help() -> None:
    result = CliRunner().invoke(app, [])
    assert "demo" in result.output
