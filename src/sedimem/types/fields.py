"""Fields every interface publishes, each with its limits and description stated once.

The records of :mod:`sedimem.types` describe their own fields; an interface's request
model takes a record's field with :func:`field_of` (limits, description, examples and
all) and the arguments no record holds (a query, ``k``, a token budget, a TTL) from the
aliases here. The numbers are those of :mod:`sedimem.limits`.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field, StringConstraints
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from sedimem.limits import (
    MAX_BUDGET_TOKENS,
    MAX_CHECKPOINT_DESCRIPTION_CHARS,
    MAX_COUNT,
    MAX_K,
    MAX_QUERY_CHARS,
    MAX_TTL_SECONDS,
)
from sedimem.scope import Identifier
from sedimem.types.text import NO_NUL

__all__ = [
    "BudgetTokens",
    "CheckpointDescription",
    "Hits",
    "QueryText",
    "REQUIRED",
    "SessionFilter",
    "StepCount",
    "TtlSeconds",
    "field_of",
]


#: ``field_of(..., default=REQUIRED)``: the copy has no default, whatever the source's.
REQUIRED: Any = PydanticUndefined


def field_of(model: type[BaseModel], name: str, **changes: Any) -> Any:
    """Field ``name`` of ``model`` (its limits, description and examples) for another
    model, with ``changes`` (keyword arguments of :func:`pydantic.Field`) applied: e.g.
    ``default=None`` for an optional copy, ``default=REQUIRED`` for a required one.

    Typed ``Any`` as :func:`pydantic.Field` is: it stands as a field's default.
    """
    source = model.model_fields[name]
    given: dict[str, Any] = {"description": source.description, "examples": source.examples}
    if source.default_factory is not None:
        given["default_factory"] = source.default_factory
    else:
        given["default"] = source.default
    if "default" in changes:  # a new default replaces the source's factory
        given.pop("default_factory", None)
    given.update(changes)
    if given.get("default") is PydanticUndefined:
        del given["default"]
    copy: FieldInfo = Field(**given)
    # the source's constraints, but those the changes restate
    replaced = {type(meta) for meta in copy.metadata}
    copy.metadata = [m for m in source.metadata if type(m) not in replaced] + copy.metadata
    return copy


#: A natural-language query: what to look for.
QueryText = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_QUERY_CHARS, pattern=NO_NUL),
    Field(
        description=f"What to look for, in plain words (1..{MAX_QUERY_CHARS} characters).",
        examples=["Where does Ana live?"],
    ),
]

#: How many hits a search returns (per tier).
Hits = Annotated[
    int,
    Field(ge=1, le=MAX_K, description=f"How many hits to return, best first (1..{MAX_K})."),
]

#: The token budget of an assembled context.
BudgetTokens = Annotated[
    int,
    Field(
        ge=1,
        le=MAX_BUDGET_TOKENS,
        description="The most tokens the assembled context may take (counted exactly with "
        f"the configured tokenizer; 1..{MAX_BUDGET_TOKENS}).",
        examples=[2000],
    ),
]

#: A working-memory key's own time to live (None: as long as the session).
TtlSeconds = Annotated[
    float | None,
    Field(
        gt=0,
        le=MAX_TTL_SECONDS,
        description="Seconds until the key expires on its own (at most a year); unset: it "
        "lives as long as the session.",
        examples=[3600],
    ),
]

#: "Only this session" (None: every session): a read from a session scope sees every
#: session of its owner.
SessionFilter = Annotated[
    Identifier | None,
    Field(
        description="Only memories recorded in this session (a scope's `session` does not "
        "narrow a read: memories outlive their session).",
    ),
]

#: A checkpoint's description.
CheckpointDescription = Annotated[
    str,
    StringConstraints(max_length=MAX_CHECKPOINT_DESCRIPTION_CHARS, pattern=NO_NUL),
    Field(description="What the checkpoint marks (shown when listing checkpoints)."),
]

#: A step counter of a task (steps done, steps in all).
StepCount = Annotated[int, Field(ge=0, le=MAX_COUNT)]
