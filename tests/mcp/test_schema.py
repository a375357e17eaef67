"""The trimming of published input schemas."""

from __future__ import annotations

from sedimem.mcp.schema import compact_schema


def test_titles_null_branches_and_control_patterns_are_dropped() -> None:
    schema = {
        "title": "toolArguments",
        "type": "object",
        "properties": {
            "title": {"title": "Title", "type": "string"},  # a property named title stays
            "note": {
                "anyOf": [
                    {"type": "string", "minLength": 1, "maxLength": 5, "pattern": "^[^\\x00]*$"},
                    {"type": "null"},
                ],
                "default": None,
                "title": "Note",
            },
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "other": {"type": "string", "pattern": "^[a-z]+$"},
            "format": {"enum": ["text", "json"], "type": "string", "default": "text"},
            "meta": {"type": "object", "additionalProperties": True},
        },
        "$defs": {"Thing": {"description": "A docstring.", "properties": {}, "type": "object"}},
    }
    assert compact_schema(schema) == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "note": {"type": "string", "maxLength": 5},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "other": {"type": "string", "pattern": "^[a-z]+$"},
            "format": {"enum": ["text", "json"], "type": "string"},
            "meta": {"type": "object"},
        },
        "$defs": {"Thing": {"properties": {}, "type": "object"}},
    }
