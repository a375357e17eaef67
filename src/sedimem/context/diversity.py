"""Maximal marginal relevance: an assembled section should not spend its budget on the same
memory told three times.

Items come ranked by relevance. :func:`diversify` re-orders them greedily: each next item is
the one with the best ``λ · relevance - (1 - λ) · similarity to the items already chosen``,
relevance being the item's score over the best score, similarity the overlap (Jaccard) of
their content words. With λ = :data:`MMR_LAMBDA` a near-copy of a chosen item (overlap 0.9)
yields to a distinct item scoring a little over half as much; items sharing a few words are
barely moved. Packing then fills the budget in this order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from sedimem.context.models import ContextItem
from sedimem.retrieval.terms import STOPWORDS

__all__ = ["MMR_LAMBDA", "diversify"]

MMR_LAMBDA = 0.6
#: Only the best this many items are re-ordered; the rest follow in rank order (they are
#: rarely packed, and the greedy pass costs the square of the items it looks at).
MMR_DEPTH = 30
_WORD = re.compile(r"\w+")


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower())) - STOPWORDS


def _bits(sets: Sequence[frozenset[str]]) -> list[int]:
    """Each set of words as the bits of an integer, one bit per distinct word: the overlap
    of two items is then an ``and`` and a bit count, a few times faster than a set's."""
    bit: dict[str, int] = {}
    return [sum(1 << bit.setdefault(w, len(bit)) for w in words) for words in sets]


def diversify(items: Sequence[ContextItem], *, weight: float = MMR_LAMBDA) -> list[ContextItem]:
    """``items`` (best first) re-ordered by maximal marginal relevance; scores unchanged."""
    if len(items) < 3 or weight >= 1.0:
        return list(items)
    if len(items) > MMR_DEPTH:
        return diversify(items[:MMR_DEPTH], weight=weight) + list(items[MMR_DEPTH:])
    top = max(item.score for item in items)
    scale = top if top > 0 else 1.0
    words = _bits([_words(item.text) for item in items])
    sizes = [w.bit_count() for w in words]
    value = [weight * item.score / scale for item in items]
    penalty = 1 - weight
    left = list(range(len(items)))
    chosen: list[int] = []
    # each item's value less its overlap with the closest chosen one (only ever lowered)
    worth = list(value)
    while left:
        # the best left, the first (best ranked) of equals: ``left`` stays in rank order
        at, best = 0, left[0]
        for j in range(1, len(left)):
            if worth[left[j]] > worth[best]:
                at, best = j, left[j]
        del left[at]
        chosen.append(best)
        mine, size = words[best], sizes[best]
        if not mine:
            continue  # overlaps nothing
        for i in left:
            shared = (mine & words[i]).bit_count()
            if shared:
                lowered = value[i] - penalty * (shared / (size + sizes[i] - shared))
                if lowered < worth[i]:
                    worth[i] = lowered
    return [items[i] for i in chosen]
