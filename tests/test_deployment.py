"""The container files agree with the code: every ``SEDIMEM_*`` they set is a setting, the
extras they install exist, the files they copy are in the checkout, and the services are
wired as docs/deployment.md describes. (No container runtime runs here: the files are
parsed, not built.)"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel

from sedimem.config import Settings

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = (ROOT / "Dockerfile").read_text()


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "compose.yaml").read_text())
    return loaded


def _is_setting(name: str) -> bool:
    """``SEDIMEM_SERVER__PORT`` -> Settings.server.port exists."""
    assert name.startswith("SEDIMEM_")
    model: type[BaseModel] = Settings
    parts = name.removeprefix("SEDIMEM_").lower().split("__")
    for n, part in enumerate(parts):
        field = model.model_fields.get(part)
        if field is None:
            return False
        if n < len(parts) - 1:
            inner = field.annotation
            if not (isinstance(inner, type) and issubclass(inner, BaseModel)):
                return False
            model = inner
    return True


def _dockerfile_env() -> dict[str, str]:
    block = re.search(r"^ENV (.*?)(?=^\S)", DOCKERFILE, re.M | re.S)
    assert block is not None
    pairs = re.findall(r"(\w+)=(\S+)", block.group(1))
    return dict(pairs)


def test_every_sedimem_variable_is_a_setting(compose: dict[str, Any]) -> None:
    names = {n for n in _dockerfile_env() if n.startswith("SEDIMEM_")}
    for service in compose["services"].values():
        names |= {n for n in service.get("environment", {}) if n.startswith("SEDIMEM_")}
    assert {"SEDIMEM_WORKING_URL", "SEDIMEM_STORE_URL", "SEDIMEM_SERVER__WORKERS"} <= names
    assert [n for n in sorted(names) if not _is_setting(n)] == []
    assert not _is_setting("SEDIMEM_SERVER__NO_SUCH_THING")  # the check itself can fail


def test_the_image_installs_existing_extras_as_a_non_root_user() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    installed = re.search(r"sedimem-\*\.whl\)\"\s.*?\[([\w,]+)\]", DOCKERFILE, re.S)
    assert installed is not None
    assert set(installed.group(1).split(",")) == {"server", "redis", "postgres"}
    assert set(installed.group(1).split(",")) <= set(extras)
    users = re.findall(r"^USER (\S+)", DOCKERFILE, re.M)
    assert users
    assert users[-1] not in ("root", "0")
    for copied in re.findall(r"^COPY (?!--from)(.*) \S+$", DOCKERFILE, re.M):
        for path in copied.split():
            assert (ROOT / path).exists(), path
    env = _dockerfile_env()
    assert re.search(rf"^EXPOSE {env['SEDIMEM_SERVER__PORT']}$", DOCKERFILE, re.M)
    assert re.search(
        rf"HEALTHCHECK .*127\.0\.0\.1:{env['SEDIMEM_SERVER__PORT']}/healthz",
        (DOCKERFILE.replace("\\\n", " ")),
    )


def test_compose_wires_server_worker_redis_and_pgvector(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"sedimem", "worker", "redis", "postgres"}
    server, worker = services["sedimem"], services["worker"]
    assert server["image"] == worker["image"]
    assert server["command"][0] == "serve"
    assert worker["command"][0] == "worker"
    assert services["postgres"]["image"] == "pgvector/pgvector:pg16"
    assert "--appendonly" in services["redis"]["command"]
    for service in (server, worker):
        env = service["environment"]
        assert env["SEDIMEM_WORKING_URL"].startswith("redis://redis:")
        assert "@postgres:5432/" in env["SEDIMEM_STORE_URL"]
    assert set(server["depends_on"]) == {"redis", "postgres"}
    assert server["ports"] == ["127.0.0.1:8077:8077"]


def test_the_docs_say_the_container_files_are_not_built_in_ci() -> None:
    text = (ROOT / "docs" / "deployment.md").read_text()
    assert "not built in CI" in text
