"""Episodes prepared once for every analysis: outcomes, action sequences, words.

Actions are compared after case folding and whitespace collapsing. An episode's action
sequences are its contiguous n-grams of length 1..``max_sequence_length`` (each counted
once per episode). Its terms are the distinct content words (stop words, words shorter
than ``min_term_length`` and numbers left out) of its outcome details and lessons.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sedimem.errors import ValidationError
from sedimem.longterm.arguments import aware_timestamp
from sedimem.reflection.models import Evidence, OutcomeRate
from sedimem.reflection.settings import ReflectionSettings
from sedimem.reflection.stats import wilson_interval
from sedimem.retrieval.terms import STOPWORDS
from sedimem.types.longterm import Episode, Outcome

__all__ = ["EpisodeTable", "check_episodes", "check_time_range", "outcome_rate"]

Sequence_ = tuple[str, ...]

_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)


def check_episodes(episodes: object) -> list[Episode]:
    if isinstance(episodes, str | bytes) or not isinstance(episodes, Iterable):
        raise ValidationError("episodes", "must be a list of Episode records", allowed="Episode")
    items = list(episodes)
    for item in items:
        if not isinstance(item, Episode):
            raise ValidationError(
                "episodes", f"holds a {type(item).__name__}, not an Episode", allowed="Episode"
            )
    return items


def check_time_range(
    time_range: tuple[datetime, datetime] | None,
) -> tuple[datetime, datetime] | None:
    if time_range is None:
        return None
    if not isinstance(time_range, tuple | list) or len(time_range) != 2:
        raise ValidationError(
            "time_range", "must be a (start, end) pair", allowed="(aware datetime, aware datetime)"
        )
    start, end = time_range
    if aware_timestamp(end, "time_range") < aware_timestamp(start, "time_range"):
        raise ValidationError("time_range", "ends before it starts", allowed="start <= end")
    return start, end


def normalise_action(action: str) -> str:
    return " ".join(action.lower().split())


@dataclass(frozen=True, slots=True)
class EpisodeTable:
    """Episodes ordered oldest first (by ``occurred_at``, then id), with their features."""

    episodes: list[Episode]
    outcomes: list[Outcome]
    sequences: list[frozenset[Sequence_]]
    terms: list[frozenset[str]]

    @classmethod
    def build(cls, episodes: Sequence[Episode], settings: ReflectionSettings) -> EpisodeTable:
        ordered = sorted(episodes, key=lambda e: (e.occurred_at, e.id))
        longest = settings.max_sequence_length
        shortest_word = settings.min_term_length
        sequences: list[frozenset[Sequence_]] = []
        terms: list[frozenset[str]] = []
        for episode in ordered:
            actions = [a for a in map(normalise_action, episode.actions) if a]
            grams: set[Sequence_] = set()
            for size in range(1, min(longest, len(actions)) + 1):
                for start in range(len(actions) - size + 1):
                    grams.add(tuple(actions[start : start + size]))
            sequences.append(frozenset(grams))
            text = " ".join([episode.outcome_details, *episode.lessons_learned]).lower()
            terms.append(
                frozenset(
                    w for w in _WORD.findall(text) if len(w) >= shortest_word and w not in STOPWORDS
                )
            )
        return cls(ordered, [e.outcome for e in ordered], sequences, terms)

    def __len__(self) -> int:
        return len(self.episodes)

    def where(self, keep: Callable[[Episode], bool]) -> EpisodeTable:
        """The rows whose episode satisfies ``keep`` (features are shared, not rebuilt)."""
        rows = [i for i, e in enumerate(self.episodes) if keep(e)]
        if len(rows) == len(self.episodes):
            return self
        return EpisodeTable(
            [self.episodes[i] for i in rows],
            [self.outcomes[i] for i in rows],
            [self.sequences[i] for i in rows],
            [self.terms[i] for i in rows],
        )

    def evidence(self, rows: Iterable[int], limit: int) -> Evidence:
        """Evidence from row numbers: the most recent ``limit`` ids and the total."""
        ordered = sorted(rows, reverse=True)
        return Evidence(
            episode_ids=[self.episodes[i].id for i in ordered[:limit]], total=len(ordered)
        )


def outcome_rate(outcomes: Sequence[Outcome], task_type: str | None, z: float) -> OutcomeRate:
    total = len(outcomes)
    successes = sum(1 for o in outcomes if o is Outcome.SUCCESS)
    failures = sum(1 for o in outcomes if o is Outcome.FAILURE)
    low, high = wilson_interval(successes, total, z)
    return OutcomeRate(
        task_type=task_type,
        total=total,
        successes=successes,
        failures=failures,
        partials=total - successes - failures,
        success_rate=successes / total if total else 0.0,
        failure_rate=failures / total if total else 0.0,
        success_rate_low=low,
        success_rate_high=high,
    )
