"""``sedimem export | import | forget`` on the embedded store."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    demo = CliRunner().invoke(app, ["demo", "--home", str(tmp_path)])
    assert demo.exit_code == 0  # ana's memories, tenant default
    return tmp_path


def test_export_import_export_round_trips(home: Path) -> None:
    runner = CliRunner()
    first, second = home / "a.jsonl", home / "b.jsonl"
    result = runner.invoke(app, ["export", "--user", "ana", "--out", str(first)])
    assert result.exit_code == 0, result.output
    lines = first.read_text().splitlines()
    assert "exported 7 records" in result.output
    assert len(lines) == 7
    kinds = {json.loads(line)["kind"] for line in lines}
    assert kinds == {"episode", "fact", "procedure", "block"}
    assert not (home / "a.jsonl.partial").exists()

    fresh = f"sqlite:///{home / 'fresh.db'}"  # an empty store, same tenant
    imported = runner.invoke(app, ["import", str(first), "--store", fresh])
    assert imported.exit_code == 0, imported.output
    assert "2 episodes, 3 facts, 1 procedures, 1 blocks" in imported.output
    again = runner.invoke(app, ["export", "--user", "ana", "--store", fresh, "--out", str(second)])
    assert again.exit_code == 0
    assert second.read_text() == first.read_text()


def test_import_refuses_a_bad_file_and_writes_nothing(home: Path) -> None:
    good = home / "good.jsonl"
    CliRunner().invoke(app, ["export", "--user", "ana", "--out", str(good)])
    bad = home / "bad.jsonl"
    bad.write_text(good.read_text() + "not json\n")
    result = CliRunner().invoke(app, ["import", str(bad), "--tenant", "copy"])
    assert result.exit_code == 1
    assert "line 8" in result.output
    stats = CliRunner().invoke(app, ["stats", "--tenant", "copy", "--user", "ana"])
    assert "│ 0 " in stats.output


def test_forget_erases_the_user_and_prints_the_receipt(home: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["forget", "--user", "ana", "--yes"])
    assert result.exit_code == 0, result.output
    assert "episodes: 2" in result.output
    assert "facts: 3" in result.output
    assert "procedures: 1" in result.output
    assert "blocks: 1" in result.output
    out = home / "after.jsonl"
    assert runner.invoke(app, ["export", "--user", "ana", "--out", str(out)]).exit_code == 0
    assert out.read_text() == ""


def test_forget_asks_first_and_needs_a_target(home: Path) -> None:
    runner = CliRunner()
    declined = runner.invoke(app, ["forget", "--user", "ana"], input="n\n")
    assert declined.exit_code == 1  # aborted: nothing erased
    assert "Erase every memory of user 'ana'" in declined.output
    out = home / "still.jsonl"
    runner.invoke(app, ["export", "--user", "ana", "--out", str(out)])
    assert len(out.read_text().splitlines()) == 7
    nothing = runner.invoke(app, ["forget", "--yes"])
    assert nothing.exit_code == 2
    assert "--user" in nothing.output


def test_forget_before_a_date_keeps_newer_records(home: Path) -> None:
    result = CliRunner().invoke(
        app, ["forget", "--user", "ana", "--before", "2000-01-01T00:00:00", "--yes"]
    )
    assert result.exit_code == 0, result.output
    assert "episodes: 0" in result.output
