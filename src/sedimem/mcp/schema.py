"""The input schemas the tools publish, trimmed to what a model reads.

A host sends every tool's schema to the model on every turn, so its size is paid in tokens
each time. The SDK derives the schemas from the argument types (limits included); this
module removes what carries nothing for the model:

- ``title`` keywords (pydantic's ``"Project"`` for ``project``, ``"rememberArguments"``);
- the ``null`` branch and ``"default": null`` of optional arguments (an argument left out is
  unset; the server still accepts an explicit ``null``);
- the no-control-character ``pattern`` of text and ids, and ``minLength: 1``: the server
  enforces them and says so when it refuses a value;
- the default ``format`` (``text``; the instructions say what ``json`` does);
- ``additionalProperties: true`` (JSON Schema's default) and the docstrings of nested
  types (written for Python readers; their fields keep their descriptions).

Arguments are still validated by the SDK against the full types, so nothing is loosened.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compact_schema"]

#: How every "no NUL / no control character" pattern of the types begins (``NO_NUL``,
#: scope identifiers, block names).
_CONTROL_CHARACTERS = "^[^\\x00"


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without what the module docstring lists."""
    compact: dict[str, Any] = _node(schema)
    compact.get("properties", {}).get("format", {}).pop("default", None)
    for definition in compact.get("$defs", {}).values():
        definition.pop("description", None)
    return compact


def _node(node: Any) -> Any:
    if isinstance(node, list):
        return [_node(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "pattern" and str(value).startswith(_CONTROL_CHARACTERS):
            continue
        if (key, value) in (("default", None), ("minLength", 1), ("additionalProperties", True)):
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: _node(sub) for name, sub in value.items()}
        else:
            out[key] = _node(value)
    branches = out.get("anyOf")
    if isinstance(branches, list):
        kept = [b for b in branches if b != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(branches):
            del out["anyOf"]
            out = {**kept[0], **out}
        elif len(kept) < len(branches):
            out["anyOf"] = kept
    return out
