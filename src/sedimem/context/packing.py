"""Pack ranked items of every tier into a token budget: the pure core of ``assemble``.

Steps (docs/context.md tells the same with examples):

1. Check the input; drop empty items, items of tiers whose share is 0, duplicates (same
   text with whitespace collapsed; the first in tier order, then rank order, is kept), and
   items whose ``relevance`` is under ``floor`` times the best relevance of all items, or
   that are ``unmatched`` (the relevance floor: a section holds what matches the query,
   not whatever exists).
2. Count each item's rendered line and each section's heading with the tokenizer.
3. Grant each tier tokens by its share; a tier needing less than its share leaves the rest
   to the tiers that need more, in proportion to their shares (:func:`quotas.grant`).
4. Fill each tier with whole items in rank order within its grant; the first pinned block
   that does not fit whole is truncated to fit (and reported).
5. Give the tokens still unused to the items left out, in tier order then rank order.
6. Render (the tiers named in ``time_ordered`` by their items' ``at``, oldest first),
   count the whole output exactly, and remove the last item of the lowest tier while the
   count is over the budget (joins can tokenize differently than parts).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime

from sedimem.context.models import (
    TIERS,
    AssembledContext,
    ContextFormat,
    ContextItem,
    ContextReport,
    DroppedItem,
    DropReason,
    IncludedItem,
    Tier,
    TierUsage,
    TruncatedItem,
)
from sedimem.context.quotas import base_quotas, grant, normalize_quotas
from sedimem.context.render import render_heading, render_line, render_markdown, render_messages
from sedimem.context.selection import Candidate, TierPlan
from sedimem.context.tokens import Tokenizer, default_tokenizer, sanitize
from sedimem.errors import ValidationError
from sedimem.limits import MAX_BUDGET_TOKENS

__all__ = ["MAX_BUDGET_TOKENS", "pack"]


_RECOUNT = "removed after the exact recount of the rendered output"


def pack(
    sections: Mapping[str, Sequence[ContextItem]],
    budget_tokens: int,
    *,
    quotas: Mapping[str, float] | None = None,
    format: ContextFormat = "markdown",
    tokenizer: Tokenizer | None = None,
    floor: float = 0.0,
    floored: Collection[Tier] = TIERS,
    time_ordered: Collection[Tier] = (),
) -> AssembledContext:
    """Pack ``sections`` (tier -> items, best first) into at most ``budget_tokens`` tokens.

    ``sections`` keys are tiers (``blocks``, ``working``, ``procedures``, ``facts``,
    ``episodes``); a missing tier is empty. ``quotas`` overrides the default shares per tier.
    ``format`` is ``"markdown"`` (``text``) or ``"messages"`` (one system message per
    section). ``tokenizer`` defaults to the offline ``cl100k_base``. ``floor`` (0..1): items
    of the tiers in ``floored`` whose ``relevance`` is below ``floor`` x the best relevance
    of all items are left out, and so are their ``unmatched`` items. The tiers in
    ``time_ordered`` are rendered oldest first (by ``at``) instead of best first.
    """
    budget = _check_budget(budget_tokens)
    fmt = _check_format(format)
    shares = normalize_quotas(quotas)
    items = _check_sections(sections)
    if not 0.0 <= floor <= 1.0:
        raise ValidationError("floor", f"out of range: {floor}", allowed="0..1")
    counter = tokenizer if tokenizer is not None else default_tokenizer()

    plans = _plan(items, shares, fmt, counter)
    _apply_floor(plans, floor, frozenset(floored))
    grants = grant(budget, shares, {t: plans[t].demand for t in TIERS})
    for tier in TIERS:
        plans[tier].granted = grants[tier]
        plans[tier].fill(grants[tier], counter)
    left = budget - sum(plan.used for plan in plans.values())
    for tier in TIERS:
        if left > 0:
            plans[tier].leftover = plans[tier].fill(left, counter)
            left -= plans[tier].leftover
    _drop_pending(plans, budget)

    text, messages, used = _render_within(plans, fmt, budget, counter, frozenset(time_ordered))
    return AssembledContext(
        format=fmt,
        text=text,
        messages=messages,
        tokens_used=used,
        budget_tokens=budget,
        tokenizer=counter.name,
        report=_report(plans, shares, budget),
    )


def _check_budget(budget_tokens: object) -> int:
    allowed = f"an integer from 1 to {MAX_BUDGET_TOKENS:,}"
    if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int):
        raise ValidationError(
            "budget_tokens", f"must be an integer, got {budget_tokens!r}", allowed=allowed
        )
    if not 1 <= budget_tokens <= MAX_BUDGET_TOKENS:
        raise ValidationError("budget_tokens", f"out of range: {budget_tokens}", allowed=allowed)
    return budget_tokens


def _check_format(fmt: object) -> ContextFormat:
    if fmt == "markdown":
        return "markdown"
    if fmt == "messages":
        return "messages"
    raise ValidationError("format", f"unknown format {fmt!r}", allowed="markdown, messages")


def _check_sections(sections: object) -> dict[Tier, list[ContextItem]]:
    if not isinstance(sections, Mapping):
        raise ValidationError("sections", f"must be a mapping of tier to items, got {sections!r}")
    checked: dict[Tier, list[ContextItem]] = {tier: [] for tier in TIERS}
    for key, items in sections.items():
        if key not in TIERS:
            raise ValidationError("sections", f"unknown tier {key!r}", allowed=", ".join(TIERS))
        if isinstance(items, str) or not isinstance(items, Sequence):
            raise ValidationError(f"sections.{key}", "must be a sequence of ContextItem")
        for index, item in enumerate(items):
            if not isinstance(item, ContextItem):
                raise ValidationError(
                    f"sections.{key}[{index}]", f"must be a ContextItem, got {type(item).__name__}"
                )
        checked[key] = list(items)
    return checked


def _plan(
    items: Mapping[Tier, list[ContextItem]],
    shares: Mapping[Tier, float],
    fmt: ContextFormat,
    tokenizer: Tokenizer,
) -> dict[Tier, TierPlan]:
    seen: dict[str, str] = {}
    plans: dict[Tier, TierPlan] = {}
    for tier in TIERS:
        plan = TierPlan(
            tier=tier,
            heading_cost=tokenizer.count(render_heading(tier, fmt)),
            truncatable=tier == "blocks",
        )
        for item in items[tier]:
            text = sanitize(item.text).strip()
            line = render_line(text, item.label) if text else ""
            candidate = Candidate(tier, item, text, line, tokenizer.count(line) if text else 0)
            key = " ".join(text.split())
            if not text:
                candidate.drop(DropReason.EMPTY, "no text")
            elif shares[tier] <= 0:
                candidate.drop(DropReason.TIER_DISABLED, f"the {tier} quota share is 0")
            elif key in seen:
                candidate.drop(DropReason.DUPLICATE, f"same text as {seen[key]}")
            else:
                seen[key] = item.id
            plan.candidates.append(candidate)
        plans[tier] = plan
    return plans


def _apply_floor(plans: Mapping[Tier, TierPlan], floor: float, floored: frozenset[Tier]) -> None:
    for c in (c for p in plans.values() for c in p.candidates):
        if c.pending and c.item.unmatched and not c.item.kept and c.tier in floored:
            c.drop(DropReason.BELOW_FLOOR, "it matches the query by no word and no closer meaning")
    ranked = [c for p in plans.values() for c in p.candidates if c.item.relevance is not None]
    best = max((c.item.relevance or 0.0 for c in ranked if c.pending), default=0.0)
    if floor <= 0.0 or best <= 0.0:
        return
    bar = floor * best
    for candidate in ranked:
        relevance = candidate.item.relevance or 0.0
        exempt = candidate.item.kept or candidate.tier not in floored
        if candidate.pending and not exempt and relevance < bar:
            candidate.drop(
                DropReason.BELOW_FLOOR,
                f"relevance {relevance:.3f} is under {floor:g} x the best {best:.3f}",
            )


_NEVER = datetime.min.replace(tzinfo=UTC)


def _lines(plan: TierPlan, by_time: bool) -> list[str]:
    included = [c for c in plan.candidates if c.included]
    if by_time:
        included.sort(key=lambda c: c.item.at or _NEVER)  # stable: same time keeps rank
    return [c.line for c in included]


def _drop_pending(plans: Mapping[Tier, TierPlan], budget: int) -> None:
    for plan in plans.values():
        used = plan.used
        for candidate in plan.candidates:
            if not candidate.pending:
                continue
            alone = candidate.cost + plan.heading_cost
            if alone > budget:
                candidate.drop(
                    DropReason.OVER_BUDGET,
                    f"needs {alone} tokens with its heading; the budget is {budget}",
                )
            else:
                candidate.drop(
                    DropReason.OVER_QUOTA,
                    f"needs {candidate.cost} tokens; {plan.tier} was granted {plan.granted}, "
                    f"took {plan.leftover} left over and used {used}",
                )


def _render_within(
    plans: Mapping[Tier, TierPlan],
    fmt: ContextFormat,
    budget: int,
    tokenizer: Tokenizer,
    time_ordered: frozenset[Tier],
) -> tuple[str | None, list[dict[str, str]] | None, int]:
    """Render; while the exact count is over budget, drop the last item of the lowest tier."""
    while True:
        lines = {t: _lines(plans[t], t in time_ordered) for t in TIERS}
        if fmt == "markdown":
            text = render_markdown(lines)
            used = tokenizer.count(text)
            if used <= budget:
                return text, None, used
        else:
            messages = render_messages(lines)
            used = sum(tokenizer.count(m["content"]) for m in messages)
            if used <= budget:
                return None, messages, used
        victim = _last_included(plans)
        if victim is None:  # pragma: no cover - an empty rendering counts 0 tokens
            raise AssertionError("empty output over budget")
        victim.drop(DropReason.OVER_BUDGET, _RECOUNT)


def _last_included(plans: Mapping[Tier, TierPlan]) -> Candidate | None:
    for tier in reversed(TIERS):
        for candidate in reversed(plans[tier].candidates):
            if candidate.included:
                return candidate
    return None


def _report(
    plans: Mapping[Tier, TierPlan], shares: Mapping[Tier, float], budget: int
) -> ContextReport:
    base = base_quotas(budget, shares)
    all_candidates = [c for t in TIERS for c in plans[t].candidates]
    # The entries are built from values packing computed (typed, in range): constructed,
    # not validated again; an assembly reports tens of them.
    return ContextReport(
        tiers=[
            TierUsage(
                tier=t,
                share=shares[t],
                quota_tokens=base[t],
                granted_tokens=plans[t].granted,
                leftover_tokens=plans[t].leftover,
                used_tokens=plans[t].used,
                included=sum(1 for c in plans[t].candidates if c.included),
                dropped=sum(1 for c in plans[t].candidates if not c.included),
            )
            for t in TIERS
        ],
        included=[
            IncludedItem.model_construct(
                id=c.item.id,
                tier=c.tier,
                tokens=c.cost,
                score=c.item.score,
                truncated=c.original_tokens is not None,
                text=c.item.text,
            )
            for c in all_candidates
            if c.included
        ],
        dropped=[
            DroppedItem.model_construct(
                id=c.item.id,
                tier=c.tier,
                tokens=c.cost,
                score=c.item.score,
                reason=c.reason or DropReason.OVER_QUOTA,
                detail=c.detail,
                excerpt=_excerpt(c.item.text),
            )
            for c in all_candidates
            if not c.included
        ],
        truncated=[
            TruncatedItem.model_construct(
                id=c.item.id,
                tier=c.tier,
                original_tokens=c.original_tokens,
                kept_tokens=c.kept_tokens,
            )
            for c in all_candidates
            if c.included and c.original_tokens is not None
        ],
    )


#: How much of a dropped item's text its report entry shows.
_EXCERPT_CHARS = 200


def _excerpt(text: str) -> str:
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 1] + "\u2026"
