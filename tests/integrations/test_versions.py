"""The framework versions the integration pages say were tested are the extras' lower
bounds, and the versions installed here (the ones the tests ran with) meet them."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).parents[2]


def _lower_bounds() -> dict[str, Version]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    bounds: dict[str, Version] = {}
    for group in ("langgraph", "openai-agents", "dev"):
        for line in extras[group]:
            req = Requirement(line)
            for spec in req.specifier:
                if spec.operator == ">=":
                    bounds[req.name] = Version(spec.version)
    return bounds


@pytest.mark.parametrize(
    ("page", "packages"),
    [
        (
            "langgraph.md",
            {"langgraph", "langgraph-checkpoint", "langgraph-checkpoint-conformance"},
        ),
        ("openai-agents.md", {"openai-agents"}),
    ],
)
def test_tested_versions_are_the_lower_bounds(page: str, packages: set[str]) -> None:
    text = (ROOT / "docs" / "integrations" / page).read_text()
    tested = dict(re.findall(r"\*\*([a-z-]+) (\d+(?:\.\d+)+)\*\*", text))
    assert set(tested) == packages
    bounds = _lower_bounds()
    for name, stated in tested.items():
        assert Version(stated) == bounds[name], name
        assert Version(version(name)) >= bounds[name], name
