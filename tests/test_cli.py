from pathlib import Path

import pytest
from typer.testing import CliRunner

from memstrata.cli import app


def test_demo_runs_on_the_embedded_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMSTRATA_HOME", str(tmp_path))
    result = CliRunner().invoke(app, ["demo"])
    assert result.exit_code == 0, result.output
    assert "restored: draft={'regions': ['EMEA']}, step=1" in result.output
    assert "sqlite" in result.output
    assert (tmp_path / "memstrata.db").exists()


def test_demo_on_another_store() -> None:
    result = CliRunner().invoke(app, ["demo", "--url", "memory://"])
    assert result.exit_code == 0, result.output
    assert "memory" in result.output


def test_no_arguments_prints_help() -> None:
    result = CliRunner().invoke(app, [])
    assert "demo" in result.output
