"""Token-budgeted context assembly: pack ranked memories of every tier into a prompt.

:func:`pack` is the pure core (no stores): it takes each tier's items, best first, and
returns an :class:`AssembledContext` whose rendered output never exceeds the budget, counted
exactly with the tokenizer, with a report of what was included, dropped and truncated.
"""

from sedimem.context.models import (
    TIERS,
    AssembledContext,
    ContextFormat,
    ContextItem,
    ContextMessage,
    ContextReport,
    DroppedItem,
    DropReason,
    IncludedItem,
    Tier,
    TierUsage,
    TruncatedItem,
)
from sedimem.context.packing import MAX_BUDGET_TOKENS, pack
from sedimem.context.quotas import DEFAULT_QUOTAS, normalize_quotas
from sedimem.context.tokens import (
    DEFAULT_ENCODING,
    TiktokenTokenizer,
    Tokenizer,
    WhitespaceTokenizer,
    default_tokenizer,
)

__all__ = [
    "DEFAULT_ENCODING",
    "DEFAULT_QUOTAS",
    "MAX_BUDGET_TOKENS",
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
    "TiktokenTokenizer",
    "Tokenizer",
    "TruncatedItem",
    "WhitespaceTokenizer",
    "default_tokenizer",
    "normalize_quotas",
    "pack",
]
