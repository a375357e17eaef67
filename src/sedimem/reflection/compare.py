"""Which features make an outcome more (or less) likely: Fisher's exact test per feature,
Benjamini-Hochberg across the family, a minimum lift, and findings with evidence.

A *feature* is anything an episode has or has not: an action sequence, a task type, a
word of its outcome details. For a feature present in ``n`` of ``N`` episodes, ``k`` of
which had the target outcome (``K`` of ``N`` overall), the finding's rate is ``k / n``,
the baseline ``K / N`` and the rate without it ``(K - k) / (N - n)``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeVar

from sedimem.reflection.models import ConfidenceMethod, Finding, FindingKind
from sedimem.reflection.settings import ReflectionSettings
from sedimem.reflection.stats import LogFactorials, benjamini_hochberg, hypergeom_sf
from sedimem.reflection.table import EpisodeTable, Sequence_
from sedimem.types.longterm import Outcome

__all__ = [
    "Candidate",
    "Contrast",
    "Describer",
    "Direction",
    "Scored",
    "actions_label",
    "cap",
    "collect",
    "enough_lift",
    "finish",
    "rank_key",
    "sequence_candidates",
    "score_candidates",
]

K = TypeVar("K", bound=Hashable)
Direction = Literal["more", "less"]
MAX_ALIASES = 5
Describer = Callable[["Contrast", Direction], str]


def collect(features: Iterable[Iterable[K]]) -> dict[K, list[int]]:
    """Feature -> the rows (ascending) that have it."""
    rows: dict[K, list[int]] = {}
    for row, keys in enumerate(features):
        for key in keys:
            found = rows.get(key)
            if found is None:
                rows[key] = [row]
            else:
                found.append(row)
    return rows


def actions_label(actions: Sequence_) -> str:
    return " > ".join(actions)


@dataclass(frozen=True, slots=True)
class Candidate:
    feature: str  # "actions", "task_type" or "term"
    label: str  # human form: "build > test", "deploy", "timeout"
    rows: list[int]
    size: int = 1  # actions in the sequence
    aliases: tuple[str, ...] = ()  # other features found in exactly the same episodes

    @property
    def subject(self) -> str:
        return f"{self.feature}: {self.label}"


def sequence_candidates(
    table: EpisodeTable, settings: ReflectionSettings
) -> tuple[list[Candidate], dict[Sequence_, list[int]]]:
    """Action sequences with enough support. Sequences found in exactly the same episodes
    (``build``, ``build > test``, ``build > test > ship`` when ``build`` is always followed
    by the rest) are one candidate: the longest (alphabetically first among equals), the
    others named in its ``aliases``."""
    same: dict[tuple[int, ...], list[Sequence_]] = {}
    for gram, rows in collect(table.sequences).items():
        if len(rows) >= settings.min_support:
            same.setdefault(tuple(rows), []).append(gram)
    kept: dict[Sequence_, list[int]] = {}
    aliases: dict[Sequence_, tuple[str, ...]] = {}
    for shared, grams in same.items():
        grams.sort(key=lambda g: (-len(g), g))
        kept[grams[0]] = list(shared)
        aliases[grams[0]] = tuple(actions_label(g) for g in grams[1:])
    ordered = sorted(kept.items(), key=lambda item: (-len(item[1]), item[0]))
    candidates = [Candidate("actions", actions_label(g), r, len(g), aliases[g]) for g, r in ordered]
    return candidates, kept


def enough_lift(rate: float, baseline: float, min_lift: float) -> bool:
    """The rate is ``min_lift`` times the baseline, or its complement ``min_lift`` times
    smaller than the baseline's (so rare and common outcomes are treated alike)."""
    if not 0.0 < baseline < 1.0 or rate <= baseline:
        return False
    return rate >= min_lift * baseline or (1.0 - rate) * min_lift <= 1.0 - baseline


@dataclass(frozen=True, slots=True)
class Contrast:
    """Counts of one candidate against the target outcome."""

    candidate: Candidate
    hits: int  # rows with the feature and the target outcome
    support: int  # rows with the feature
    total_hits: int  # rows with the target outcome
    total: int  # rows

    @property
    def rate(self) -> float:
        return self.hits / self.support

    @property
    def rate_without(self) -> float:
        rest = self.total - self.support
        return (self.total_hits - self.hits) / rest if rest else 0.0

    @property
    def baseline(self) -> float:
        return self.total_hits / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True)
class Scored:
    """A candidate that qualified on lift, with its p-value (q-value filled in later)."""

    contrast: Contrast
    direction: Direction
    p_value: float
    kind: FindingKind
    describe: Callable[[Contrast], str]
    target: Outcome


def score_candidates(
    table: EpisodeTable,
    candidates: Sequence[Candidate],
    target: Outcome,
    directions: Sequence[tuple[Direction, FindingKind]],
    describe: Describer,
    settings: ReflectionSettings,
    logs: LogFactorials,
) -> tuple[list[Scored], int]:
    """Score each candidate in each direction; return those that pass the lift threshold
    and how many hypotheses were considered (the BH family size)."""
    total = len(table)
    marked = [o is target for o in table.outcomes]
    total_hits = sum(marked)
    two_sided = len(directions) > 1
    tests: list[Scored] = []
    considered = 0
    for candidate in candidates:
        support = len(candidate.rows)
        if support < settings.min_support or support >= total:
            continue
        considered += 1
        hits = sum(1 for r in candidate.rows if marked[r])
        contrast: Contrast = Contrast(candidate, hits, support, total_hits, total)
        for direction, kind in directions:
            if direction == "more":
                if not enough_lift(contrast.rate, contrast.baseline, settings.min_lift):
                    continue
                p = hypergeom_sf(hits, support, total_hits, total, logs)
            else:
                if not enough_lift(1 - contrast.rate, 1 - contrast.baseline, settings.min_lift):
                    continue
                p = hypergeom_sf(support - hits, support, total - total_hits, total, logs)
            if two_sided:
                p = min(1.0, 2.0 * p)
            tests.append(Scored(contrast, direction, p, kind, _bind(describe, direction), target))
    return tests, considered


def _bind(describe: Describer, direction: Direction) -> Callable[[Contrast], str]:
    return lambda contrast: describe(contrast, direction)


def finish(
    table: EpisodeTable,
    tests: Sequence[Scored],
    family: int,
    extra_p: Sequence[float],
    settings: ReflectionSettings,
    task_type: str | None = None,
) -> tuple[list[Finding], list[float]]:
    """Adjust the p-values of ``tests`` plus ``extra_p`` (other tests of the same family)
    for a family of ``family`` hypotheses; turn the confident tests into findings. Returns
    the findings and the q-values of ``extra_p``."""
    p_values = [t.p_value for t in tests] + list(extra_p)
    # hypotheses that failed the lift threshold count with p = 1 (conservative)
    padding = max(0, family - len(p_values))
    q_values = benjamini_hochberg(p_values + [1.0] * padding)
    findings: list[Finding] = []
    for test, q in zip(tests, q_values, strict=False):
        confidence = 1.0 - q
        if confidence < settings.min_confidence:
            continue
        findings.append(_finding(table, test, q, confidence, settings, task_type))
    return findings, q_values[len(tests) : len(tests) + len(extra_p)]


def _finding(
    table: EpisodeTable,
    test: Scored,
    q: float,
    confidence: float,
    settings: ReflectionSettings,
    task_type: str | None,
) -> Finding:
    c = test.contrast
    if test.direction == "more":
        rows = [r for r in c.candidate.rows if table.outcomes[r] is test.target]
    else:
        rows = [r for r in c.candidate.rows if table.outcomes[r] is not test.target]
    return Finding(
        kind=test.kind,
        subject=c.candidate.subject,
        task_type=task_type,
        description=test.describe(c),
        confidence=confidence,
        confidence_method=ConfidenceMethod.FISHER_BH,
        effect=abs(c.rate - c.rate_without),
        evidence=table.evidence(rows, settings.max_evidence),
        metrics={
            "feature": c.candidate.feature,
            "target": test.target.value,
            "support": c.support,
            "hits": c.hits,
            "rate": c.rate,
            "rate_without": c.rate_without,
            "baseline_rate": c.baseline,
            "lift": c.rate / c.baseline if c.baseline else 0.0,
            "p_value": test.p_value,
            "q_value": q,
            "same_episodes_as": "; ".join(c.candidate.aliases[:MAX_ALIASES]) or None,
        },
    )


def cap(name: str, findings: list[Finding], limit: int, omitted: dict[str, int]) -> list[Finding]:
    """The first ``limit`` findings; how many were left out is noted in ``omitted``."""
    if len(findings) > limit:
        omitted[name] = len(findings) - limit
    return findings[:limit]


def rank_key(finding: Finding) -> tuple[float, int, str]:
    """Strongest first: confidence x effect, then more evidence, then by subject."""
    return (-finding.confidence * finding.effect, -finding.evidence.total, finding.subject)
