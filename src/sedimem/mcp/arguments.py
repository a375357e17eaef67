"""Argument types of the MCP tools: each carries its bounds and a description, which the SDK
turns into the tool's JSON schema (``minimum``/``maximum``, ``maxLength``, ``enum``...).

Tool signatures use these aliases, so a limit is stated once, here and in :mod:`.limits`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, Field

from sedimem.mcp import limits

__all__ = [
    "Agent",
    "AgentType",
    "Budget",
    "FromSession",
    "CheckpointId",
    "Confidence",
    "Importance",
    "K",
    "Label",
    "Metadata",
    "OptionalTime",
    "OutcomeName",
    "Project",
    "Query",
    "RecordId",
    "Session",
    "SessionFilter",
    "Steps",
    "TextList",
    "TierName",
    "Ttl",
    "User",
    "WorkingKey",
]

_PRINTABLE = r"^[^\x00-\x1f\x7f]+$"
_ScopeId = Annotated[
    str, Field(min_length=1, max_length=limits.MAX_SCOPE_CHARS, pattern=_PRINTABLE)
]
_NARROWED = " A field your API key fixes may be omitted or repeated, not changed."

Project = Annotated[
    _ScopeId | None,
    Field(
        description="Project the memory belongs to. Writes are filed under it; reads see "
        "this project's memories plus those filed under no project." + _NARROWED
    ),
]
User = Annotated[
    _ScopeId | None,
    Field(
        description="End user the memory is about. Memories naming a user are private to "
        "queries naming the same user; memories with no user are visible to every query."
        + _NARROWED
    ),
]
AgentType = Annotated[
    _ScopeId | None,
    Field(description="Kind of agent (e.g. 'planner'); procedures are kept per agent type."),
]
Agent = Annotated[
    _ScopeId | None,
    Field(
        description="Agent instance id. Reads see this agent's memories and shared ones."
        + _NARROWED
    ),
]
Session = Annotated[
    _ScopeId,
    Field(description="Session id: working memory (keys, scratchpad, checkpoints) is per session."),
]
SessionFilter = Annotated[
    _ScopeId | None,
    Field(
        description="Session id. Writes are filed under it (as provenance); reads see "
        "everything its agent and user see, from every session (from_session narrows)."
    ),
]
FromSession = Annotated[
    _ScopeId | None,
    Field(description="Only memories recorded in this session (default: from every session)."),
]

Query = Annotated[
    str,
    Field(
        min_length=1,
        max_length=limits.MAX_QUERY_CHARS,
        description="What to look for, in natural language (matched by meaning and keywords).",
    ),
]
K = Annotated[
    int,
    Field(
        ge=1, le=limits.MAX_K, description=f"How many hits to return per tier (1..{limits.MAX_K})."
    ),
]
Budget = Annotated[
    int,
    Field(
        ge=1,
        le=limits.MAX_BUDGET_TOKENS,
        description=f"Most tokens the assembled context may take (1..{limits.MAX_BUDGET_TOKENS}); "
        "it never exceeds this.",
    ),
]
Importance = Annotated[
    float,
    Field(ge=0.0, le=1.0, description="How much this matters, 0 (trivia) .. 1 (critical)."),
]
Confidence = Annotated[
    float,
    Field(ge=0.0, le=1.0, description="How sure you are the fact is true, 0..1."),
]
Ttl = Annotated[
    float,
    Field(
        gt=0,
        le=limits.MAX_TTL_SECONDS,
        description=f"Seconds until the key expires (0 < ttl <= {limits.MAX_TTL_SECONDS}). "
        "Omit it to keep the key for the life of the session.",
    ),
]
WorkingKey = Annotated[
    str,
    Field(
        min_length=1,
        max_length=limits.MAX_KEY_CHARS,
        description=f"Working-memory key (1..{limits.MAX_KEY_CHARS} characters, not starting "
        "with '__', which is reserved).",
    ),
]
Label = Annotated[str, Field(min_length=1, max_length=limits.MAX_LABEL_CHARS)]
RecordId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=limits.MAX_ID_CHARS,
        description="A record id from an earlier result.",
    ),
]
CheckpointId = Annotated[
    str,
    Field(
        min_length=1, max_length=limits.MAX_ID_CHARS, description="An id returned by `checkpoint`."
    ),
]
TextList = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=limits.MAX_ITEM_CHARS)]],
    Field(max_length=limits.MAX_ITEMS),
]
Steps = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=limits.MAX_ITEM_CHARS)]],
    Field(min_length=1, max_length=limits.MAX_ITEMS),
]
Metadata = Annotated[
    dict[str, Any],
    Field(
        max_length=limits.MAX_METADATA_KEYS,
        description=f"Free-form JSON attributes to keep with the record (at most "
        f"{limits.MAX_METADATA_KEYS} keys).",
    ),
]
OptionalTime = AwareDatetime | None
OutcomeName = Literal["success", "failure", "partial"]
TierName = Literal["episodic", "semantic", "procedural"]
