"""``serve`` refuses a guessable admin key (short, or copied from the docs) unless told."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from sedimem.config import ServerSettings, Settings
from sedimem.errors import ConfigurationError
from sedimem.server import check_admin_key


@pytest.mark.parametrize("key", ["change-me", "CHANGE-ME", "admin", "fifteen-chars!!"])
def test_a_short_or_example_admin_key_is_refused(key: str) -> None:
    with pytest.raises(ConfigurationError, match="SEDIMEM_ADMIN_KEY") as caught:
        check_admin_key(Settings(admin_key=SecretStr(key)))
    assert "openssl rand -hex 32" in str(caught.value)
    assert key not in str(caught.value)  # the key itself is never printed


def test_a_generated_key_no_key_or_an_explicit_allowance_passes() -> None:
    check_admin_key(Settings(admin_key=SecretStr("sixteen-chars-ok")))
    check_admin_key(Settings(admin_key=None))
    weak = Settings(
        admin_key=SecretStr("change-me"), server=ServerSettings(allow_weak_admin_key=True)
    )
    check_admin_key(weak)


def test_serve_exits_with_the_reason_before_listening(tmp_path: Path) -> None:
    env = {**os.environ, "SEDIMEM_HOME": str(tmp_path), "SEDIMEM_ADMIN_KEY": "change-me"}
    done = subprocess.run(
        [sys.executable, "-m", "sedimem", "serve", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert "is an example from the documentation" in done.stderr + done.stdout
    assert "serving on" not in done.stdout
