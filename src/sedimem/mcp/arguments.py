"""Argument types of the MCP tools, each taken from the record types or the services' own
bounds (nothing is restated here): the SDK turns them into the tools' JSON schemas
(``maxLength``, ``minimum``/``maximum``, ``enum``...), which :mod:`.schema` then trims.

Scope fields carry no description: the server's instructions explain them once.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field

from sedimem.context.packing import MAX_BUDGET_TOKENS
from sedimem.longterm.arguments import MAX_K, MAX_QUERY_CHARS
from sedimem.scope import Identifier
from sedimem.types.longterm import MAX_ID_CHARS, Cardinality, FactValue, Importance, Outcome
from sedimem.types.text import Label, Text
from sedimem.working.codec import MAX_KEY_LENGTH
from sedimem.working.memory import MAX_TTL_SECONDS

__all__ = [
    "Agent",
    "AgentType",
    "Budget",
    "Cardinality",
    "FactValue",
    "Format",
    "Importance",
    "K",
    "Kind",
    "Label",
    "Metadata",
    "OptionalTime",
    "OutcomeName",
    "Project",
    "Query",
    "RecordId",
    "Session",
    "Text",
    "TextList",
    "Ttl",
    "User",
    "WorkingKey",
]

Project = Identifier | None
User = Identifier | None
AgentType = Identifier | None
Agent = Identifier | None
Session = Identifier | None

#: The three kinds of long-term record, as every tool names them.
Kind = Literal["episode", "fact", "procedure"]
OutcomeName = Literal[Outcome.SUCCESS, Outcome.FAILURE, Outcome.PARTIAL]

#: How a tool answers: text lines, or structured JSON (the instructions say so once).
Format = Literal["text", "json"]
Query = Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)]
K = Annotated[int, Field(ge=1, le=MAX_K, description="Hits per kind.")]
Budget = Annotated[
    int, Field(ge=1, le=MAX_BUDGET_TOKENS, description="Most tokens the context may take.")
]
RecordId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS)]
TextList = list[Text]
Ttl = Annotated[
    float,
    Field(gt=0, le=MAX_TTL_SECONDS, description="Seconds until the key expires; omit: never."),
]
WorkingKey = Annotated[str, Field(min_length=1, max_length=MAX_KEY_LENGTH)]
Metadata = Annotated[dict[str, Any], Field(description="JSON attributes kept with it.")]
OptionalTime = AwareDatetime | None
