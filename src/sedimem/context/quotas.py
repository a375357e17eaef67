"""Per-tier quota shares and how a budget is split among tiers by them.

A tier that needs less than its share gets what it needs; what it leaves flows to the tiers
that still need more, in proportion to their shares, until every tier is satisfied or the
budget is spent (max-min fair "water filling").
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

from sedimem.context.models import TIERS, Tier
from sedimem.errors import ValidationError

__all__ = ["DEFAULT_QUOTAS", "base_quotas", "grant", "normalize_quotas"]

DEFAULT_QUOTAS: Mapping[Tier, float] = MappingProxyType(
    {"blocks": 0.2, "working": 0.15, "procedures": 0.15, "facts": 0.2, "episodes": 0.3}
)
"""Default shares of the budget per tier (they sum to 1)."""


def normalize_quotas(quotas: Mapping[str, float] | None) -> dict[Tier, float]:
    """``quotas`` laid over :data:`DEFAULT_QUOTAS`, checked and scaled to sum to 1.

    A tier missing from ``quotas`` keeps its default share; a share of 0 disables the tier.
    """
    merged: dict[Tier, float] = dict(DEFAULT_QUOTAS)
    if quotas is None:
        return merged
    if not isinstance(quotas, Mapping):
        raise ValidationError(
            "quotas", f"must be a mapping of tier to share, got {type(quotas).__name__}"
        )
    allowed = ", ".join(TIERS)
    for key, value in quotas.items():
        if key not in TIERS:
            raise ValidationError("quotas", f"unknown tier {key!r}", allowed=allowed)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValidationError(f"quotas.{key}", f"must be a number, got {value!r}")
        if not math.isfinite(value) or value < 0:
            raise ValidationError(
                f"quotas.{key}", f"must be finite and >= 0, got {value!r}", allowed=">= 0"
            )
        merged[key] = float(value)
    total = math.fsum(merged.values())
    if total <= 0:
        raise ValidationError("quotas", "at least one tier needs a share > 0")
    return {tier: share / total for tier, share in merged.items()}


def base_quotas(budget: int, shares: Mapping[Tier, float]) -> dict[Tier, int]:
    """Each tier's own part of ``budget`` before any flow: ``floor(budget x share)``."""
    return {tier: math.floor(budget * shares[tier]) for tier in TIERS}


def grant(budget: int, shares: Mapping[Tier, float], demand: Mapping[Tier, int]) -> dict[Tier, int]:
    """Split ``budget`` tokens among tiers by ``shares``, never granting more than ``demand``.

    Tiers whose demand fits in their proportional part of what remains get their demand; the
    rest is recomputed among the others until none is satisfied; those then split what
    remains in proportion to their shares (largest remainders get the odd tokens, ties in
    tier order). Tiers with share 0 or demand 0 get 0. The grants never sum past ``budget``.
    """
    grants: dict[Tier, int] = dict.fromkeys(TIERS, 0)
    # Exact arithmetic: float rounding must never let the grants sum past the budget.
    weight = {t: Fraction(shares.get(t, 0.0)) for t in TIERS}
    active = [t for t in TIERS if weight[t] > 0 and demand.get(t, 0) > 0]
    remaining = budget
    while active:
        total = sum(weight[t] for t in active)
        satisfied = [t for t in active if demand[t] * total <= remaining * weight[t]]
        if not satisfied:
            break
        for tier in satisfied:
            grants[tier] = demand[tier]
            remaining -= demand[tier]
        active = [t for t in active if t not in satisfied]
    if not active:
        return grants
    total = sum(weight[t] for t in active)
    exact = {t: remaining * weight[t] / total for t in active}
    for tier in active:
        grants[tier] = math.floor(exact[tier])
    left = remaining - sum(grants[t] for t in active)
    by_remainder = sorted(active, key=lambda t: exact[t] - math.floor(exact[t]), reverse=True)
    for tier in by_remainder[:left]:
        grants[tier] += 1
    return grants
