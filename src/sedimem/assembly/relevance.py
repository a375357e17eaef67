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

That floor is relative: when nothing matches the question well, half of a poor best is a
poor bar, and a user's facts about a car and tennis would answer "Does Maya still have a
cat?". So a fact or procedure must also match on its own (:meth:`Pool.stands_out`): hold a
word of the question, or be clearly closer in meaning than the pool's median, by more than
:data:`CLEARLY` times the median absolute deviation of the pool's cosines.
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

__all__ = ["CLEARLY", "FLOOR", "FLOORED", "SPREAD_SAMPLE", "Pool"]

#: A fact or procedure is left out when its relevance is under this share of the best
#: relevance of the whole assembly (episodes included).
FLOOR = 0.5
#: The tiers the floor applies to. Episodes are the evidence: each was found by the
#: search for this question, and a short turn ("Yes, it was Matt Patterson!") scores low
#: on any lexical or vector measure while it holds the answer; they are kept by rank.
FLOORED: tuple[Tier, ...] = ("procedures", "facts")
#: A fact or procedure that holds no word of the question is shown only when its cosine
#: exceeds the pool's median by more than this many median absolute deviations (MAD) of
#: the pool's cosines. The MAD is the spread of this pool on this embedder's scale, so the
#: bar needs no per-model constant. 2 MAD is about 1.35 standard deviations of a normal
#: spread (about the best tenth of the pool); chosen by that reasoning, not on a dataset.
CLEARLY = 2.0
#: The fewest cosines a pool needs for its spread to mean anything: with fewer (a store of
#: one fact: its MAD is 0, and nothing stands out of a pool of one), nothing is judged
#: unmatched by meaning and the relative floor alone decides.
SPREAD_SAMPLE = 5


@dataclass(slots=True)
class Pool:
    """The question's stem weights over a pool of candidate texts."""

    weights: dict[str, float]
    held: list[frozenset[str]]
    baseline: float = 0.0
    """The median cosine of the candidates to the question."""
    spread: float = 0.0
    """The median absolute deviation of those cosines from :attr:`baseline`."""
    measured: bool = False
    """Whether the pool holds enough cosines (:data:`SPREAD_SAMPLE`), not all equal, for
    :meth:`stands_out` to judge."""

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
        if not known:
            return cls(weights, held)
        baseline = statistics.median(known)
        spread = statistics.median(abs(c - baseline) for c in known)
        return cls(weights, held, baseline, spread, len(known) >= SPREAD_SAMPLE and spread > 0)

    def touches(self, index: int, names: frozenset[str] = frozenset()) -> bool:
        """Whether candidate ``index`` holds a word of the question other than ``names``
        (stems), however common that word is among the candidates."""
        return any(s in self.weights and s not in names for s in self.held[index])

    def stands_out(self, explain: ScoreBreakdown | None) -> bool:
        """Whether a candidate's cosine (from ``explain``) is clearly above the pool's
        median: by more than :data:`CLEARLY` times the pool's spread. A candidate found
        by keyword search alone (no cosine) does not; in a pool too small to measure a
        spread (:attr:`measured`), every candidate does (nothing can be told apart)."""
        if not self.measured:
            return True
        cosine = explain.vector if explain is not None else None
        return cosine is not None and cosine - self.baseline > CLEARLY * self.spread

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
