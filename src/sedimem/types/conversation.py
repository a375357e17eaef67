"""Chat turns as agents have them, and what ingesting them did.

The limits are those of :mod:`sedimem.limits`; the REST and MCP schemas take them from
these types.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, StringConstraints

from sedimem.limits import (
    FUTURE_TOLERANCE_SECONDS,
    MAX_MESSAGE_CHARS,
    MAX_MESSAGE_ID_CHARS,
    MAX_MESSAGES,
)
from sedimem.types._base import Model
from sedimem.types.longterm import Fact
from sedimem.types.text import NO_NUL, Label

__all__ = [
    "FUTURE_TOLERANCE_SECONDS",
    "MAX_MESSAGES",
    "MAX_MESSAGE_CHARS",
    "IngestResult",
    "Message",
    "ModelUsage",
    "MessageFields",
    "Role",
]

#: Who spoke: the agent's user, the agent itself, its instructions, or a tool's output.
Role = Literal["user", "assistant", "system", "tool"]

MessageText = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_MESSAGE_CHARS, pattern=NO_NUL)
]


class MessageFields(BaseModel):
    """One chat turn's fields and limits (what an interface's schema publishes; plain
    pydantic, so a framework reports the offending nested field itself)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Role = Field(description="Who spoke: user, assistant, system or tool.")
    content: MessageText = Field(description=f"What was said (1..{MAX_MESSAGE_CHARS} characters).")
    name: Label | None = Field(
        default=None,
        description="The speaker's name (first-person statements are filed under it; "
        "default: the role).",
    )
    timestamp: AwareDatetime | None = Field(
        default=None,
        description="When it was said (default: now); at most "
        f"{int(FUTURE_TOLERANCE_SECONDS)} s in the future.",
    )
    id: (
        Annotated[
            str, StringConstraints(min_length=1, max_length=MAX_MESSAGE_ID_CHARS, pattern=NO_NUL)
        ]
        | None
    ) = Field(
        default=None,
        description="The message's own id: sending it again is a no-op. Without one, the "
        "turn is known by its scope owner, role, timestamp and content.",
    )


class Message(MessageFields, Model):
    """One chat turn (invalid input raises :class:`sedimem.ValidationError`)."""


class ModelUsage(Model):
    """What one piece of work asked of the configured model endpoint (the LLM extractor)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    requests: int = Field(default=0, ge=0, description="HTTP requests sent, retries included.")
    retries: int = Field(default=0, ge=0, description="Requests that retried an earlier one.")
    failures: int = Field(
        default=0, ge=0, description="Calls that failed after their retries (or were refused)."
    )
    prompt_tokens: int = Field(default=0, ge=0, description="Tokens sent, as the endpoint counted.")
    completion_tokens: int = Field(
        default=0, ge=0, description="Tokens generated, as the endpoint counted."
    )
    invalid_replies: int = Field(
        default=0, ge=0, description="Replies that were not valid JSON of the facts schema."
    )


class IngestResult(Model):
    """What one ingest did: the turns it filed and the facts extracted from them.

    ``status`` is ``done`` when extraction ran inline; a background ingest returns
    ``pending`` with its ``job_id`` at once (the turns are filed already) and its status
    route later answers with the same shape.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    status: Literal["pending", "running", "done", "failed"] = Field(
        default="done",
        description="`done` when extraction ran inline; a background ingest goes `pending`, "
        "`running`, then `done` or `failed`.",
    )
    job_id: str | None = Field(default=None, description="Set for a background ingest.")
    stored: list[str] = Field(
        default_factory=list, description="Episode ids of the turns filed by this call."
    )
    duplicates: list[str] = Field(
        default_factory=list, description="Episode ids of turns already filed (not re-read)."
    )
    inserted: list[str] = Field(default_factory=list, description="Ids of new facts.")
    reinforced: list[str] = Field(
        default_factory=list, description="Ids of facts already believed, counted again."
    )
    superseded: list[str] = Field(
        default_factory=list, description="Ids of facts a new value or an ending retired."
    )
    ended: list[str] = Field(
        default_factory=list,
        description="Ids of the closed versions recorded for facts the turns say ended.",
    )
    possible_conflicts: list[Fact] = Field(
        default_factory=list,
        description="Current facts of a subject and predicate that a new fact may contradict "
        "(the predicate is not declared single-valued): both are kept.",
    )
    error: str | None = Field(
        default=None, description="Why extraction failed (the turns stay filed)."
    )
    usage: ModelUsage | None = Field(
        default=None,
        description="Model calls and tokens the extraction took; unset when the extractor "
        "calls no model (the rule extractor).",
    )
    finished_at: datetime | None = Field(
        default=None, description="When a background ingest finished."
    )
