"""One tier's candidates while packing: what each costs, and filling a tier into its room."""

from __future__ import annotations

from dataclasses import dataclass, field

from sedimem.context.models import ContextItem, DropReason, Tier
from sedimem.context.render import TRUNCATION_MARK, render_line
from sedimem.context.tokens import Tokenizer

__all__ = ["Candidate", "TierPlan"]


@dataclass
class Candidate:
    """An item of a tier with its rendered line; ``included``/``reason`` record the outcome."""

    tier: Tier
    item: ContextItem
    text: str
    line: str
    cost: int
    included: bool = False
    reason: DropReason | None = None
    detail: str = ""
    original_tokens: int | None = None
    """Set when the item was truncated: tokens of its whole text."""
    kept_tokens: int = 0

    @property
    def pending(self) -> bool:
        return not self.included and self.reason is None

    def drop(self, reason: DropReason, detail: str = "") -> None:
        self.included = False
        self.reason = reason
        self.detail = detail


@dataclass
class TierPlan:
    """The candidates of one tier, best first, and the tokens granted to and used by it."""

    tier: Tier
    heading_cost: int
    candidates: list[Candidate] = field(default_factory=list)
    granted: int = 0
    leftover: int = 0
    truncatable: bool = False
    """Pinned blocks: the first block that does not fit whole is cut to fit."""

    @property
    def has_included(self) -> bool:
        return any(c.included for c in self.candidates)

    @property
    def used(self) -> int:
        lines = sum(c.cost for c in self.candidates if c.included)
        return self.heading_cost + lines if lines else 0

    @property
    def demand(self) -> int:
        """Tokens needed to include every pending candidate (with the heading if not yet paid)."""
        lines = sum(c.cost for c in self.candidates if c.pending)
        if not lines:
            return 0
        return lines if self.has_included else lines + self.heading_cost

    def fill(self, room: int, tokenizer: Tokenizer) -> int:
        """Include pending candidates, in rank order, that fit in ``room``; the tokens used.

        Whole items first (an item that does not fit is skipped, a later smaller one may
        fit); then, for a truncatable tier, the first still pending item is cut to fit.
        """
        spent = 0
        opened = self.has_included
        for candidate in self.candidates:
            if not candidate.pending:
                continue
            need = candidate.cost + (0 if opened else self.heading_cost)
            if need <= room - spent:
                candidate.included = True
                spent += need
                opened = True
        if self.truncatable:
            first = next((c for c in self.candidates if c.pending), None)
            heading = 0 if opened else self.heading_cost
            if first is not None and _truncate_into(first, room - spent - heading, tokenizer):
                spent += first.cost + heading
        return spent


def _truncate_into(candidate: Candidate, room: int, tokenizer: Tokenizer) -> bool:
    """Cut ``candidate``'s text so its line (with the mark) fits ``room``; False if it can't."""
    label = candidate.item.label
    overhead = tokenizer.count(render_line(TRUNCATION_MARK, label))
    budget = room - overhead
    while budget > 0:
        prefix = tokenizer.truncate(candidate.text, budget).rstrip()
        if not prefix:
            return False
        line = render_line(prefix + TRUNCATION_MARK, label)
        cost = tokenizer.count(line)
        if cost <= room:
            candidate.original_tokens = tokenizer.count(candidate.text)
            candidate.kept_tokens = tokenizer.count(prefix)
            candidate.line = line
            candidate.cost = cost
            candidate.included = True
            return True
        budget -= cost - room
    return False
