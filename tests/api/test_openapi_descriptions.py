"""The published OpenAPI document describes every operation and every field, gives examples
for the main requests, and publishes the records' own limits (stated once, in the types)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from sedimem.api import create_app
from sedimem.api.routes.messages import MessagesIn
from sedimem.api.schemas import (
    EpisodeIn,
    EpisodePatch,
    FactIn,
    FactPatch,
    ProcedureIn,
    ProcedurePatch,
    TaskPut,
)
from sedimem.config import Settings
from sedimem.embed import HashEmbedder
from sedimem.memory import Memory
from sedimem.types.conversation import MessageFields
from sedimem.types.edits import EpisodeChanges, FactChanges, ProcedureChanges
from sedimem.types.longterm import Episode, Fact, Procedure
from sedimem.types.working import TaskState

_METHODS = {"get", "put", "post", "patch", "delete", "head", "options"}
#: What a JSON schema says about a value's limits.
_LIMITS = ("minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum",
           "exclusiveMaximum", "minItems", "maxItems")  # fmt: skip


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The document of the real app factory, as ``/openapi.json`` serves it."""

    async def build() -> dict[str, Any]:
        url = f"sqlite:///{tmp_path_factory.mktemp('described') / 'm.db'}"
        async with await Memory.open(url, embedder=HashEmbedder(64)) as memory:
            return create_app(memory, Settings()).openapi()

    return asyncio.run(build())


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in _METHODS:
                yield f"{method.upper()} {path}", operation


def _properties(schema: Any, where: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every property of ``schema`` and of the schemas nested in it (items, unions, maps)."""
    if isinstance(schema, dict):
        for name, prop in (schema.get("properties") or {}).items():
            yield f"{where}.{name}", prop
            yield from _properties(prop, f"{where}.{name}")
        for key, value in schema.items():
            if key not in ("properties", "examples", "example", "default"):
                yield from _properties(value, where)
    elif isinstance(schema, list):
        for value in schema:
            yield from _properties(value, where)


def _described(node: dict[str, Any]) -> bool:
    return bool(str(node.get("description") or "").strip())


def test_every_operation_and_field_is_described(document: dict[str, Any]) -> None:
    operations = dict(_operations(document))
    bare_operations = sorted(name for name, op in operations.items() if not _described(op))
    fields = [
        *(
            prop
            for name, schema in document["components"]["schemas"].items()
            for prop in _properties(schema, name)
        ),
        *(
            (f"{name} {param['in']}:{param['name']}", param)
            for name, op in operations.items()
            for param in op.get("parameters", [])
        ),
    ]
    bare_fields = sorted(name for name, node in fields if not _described(node))
    described_ops = len(operations) - len(bare_operations)
    described_fields = len(fields) - len(bare_fields)
    print(
        f"\noperations described: {described_ops}/{len(operations)}; "
        f"fields described (schema properties and parameters): {described_fields}/{len(fields)}"
    )
    # the document is not trivially small: the count covers the whole interface
    assert len(operations) >= 60
    assert len(fields) >= 700
    assert bare_operations == []
    assert bare_fields == []


def test_descriptions_are_not_summaries(document: dict[str, Any]) -> None:
    """A description adds to the summary (FastAPI takes it from the route's docstring)."""
    for name, operation in _operations(document):
        assert operation.get("summary"), name
        assert operation["description"].strip() != operation["summary"].strip(), name


@pytest.mark.parametrize(
    "schema",
    ["EpisodeIn", "FactIn", "RecallRequest", "ContextRequest", "MessagesIn", "KvPut"],
)
def test_the_main_requests_have_examples(document: dict[str, Any], schema: str) -> None:
    examples = document["components"]["schemas"][schema]["examples"]
    assert examples
    properties = document["components"]["schemas"][schema]["properties"]
    for example in examples:
        assert set(example) <= set(properties), schema


@pytest.mark.parametrize(
    ("body", "example"),
    [
        (EpisodeIn, 0),
        (FactIn, 0),
        (MessagesIn, 0),
    ],
)
def test_the_examples_are_valid_requests(body: type[BaseModel], example: int) -> None:
    extra = body.model_config.get("json_schema_extra")
    assert isinstance(extra, dict)
    sample = extra["examples"][example]  # type: ignore[index]
    assert body.model_validate(sample, strict=False)


def _limits(schema: dict[str, Any]) -> dict[str, Any]:
    """The limits a property states, wherever its optional form nests them."""
    found = {key: schema[key] for key in _LIMITS if key in schema}
    for branch in schema.get("anyOf", []):
        found |= _limits(branch)
    if isinstance(schema.get("items"), dict):
        found |= {f"items.{k}": v for k, v in _limits(schema["items"]).items()}
    return found


@pytest.mark.parametrize(
    ("body", "record", "except_"),
    [
        (EpisodeIn, Episode, set()),
        (FactIn, Fact, {"source_episode_ids"}),  # a write names at most so many sources
        (ProcedureIn, Procedure, set()),
        (TaskPut, TaskState, set()),
        (EpisodePatch, EpisodeChanges, set()),
        (FactPatch, FactChanges, set()),
        (ProcedurePatch, ProcedureChanges, set()),
        (EpisodePatch, Episode, set()),
    ],
)
def test_bodies_publish_the_records_limits_and_descriptions(
    body: type[BaseModel], record: type[BaseModel], except_: set[str]
) -> None:
    """A body's field that a record has states the record's limits (one source)."""
    mine = body.model_json_schema()["properties"]
    theirs = record.model_json_schema()["properties"]
    shared = (mine.keys() & theirs.keys()) - {"scope", "id"}
    assert shared
    for name in shared - except_:
        assert _limits(mine[name]) == _limits(theirs[name]), (body.__name__, name)
        assert theirs[name]["description"] in mine[name]["description"], (body.__name__, name)


def test_message_limits_are_the_types(document: dict[str, Any]) -> None:
    published = document["components"]["schemas"]["MessageFields"]["properties"]["content"]
    assert (
        published["maxLength"]
        == MessageFields.model_json_schema()["properties"]["content"]["maxLength"]
    )
