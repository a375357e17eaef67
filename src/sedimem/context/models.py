"""What context packing takes (ranked items per tier) and what it returns (text + report)."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import ConfigDict, Field

from sedimem.types._base import Model

__all__ = [
    "TIERS",
    "AssembledContext",
    "ContextFormat",
    "ContextItem",
    "ContextMessage",
    "ContextReport",
    "DropReason",
    "DroppedItem",
    "IncludedItem",
    "Tier",
    "TierUsage",
    "TruncatedItem",
]

Tier = Literal["blocks", "working", "procedures", "facts", "episodes"]
"""The sections of an assembled context, in the order they are rendered."""

TIERS: tuple[Tier, ...] = ("blocks", "working", "procedures", "facts", "episodes")

ContextFormat = Literal["markdown", "messages"]

ContextMessage = dict[str, str]
"""``{"role": "system", "content": ...}``: one chat message per non-empty section."""


class DropReason(StrEnum):
    """Why a candidate item is not in the assembled context."""

    DUPLICATE = "duplicate"
    """Its text (whitespace collapsed) equals an earlier item's, in tier then rank order."""
    EMPTY = "empty"
    """Its text is empty or whitespace only."""
    TIER_DISABLED = "tier disabled"
    """Its tier's quota share is 0."""
    OVER_QUOTA = "over quota"
    """It would fit in the budget alone, but not in what its tier was granted or left over."""
    OVER_BUDGET = "over budget"
    """It cannot fit in the budget at all, or was removed after the exact final recount."""


class _Frozen(Model):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ContextItem(_Frozen):
    """One ranked candidate of a tier; the caller gives each tier's items best first."""

    id: str = Field(min_length=1)
    text: str
    score: float = 0.0
    label: str | None = None
    """Shown in bold before the text: a block's name, a working key, a procedure's name..."""


class IncludedItem(_Frozen):
    id: str
    tier: Tier
    tokens: int
    """Tokens of the item's rendered line counted alone (bullet, label and text)."""
    score: float
    truncated: bool = False


class DroppedItem(_Frozen):
    id: str
    tier: Tier
    tokens: int
    """Tokens its rendered line would have taken (0 for empty items)."""
    score: float
    reason: DropReason
    detail: str = ""


class TruncatedItem(_Frozen):
    """A pinned block cut to fit what remained of its tier's grant."""

    id: str
    tier: Tier
    original_tokens: int
    """Tokens of the whole block's text."""
    kept_tokens: int
    """Tokens of the kept prefix of the text."""


class TierUsage(_Frozen):
    tier: Tier
    share: float
    """The normalised quota share (all shares sum to 1)."""
    quota_tokens: int
    """``budget_tokens x share``, rounded down: the tier's own part before any flow."""
    granted_tokens: int
    """What the tier was granted after unused shares flowed (step 3 of docs/context.md);
    the grants of all tiers sum to at most the budget."""
    leftover_tokens: int
    """Tokens the tier took in step 5 from what whole items left unused in other tiers."""
    used_tokens: int
    """Heading plus included lines, each counted alone (joins may merge a few tokens)."""
    included: int
    dropped: int


class ContextReport(_Frozen):
    tiers: list[TierUsage]
    included: list[IncludedItem]
    """In rendered order."""
    dropped: list[DroppedItem]
    truncated: list[TruncatedItem]


class AssembledContext(_Frozen):
    """The packed context: ``text`` (markdown) or ``messages``, never over ``budget_tokens``."""

    format: ContextFormat
    text: str | None = None
    messages: list[ContextMessage] | None = None
    tokens_used: int
    """Exact count of the rendered output: of ``text``, or the sum over the messages'
    contents (per-message chat-template overhead is model-specific and not counted)."""
    budget_tokens: int
    tokenizer: str
    report: ContextReport
