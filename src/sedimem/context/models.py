"""What context packing takes (ranked items per tier) and what it returns (text + report)."""

from __future__ import annotations

from datetime import datetime
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
    BELOW_FLOOR = "below relevance floor"
    """It matches the query much less than the best item of the assembly does."""


class _Frozen(Model):
    # the attribute docstrings below are the fields' published descriptions
    model_config = ConfigDict(frozen=True, extra="forbid", use_attribute_docstrings=True)


class ContextItem(_Frozen):
    """One ranked candidate of a tier; the caller gives each tier's items best first."""

    id: str = Field(min_length=1)
    text: str
    score: float = 0.0
    label: str | None = None
    """Shown in bold before the text: a block's name, a working key, a procedure's name..."""
    relevance: float | None = None
    """How well it matches the query, comparable across tiers (None: not ranked by the
    query, like pinned blocks and working state, which the relevance floor never drops)."""
    kept: bool = False
    """Never dropped by the relevance floor (its relevance still sets the best one): a
    fact that describes the asker, or holds a word of the question."""
    unmatched: bool = False
    """Dropped by the relevance floor whatever the best relevance (unless ``kept``): it
    matches the query neither by a word nor by a meaning clearly closer than the rest's."""
    at: datetime | None = None
    """When it happened or became true; a time-ordered section is rendered by it."""


class IncludedItem(_Frozen):
    """A memory placed in the context."""

    id: str
    """The record's id (a block's name, a working key...)."""
    tier: Tier
    """The section it is in."""
    tokens: int
    """Tokens of the item's rendered line counted alone (bullet, label and text)."""
    score: float
    """Its rank score within the tier."""
    truncated: bool = False
    """Whether it was cut to fit (pinned blocks only)."""
    text: str = ""
    """What it says: the item's text as rendered (a cut block: all of it, of which the
    context holds the beginning), so a reader of the report sees more than an id."""


class DroppedItem(_Frozen):
    """A candidate memory left out of the context, and why."""

    id: str
    """The record's id."""
    tier: Tier
    """The section it would have been in."""
    tokens: int
    """Tokens its rendered line would have taken (0 for empty items)."""
    score: float
    """Its rank score within the tier."""
    reason: DropReason
    """Why it was left out."""
    detail: str = ""
    """More on the reason (e.g. which item it duplicates)."""
    excerpt: str = ""
    """The beginning of what it says (at most 200 characters)."""


class TruncatedItem(_Frozen):
    """A pinned block cut to fit what remained of its tier's grant."""

    id: str
    """The block's id."""
    tier: Tier
    """Its section (``blocks``)."""
    original_tokens: int
    """Tokens of the whole block's text."""
    kept_tokens: int
    """Tokens of the kept prefix of the text."""


class TierUsage(_Frozen):
    """How one tier used the budget."""

    tier: Tier
    """The tier."""
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
    """Items of the tier placed in the context."""
    dropped: int
    """Items of the tier left out."""


class ContextReport(_Frozen):
    """What was included and what was dropped, and why."""

    tiers: list[TierUsage]
    """Budget use per tier, in rendered order."""
    included: list[IncludedItem]
    """The items placed, in rendered order."""
    dropped: list[DroppedItem]
    """The candidates left out."""
    truncated: list[TruncatedItem]
    """The pinned blocks cut to fit."""


class AssembledContext(_Frozen):
    """The packed context: ``text`` (markdown) or ``messages``, never over ``budget_tokens``."""

    format: ContextFormat
    """``markdown`` (``text`` is set) or ``messages`` (``messages`` is set)."""
    text: str | None = None
    """The context as one markdown text."""
    messages: list[ContextMessage] | None = None
    """The context as chat messages: one system message per non-empty section."""
    tokens_used: int
    """Exact count of the rendered output: of ``text``, or the sum over the messages'
    contents (per-message chat-template overhead is model-specific and not counted)."""
    budget_tokens: int
    """The budget asked for."""
    tokenizer: str
    """The tokenizer the counts are exact for (e.g. ``cl100k_base``)."""
    report: ContextReport
    """What was included, dropped and truncated, per tier."""
