"""``SyncMemory`` is typed, and its types cannot drift from ``Memory``'s.

The blocking twins (``sedimem/sync/twins/``) are generated from the async services; the
tests regenerate them and compare, compare every public member's signature with its
original's, and run ``mypy --strict`` on a caller that passes wrong argument types.
"""

from __future__ import annotations

import importlib.util
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from sedimem.sync import SyncMemory, twins
from sedimem.sync.twin import Twin

ROOT = Path(__file__).resolve().parent.parent


def _generator() -> ModuleType:
    path = ROOT / "scripts/generate_sync.py"
    spec = importlib.util.spec_from_file_location("generate_sync", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()
# original class -> its twin
PAIRS: dict[type, type] = {}
for _spec, _twin in GENERATOR.SERVICES.items():
    _module, _name = _spec.split(":")
    PAIRS[getattr(importlib.import_module(_module), _name)] = getattr(twins, _twin)
PAIRS[Memory] = SyncMemory
TWIN_NAMES = {original.__name__: twin.__name__ for original, twin in PAIRS.items()}


def test_the_committed_twins_are_what_the_generator_writes() -> None:
    package = ROOT / "src/sedimem/sync/twins"
    committed = {p.name: p.read_text() for p in package.glob("*.py")}
    generated = GENERATOR.render()
    assert sorted(committed) == sorted(generated), (
        "a twin module is missing or left over: run `python scripts/generate_sync.py`"
    )
    for name, text in generated.items():
        assert committed[name] == text, (
            f"{name}: a service changed: run `python scripts/generate_sync.py` and commit it"
        )


def test_each_twin_lives_in_a_module_of_its_own() -> None:
    for twin_name, module in GENERATOR.MODULES.items():
        twin = getattr(twins, twin_name)
        assert twin.__module__ == f"sedimem.sync.twins.{module}"
    assert sorted(GENERATOR.MODULES) == sorted(GENERATOR.SERVICES.values()) == sorted(twins.__all__)


def _public(cls: type) -> dict[str, object]:
    return {
        name: inspect.getattr_static(cls, name)
        for name in dir(cls)
        if not name.startswith("_") and name not in ("aclose", "async_")
    }


def _returns(annotation: str) -> str:
    """The twin's return annotation for an original's: services become their twins,
    async iterators lists."""
    if annotation in TWIN_NAMES:
        return TWIN_NAMES[annotation]
    for prefix in ("AsyncIterator[", "AsyncGenerator["):
        if annotation.startswith(prefix):
            return f"builtins.list[{annotation.removeprefix(prefix).removesuffix(']')}]"
    return annotation


@pytest.mark.parametrize("original", list(PAIRS), ids=lambda c: c.__name__)
def test_every_public_member_has_a_twin_with_its_signature(original: type) -> None:
    twin = PAIRS[original]
    members = _public(original)
    mine = _public(twin)
    bound = {n for n, m in members.items() if not isinstance(m, staticmethod | classmethod)} | set(
        GENERATOR._instance_attributes(original)
    )
    if twin is not SyncMemory:  # (SyncMemory adds close and the context manager)
        assert set(mine) == bound, f"{twin.__name__} differs from {original.__name__}"
    for name, member in members.items():
        if isinstance(member, staticmethod) or (
            isinstance(member, classmethod) and original is not Memory
        ):
            continue
        assert name in mine, f"{original.__name__}.{name} has no blocking twin"
        if isinstance(member, property):
            assert isinstance(mine[name], property), name
            continue
        theirs = inspect.signature(getattr(original, name))
        ours = inspect.signature(getattr(twin, name))
        assert list(ours.parameters.values()) == list(theirs.parameters.values()), name
        if name not in ("open", "from_env"):  # Self: the twin's own class
            assert ours.return_annotation == _returns(theirs.return_annotation), name


async def test_every_attribute_of_an_open_memory_has_a_twin(tmp_path: Path) -> None:
    """Instance attributes (``memory.episodes``...) included: a service added to ``Memory``
    without a twin fails here."""
    async with await Memory.open(f"sqlite:///{tmp_path}/m.db", embedder=HashEmbedder(32)) as mem:
        for name in dir(mem):
            if name.startswith("_") or name == "aclose":
                continue
            assert hasattr(SyncMemory, name), f"Memory.{name} has no blocking twin"
            value = getattr(mem, name)
            twin = PAIRS.get(type(value))
            if twin is not None:
                shown = inspect.getattr_static(SyncMemory, name)
                assert isinstance(shown, property), name
                assert inspect.signature(shown.fget).return_annotation == twin.__name__  # type: ignore[arg-type]


def test_a_twin_runs_its_original(tmp_path: Path) -> None:
    with SyncMemory.open(f"sqlite:///{tmp_path}/s.db", embedder=HashEmbedder(32)) as memory:
        assert isinstance(memory, Twin)
        assert isinstance(memory.async_, Memory)
        worker = memory.consolidation_worker(["t"], 3600)  # started on the memory's loop
        worker.start()
        assert worker.running
        worker.stop()
        assert not worker.running
        assert memory.settings is memory.async_.settings


_CALLER = """
from sedimem.scope import Scope
from sedimem.sync import SyncMemory
from sedimem.types import Episode

with SyncMemory.open("sqlite:///unused.db") as memory:
    wm = memory.working(Scope(session="s"))
    wm.set({key}, "value", ttl_seconds={ttl})
    hits = memory.episodes.recall({query}, scope=Scope(), k=5)
    context = memory.assemble("q", Scope(), {budget})
    tokens: int = context.tokens_used
    episode: Episode = hits[0].record
"""


@pytest.mark.slow
def test_mypy_strict_refuses_wrong_argument_types(tmp_path: Path) -> None:
    def check(name: str, **values: str) -> subprocess.CompletedProcess[str]:
        path = tmp_path / f"{name}.py"
        path.write_text(textwrap.dedent(_CALLER.format(**values)))
        return subprocess.run(
            [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "c"), path],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp_path,
        )

    right = check("right", key='"k"', ttl="60.0", query='"a question"', budget="500")
    assert right.returncode == 0, right.stdout
    wrong = check("wrong", key="1", ttl='"soon"', query="42", budget='"many"')
    assert wrong.returncode == 1, wrong.stdout
    errors = [line for line in wrong.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 4, wrong.stdout
    assert '"set" of "SyncWorkingMemory" has incompatible type "int"' in wrong.stdout
    assert '"recall" of "SyncEpisodicMemory" has incompatible type "int"' in wrong.stdout
