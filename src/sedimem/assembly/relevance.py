"""How well each candidate of the assembly matches the question, on one scale for all tiers.

Search scores rank records within one tier; they cannot say whether the fifth fact matters
as much as the first episode. The relevance of a candidate is

    relevance = share of the question's weighted stems it holds
              + how far its cosine to the question rises above the pool's median cosine

The keyword match weighs each question stem by its BM25 idf over the pool of every tier's
candidates, so a word most candidates hold (a speaker's name, "like") counts for little.
The cosine (from the search's explanation; none when only keyword search found the record)
counts above the median of the pool's: embedders differ in their baseline (a static model
gives unrelated sentences about one person ~0.7), and what sets a record apart is how much
closer it is than the rest. Stems of the speakers the question names are not counted:
"What did Caroline research?" is matched by what holds "research". The packing floor
(:data:`FLOOR`) then keeps what comes near the best candidate of the whole assembly.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sedimem.assembly.question import Question
from sedimem.context.models import Tier
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.types.search import ScoreBreakdown

__all__ = ["FLOOR", "FLOORED", "Pool"]

#: A fact or procedure is left out when its relevance is under this share of the best
#: relevance of the whole assembly (episodes included).
FLOOR = 0.5
#: The tiers the floor applies to. Episodes are the evidence: each was found by the
#: search for this question, and a short turn ("Yes, it was Matt Patterson!") scores low
#: on any lexical or vector measure while it holds the answer; they are kept by rank.
FLOORED: tuple[Tier, ...] = ("procedures", "facts")


@dataclass(slots=True)
class Pool:
    """The question's stem weights over a pool of candidate texts."""

    weights: dict[str, float]
    held: list[frozenset[str]]
    baseline: float = 0.0
    """The median cosine of the candidates to the question."""

    @classmethod
    def of(
        cls,
        question: Question,
        texts: Sequence[str],
        analyzer: Analyzer,
        *,
        cosines: Iterable[float | None] = (),
        ignore: Iterable[str] = (),
    ) -> Pool:
        """Weigh ``question``'s stems over ``texts`` (stems of ``ignore`` count 0);
        ``cosines``: the candidates' cosines to the question, where known."""
        skip = {s for word in ignore for s in analyzer.terms(word)}
        stems = [s for s in question.stems if s not in skip]
        held = [frozenset(analyzer.terms(t)) for t in texts]
        n = len(held)
        weights: dict[str, float] = {}
        for stem in stems:
            df = sum(1 for h in held if stem in h)
            weights[stem] = math.log(1.0 + (n - df + 0.5) / (df + 0.5)) if n else 1.0
        known = [c for c in cosines if c is not None]
        return cls(weights, held, statistics.median(known) if known else 0.0)

    def touches(self, index: int, names: frozenset[str] = frozenset()) -> bool:
        """Whether candidate ``index`` holds a word of the question other than ``names``
        (stems), however common that word is among the candidates."""
        return any(s in self.weights and s not in names for s in self.held[index])

    def match(self, index: int) -> float:
        """The weighted share of the question's stems that candidate ``index`` holds."""
        total = sum(self.weights.values())
        if not total:
            return 0.0
        held = self.held[index]
        return sum(w for s, w in self.weights.items() if s in held) / total

    def relevance(self, index: int, explain: ScoreBreakdown | None) -> float:
        cosine = explain.vector if explain is not None else None
        closer = max(cosine - self.baseline, 0.0) if cosine is not None else 0.0
        return closer + self.match(index)
