"""The wheel is the product: built, installed into a fresh virtualenv, used from elsewhere.

One module-scoped build and install (minutes: pip resolves the runtime dependencies), then
what a new user does first: ``sedimem demo``, the README's Python example (read from
README.md here, so the README cannot rot), and ``sedimem serve`` answering ``/healthz``, an
authenticated call, an offline ``/docs`` and an offline web inspector at ``/ui``. Every
command runs from a directory outside the checkout, with HTTP(S) proxies pointing at a
closed port so that no network call succeeds.
Deselect locally with ``-m 'not wheel'``.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest

import sedimem
from sedimem.testing import SedimemServer
from tests.fixtures.offline import external_references

pytestmark = [pytest.mark.wheel, pytest.mark.slow, pytest.mark.timeout(900)]

ROOT = Path(__file__).resolve().parents[1]
MAX_WHEEL_BYTES = 40 * 1024 * 1024
_CLOSED = "http://127.0.0.1:9"  # the discard port: nothing listens, so every request fails
OFFLINE = {"HTTP_PROXY": _CLOSED, "HTTPS_PROXY": _CLOSED, "ALL_PROXY": _CLOSED, "NO_PROXY": ""}
#: The installed wheel, never the checkout: a PYTHONPATH inherited from the test run (a
#: worktree's src/, say) would put the checkout before site-packages. Python ignores it empty.
WHEEL_ONLY = {"PYTHONPATH": ""}


def _run(command: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **WHEEL_ONLY, **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, (
        f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


def readme_example() -> str:
    """The first Python block of README.md."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    assert blocks, "README.md has no ```python block"
    return str(blocks[0])


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], cwd=out)
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (found,) = dist.glob("sedimem-*.whl")
    return found


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtualenv holding the wheel (not editable) and its runtime dependencies only."""
    place = tmp_path_factory.mktemp("venv")
    _run([sys.executable, "-m", "venv", str(place / "v")], cwd=place)
    python = place / "v" / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], cwd=place)
    return python


def test_wheel_and_sdist_are_built_with_license_notice_and_model(dist: Path, wheel: Path) -> None:
    assert wheel.name == f"sedimem-{sedimem.__version__}-py3-none-any.whl"
    assert wheel.stat().st_size <= MAX_WHEEL_BYTES
    assert list(dist.glob(f"sedimem-{sedimem.__version__}.tar.gz"))
    names = set(zipfile.ZipFile(wheel).namelist())
    info = f"sedimem-{sedimem.__version__}.dist-info"
    assert {f"{info}/licenses/LICENSE", f"{info}/licenses/NOTICE"} <= names
    model = "sedimem/embed/_model/"
    assert {model + n for n in ("model.safetensors", "tokenizer.json", "config.json")} <= names
    assert "sedimem/py.typed" in names
    ui = "sedimem/api/ui/static/"
    assert {ui + n for n in ("index.html", "app.js", "style.css", "views/facts.js")} <= names
    assert not any(n.startswith(("tests/", "benchmarks/")) for n in names)


def test_installed_package_is_the_wheel_not_the_checkout(venv: Path, tmp_path: Path) -> None:
    where = _run([str(venv), "-c", "import sedimem; print(sedimem.__file__)"], cwd=tmp_path)
    assert str(ROOT) not in where
    assert "site-packages" in where
    # no dev dependency came along
    missing = "import importlib.util as u; print([m for m in ('pytest', 'ruff') if u.find_spec(m)])"
    assert _run([str(venv), "-c", missing], cwd=tmp_path).strip() == "[]"


def test_demo_runs_offline(venv: Path, tmp_path: Path) -> None:
    sedimem_cli = venv.parent / "sedimem"
    env = {**OFFLINE, "SEDIMEM_HOME": str(tmp_path / "home")}
    out = _run([str(sedimem_cli), "demo"], cwd=tmp_path, env=env)
    assert out.strip()
    assert not (tmp_path / "home").exists()  # its own temporary home
    assert _run([str(sedimem_cli), "--version"], cwd=tmp_path, env=env).startswith("sedimem ")


def test_readme_example_runs_offline(venv: Path, tmp_path: Path) -> None:
    script = tmp_path / "readme_example.py"
    script.write_text(readme_example())
    env = {**OFFLINE, "SEDIMEM_HOME": str(tmp_path / "home")}
    out = _run([str(venv), str(script)], cwd=tmp_path, env=env)
    # session 2's context holds what session 1 learned: the fact, the episode, the lesson
    assert "Ana prefers trains" in out
    assert "book early" in out
    assert "in progress" not in out


async def test_serve_answers_health_an_authenticated_call_and_offline_docs(
    venv: Path, wheel: Path, tmp_path: Path
) -> None:
    _run([str(venv), "-m", "pip", "install", "--quiet", f"{wheel}[server]"], cwd=tmp_path)
    with SedimemServer(python=venv, env={**OFFLINE, **WHEEL_ONLY}) as server:
        key = server.printed_key
        assert key is not None, server.output
        async with httpx.AsyncClient(base_url=server.url, trust_env=False, timeout=60) as client:
            assert (await client.get("/healthz")).status_code == 200
            auth = {"Authorization": f"Bearer {key}"}
            created = await client.post(
                "/v1/episodes",
                headers=auth,
                json={"description": "Booked the train to Oslo", "outcome": "success"},
            )
            assert created.status_code == 201, created.text
            hits = await client.post("/v1/recall", headers=auth, json={"query": "Oslo train"})
            assert hits.status_code == 200, hits.text
            assert "Oslo" in hits.text
            assert (await client.post("/v1/recall", json={"query": "x"})).status_code == 401

            async def fetch(path: str) -> tuple[int, str, str]:
                response = await client.get(path)
                return response.status_code, response.headers["content-type"], response.text

            _, external = await external_references(fetch, "/docs")
            assert external == []

            # the web inspector: every page and module from the installed package, and a
            # sign-in form asking for the key
            fetched, external = await external_references(fetch, "/ui", scripts=True)
            assert external == []
            assert "/ui/static/views/facts.js" in fetched
            page = await client.get("/ui")
            assert 'type="password"' in page.text
            assert "API key" in page.text
