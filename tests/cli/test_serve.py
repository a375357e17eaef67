"""``sedimem serve`` / ``sedimem mcp`` in-process: what they print and how they fail.

The servers themselves run as real processes in tests/test_server.py and tests/mcp.
"""

import socket
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.cli.serve import _announce
from sedimem.config import Settings
from sedimem.errors import ConfigurationError
from sedimem.keys import ApiKey, IssuedKey
from sedimem.server import Announcement, serve_workers


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    return tmp_path


def _announcement(first: IssuedKey | None, keys: int) -> Announcement:
    return Announcement("http://127.0.0.1:8077", first, keys, stop=lambda: None)


def test_first_start_prints_the_key_once_with_a_curl_example(
    capsys: pytest.CaptureFixture[str],
) -> None:
    key = ApiKey(id="k1", tenant="default", created_at=datetime.now(UTC))
    _announce(_announcement(IssuedKey(key=key, secret="sdm_" + "s" * 43), 0))
    out = capsys.readouterr().out
    assert "http://127.0.0.1:8077/docs" in out
    assert "http://127.0.0.1:8077/mcp" in out
    assert out.count("sdm_" + "s" * 43) == 3  # the key, and the same key in both curl lines
    assert "curl -s -X POST http://127.0.0.1:8077/v1/messages" in out
    assert "curl -s -X POST http://127.0.0.1:8077/v1/recall" in out


def test_later_starts_print_no_key(capsys: pytest.CaptureFixture[str]) -> None:
    _announce(_announcement(None, 2))
    out = capsys.readouterr().out
    assert "sdm_" not in out
    assert "No API key" not in out
    _announce(_announcement(None, 0))
    assert "No API key exists" in capsys.readouterr().out


def test_serve_on_a_busy_port_exits_1_with_the_reason(home: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port)])
    assert result.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.output


def test_mcp_with_an_invalid_key_exits_1(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEDIMEM_API_KEY", "sdm_not-a-key")
    result = CliRunner().invoke(app, ["mcp"])
    assert result.exit_code == 1
    assert "invalid API key" in result.output


def test_serve_refuses_fewer_than_one_worker(home: Path) -> None:
    result = CliRunner().invoke(app, ["serve", "--workers", "0"])
    assert result.exit_code == 2
    assert "--workers" in result.output


def test_serve_workers_on_a_busy_port_exits_1_with_the_reason(home: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(app, ["serve", "--port", str(port), "--workers", "2"])
    assert result.exit_code == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.output


def test_serve_workers_needs_two_or_more(home: Path) -> None:
    with pytest.raises(ConfigurationError, match="--workers 1"):
        serve_workers(Settings(), announce=_announce, host="127.0.0.1", port=0, workers=1)


@pytest.mark.slow
def test_the_banner_example_works_as_printed_against_a_real_server() -> None:
    """The two curl lines of the first start's banner, run by a shell as printed: the
    second finds what the first filed for the user it names."""
    import json
    import shutil
    import subprocess

    from sedimem.testing import SedimemServer

    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    with SedimemServer() as server:
        lines = [
            line.strip() for line in server.output.splitlines() if line.strip().startswith("curl")
        ]
        assert len(lines) == 2, server.output
        answers = [
            subprocess.run(
                ["bash", "-c", line], capture_output=True, text=True, check=True, timeout=60
            ).stdout
            for line in lines
        ]
    filed = json.loads(answers[0])
    assert filed["status"] == "done"
    assert len(filed["stored"]) == 1
    recalled = json.loads(answers[1])
    texts = json.dumps(recalled)
    assert "Lisbon" in texts
    assert any(recalled[tier] for tier in ("facts", "episodes")), recalled
