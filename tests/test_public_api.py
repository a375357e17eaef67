"""The curated public surface, and the layer map of ``pyproject.toml`` applied in the test
run.

The layer map is written once, in pyproject's import-linter contracts (``make lint``); this
module reads it from there (and docs/architecture.md quotes it, checked here) rather than
restating it.
"""

import ast
import importlib
import pkgutil
import tomllib
from pathlib import Path

import sedimem

PACKAGE_ROOT = Path(sedimem.__file__).parent
PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
ARCHITECTURE = PYPROJECT.parent / "docs" / "architecture.md"


def _contracts() -> dict[str, dict[str, object]]:
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    return {contract["id"]: contract for contract in config["contracts"]}


def _layer_map() -> tuple[dict[str, int], list[set[str]]]:
    """Each top-level module's layer (higher: nearer the top), and the groups of ``|``
    siblings (independent: they never import each other)."""
    layers = _contracts()["layers"]["layers"]
    assert isinstance(layers, list)
    rank: dict[str, int] = {}
    independent: list[set[str]] = []
    for height, layer in enumerate(reversed(layers)):
        members = {m.strip().removeprefix("sedimem.") for m in layer.replace("|", ":").split(":")}
        for member in members:
            rank[member] = height
        if "|" in layer:
            independent.append(members)
    return rank, independent


LAYERS, INDEPENDENT = _layer_map()
INTERFACES = {
    str(m).removeprefix("sedimem.")
    for m in _contracts()["interfaces"]["modules"]  # type: ignore[attr-defined]
}


def test_all_names_exist_and_are_sorted() -> None:
    for name in sedimem.__all__:
        assert hasattr(sedimem, name), name
    assert len(set(sedimem.__all__)) == len(sedimem.__all__)
    public = {n for n in dir(sedimem) if not n.startswith("_")}
    # every public name of the package is listed (subpackages are reachable, not exported)
    modules = {n for n in public if type(getattr(sedimem, n)).__name__ == "module"}
    assert public - modules == set(sedimem.__all__)
    assert issubclass(sedimem.ValidationError, sedimem.SedimemError)
    assert sedimem.__version__


def test_every_error_is_drawn_in_the_hierarchy() -> None:
    from sedimem import errors

    doc = errors.__doc__ or ""
    for name in errors.__all__:
        assert name in doc, f"{name} missing from errors.py's docstring"
        assert issubclass(getattr(errors, name), errors.SedimemError)


def _first_party_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("sedimem."))
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.startswith("sedimem.")
        ):
            found.add(node.module)
    return {name.split(".")[1] for name in found}


def test_imports_point_down_only() -> None:
    problems = []
    for path in PACKAGE_ROOT.rglob("*.py"):
        rel = path.relative_to(PACKAGE_ROOT)
        top = rel.parts[0].removesuffix(".py")
        if top == "__init__":
            continue
        assert top in LAYERS, f"{rel}: module not placed in a layer of pyproject.toml"
        for target in _first_party_imports(path):
            assert target in LAYERS, f"{rel} imports unplaced sedimem.{target}"
            if LAYERS[target] > LAYERS[top]:
                problems.append(f"{rel} imports sedimem.{target} (a higher layer)")
            if target != top and any({top, target} <= group for group in INDEPENDENT):
                problems.append(f"{rel}: independent siblings import each other ({target})")
            if top in INTERFACES and target in INTERFACES and target != top:
                problems.append(f"{rel}: interfaces must not import each other ({target})")
    assert problems == []


def test_the_architecture_doc_quotes_the_layer_map() -> None:
    """docs/architecture.md shows the contracts as pyproject.toml states them, verbatim."""
    text = PYPROJECT.read_text()
    start = text.index("[tool.importlinter]")
    section = text[start : text.index("\n[tool.", start + 1)].strip()
    assert f"```toml\n{section}\n```" in ARCHITECTURE.read_text()


def test_import_sedimem_needs_no_framework() -> None:
    import subprocess
    import sys

    code = (
        "import sys, sedimem, sedimem.integrations; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', 'agents')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_every_module_imports() -> None:
    optional = {"redis", "postgres", "fallback", "mcp", "api", "langgraph", "openai_agents"}
    for info in pkgutil.walk_packages([str(PACKAGE_ROOT)], prefix="sedimem."):
        if optional & set(info.name.split(".")):
            continue
        importlib.import_module(info.name)


def _modules_after(code: str) -> set[str]:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return set(out.split())


def test_import_sedimem_loads_no_dependency() -> None:
    """``import sedimem`` is cheap: the public names load on first use."""
    loaded = _modules_after("import sedimem")
    assert not {"pydantic", "numpy", "sedimem.memory", "sedimem.config"} & loaded
    assert {"sedimem.scope", "pydantic"} <= _modules_after("import sedimem; sedimem.Scope")


def test_cli_help_does_not_load_the_facade() -> None:
    """``sedimem --help`` builds the command tree only: no facade, no numpy, no server."""
    loaded = _modules_after("from sedimem.cli import app")
    assert not {"numpy", "pydantic", "sedimem.memory", "sedimem.server", "fastapi"} & loaded


def test_cli_help_imports_no_rendering_or_event_loop_modules() -> None:
    """``sedimem --help`` prints plain help: neither rich (markdown, syntax highlighting),
    nor asyncio, nor any part of the facade is imported for it."""
    code = (
        "import contextlib, io, sys\n"
        "sys.argv = ['sedimem', '--help']\n"
        "from sedimem.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as shown:\n"
        "    try:\n"
        "        main()\n"
        "    except SystemExit:\n"
        "        pass\n"
        "assert 'Commands' in shown.getvalue()"
    )
    loaded = _modules_after(code)
    heavy = {"rich", "asyncio", "numpy", "pydantic", "markdown_it", "pygments", "sedimem.memory"}
    assert not {m for m in loaded if m in heavy or m.split(".")[0] in heavy}
    assert "sedimem.cli.app" in loaded


def test_a_model_endpoint_failure_is_not_a_store_error() -> None:
    from sedimem import errors

    for name in ("ExtractionFailed", "ModelUnavailable"):
        error = getattr(errors, name)
        assert issubclass(error, errors.ModelError)
        assert not issubclass(error, errors.StoreError), name
