"""Argument types of the MCP tools, each taken from the record types and from
:mod:`sedimem.types.fields` (what REST publishes too: nothing is restated here): the SDK
turns them into the tools' JSON schemas (``maxLength``, ``minimum``/``maximum``, ``enum``...),
which :mod:`.schema` then trims.

Every argument is described, in a few words (tools/list is sent to the model on every turn);
the server's instructions explain the scope model once.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field

from sedimem.scope import Identifier
from sedimem.types.fields import BudgetTokens, Hits, QueryText, TtlSeconds
from sedimem.types.longterm import Cardinality, FactValue, Importance, Outcome
from sedimem.types.longterm import RecordId as RecordIdText
from sedimem.types.text import Label, Text
from sedimem.working.codec import MAX_KEY_LENGTH

__all__ = [
    "Agent",
    "AgentType",
    "Budget",
    "Cardinality",
    "FactValue",
    "Format",
    "Importance",
    "ImportanceArg",
    "K",
    "Kind",
    "Label",
    "Lessons",
    "Metadata",
    "OptionalTime",
    "OutcomeName",
    "Project",
    "Query",
    "RecordId",
    "Session",
    "Since",
    "Text",
    "TextList",
    "Ttl",
    "Until",
    "User",
    "WorkingKey",
]

Project = Annotated[Identifier | None, Field(description="Project it belongs to.")]
User = Annotated[Identifier | None, Field(description="User it is about (private to them).")]
AgentType = Annotated[Identifier | None, Field(description="Agent type (shared by instances).")]
Agent = Annotated[Identifier | None, Field(description="Agent instance.")]
Session = Annotated[Identifier | None, Field(description="Session it comes from.")]

#: The three kinds of long-term record, as every tool names them.
Kind = Literal["episode", "fact", "procedure"]
OutcomeName = Annotated[
    Literal[Outcome.SUCCESS, Outcome.FAILURE, Outcome.PARTIAL] | None,
    Field(description="episode: how it ended."),
]

#: How a tool answers: text lines, or structured JSON (the instructions say so once).
Format = Annotated[Literal["text", "json"], Field(description="Answer as text or json.")]
# the arguments REST takes too: one definition (limits, the NUL rule), REST's descriptions
Query = QueryText
K = Hits
Budget = BudgetTokens
#: A working-memory key's own lifetime; unset, the key lives as long as its session.
Ttl = TtlSeconds
RecordId = Annotated[RecordIdText, Field(description="The record's id.")]
TextList = list[Text]
WorkingKey = Annotated[str, Field(min_length=1, max_length=MAX_KEY_LENGTH)]
Metadata = Annotated[dict[str, Any], Field(description="JSON attributes kept with it.")]
OptionalTime = AwareDatetime | None
Since = Annotated[AwareDatetime | None, Field(description="From this time on.")]
Until = Annotated[AwareDatetime | None, Field(description="Up to this time.")]
Lessons = Annotated[list[Text] | None, Field(description="episode: lessons learned.")]
ImportanceArg = Annotated[Importance | None, Field(description="0..1: how much it matters.")]
