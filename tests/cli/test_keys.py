"""``sedimem keys``: create prints the secret once, list never shows it, revoke sticks."""

import asyncio
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sedimem.cli import app
from sedimem.errors import PermissionDenied
from sedimem.memory import Memory


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SEDIMEM_HOME", str(tmp_path))
    return tmp_path


def _authenticate(home: Path, secret: str) -> str:
    async def main() -> str:
        async with await Memory.open(f"sqlite:///{home / 'sedimem.db'}") as memory:
            return (await memory.keys.authenticate(secret)).tenant

    return asyncio.run(main())


def test_create_list_revoke(home: Path) -> None:
    runner = CliRunner()
    created = runner.invoke(app, ["keys", "create", "--tenant", "acme", "--user", "ana"])
    assert created.exit_code == 0, created.output
    key_id = created.output.split("key id: ")[1].split()[0]
    secret = next(w for w in created.output.split() if w.startswith("sdm_"))
    assert _authenticate(home, secret) == "acme"

    listed = runner.invoke(app, ["keys", "list", "--tenant", "acme"])
    assert listed.exit_code == 0
    assert key_id in listed.output.replace("\n", "").replace("│", "").replace(" ", "")
    assert "user=ana" in listed.output
    assert secret not in listed.output

    revoked = runner.invoke(app, ["keys", "revoke", key_id])
    assert revoked.exit_code == 0
    assert f"revoked {key_id}" in revoked.output
    with pytest.raises(PermissionDenied):
        _authenticate(home, secret)
    assert "acme" not in runner.invoke(app, ["keys", "list"]).output
    assert "acme" in runner.invoke(app, ["keys", "list", "--revoked"]).output


def test_errors_exit_1_with_the_message(home: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["keys", "revoke", "no-such-key"])
    assert missing.exit_code == 1
    assert "does not exist" in missing.output
    bad = runner.invoke(app, ["keys", "create", "--tenant", "x" * 200])
    assert bad.exit_code == 1
    assert "scope.tenant" in bad.output


def test_a_read_only_key_is_created_and_listed_as_such(home: Path) -> None:
    runner = CliRunner()
    created = runner.invoke(app, ["keys", "create", "--tenant", "acme", "--read-only"])
    assert created.exit_code == 0, created.output
    secret = next(w for w in created.output.split() if w.startswith("sdm_"))

    async def read_only() -> bool:
        async with await Memory.open(f"sqlite:///{home / 'sedimem.db'}") as memory:
            return (await memory.keys.authenticate(secret)).read_only

    assert asyncio.run(read_only()) is True
    assert "read-only" in runner.invoke(app, ["keys", "list", "--tenant", "acme"]).output
