"""Evidence-retrieval metrics: recall@k (any / all) and NDCG@k with binary relevance."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["ndcg_at", "recall_all_at", "recall_any_at"]


def recall_any_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """1 if any relevant item is among the top ``k``, else 0."""
    return 1.0 if relevant & set(ranked[:k]) else 0.0


def recall_all_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    """The share of the relevant items found among the top ``k``."""
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def ndcg_at(ranked: Sequence[str], relevant: set[str], k: int) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, item in enumerate(ranked[:k]) if item in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0
