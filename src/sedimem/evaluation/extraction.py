"""Precision and recall of the offline extractor on labelled LoCoMo turns.

The labels (``data/extraction_labels.json``) hold only turn ids (``sample_id:dia_id``) and the
facts a reader expects from each turn; the turns' text, speaker and session time are read from
``locomo10.json`` at run time.

Matching rule: an extracted fact matches an expected one of the same turn when the subjects
are equal (case-insensitive), the predicates are equal, both end a fact or neither does, and
the objects overlap: both absent, or at least half of the content words of the shorter one
appear in the other (lower case, plural ``s`` dropped, stop words and the subject's own name
left out). Each expected fact matches at most one extracted fact (greedy, in order).
Precision = matched extracted / extracted; recall = matched expected / expected; date
accuracy = the share of matched pairs with an expected ``valid_from`` whose extracted
``valid_from`` falls on that day.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from sedimem.errors import ValidationError
from sedimem.evaluation.locomo import session_date
from sedimem.extraction import Statement, extract_statements

__all__ = [
    "Expected",
    "Outcome",
    "Turn",
    "load_labels",
    "load_turns",
    "objects_overlap",
    "report",
    "score",
]

_STOP = frozenset(
    "a an the my his her their our its of to in at for with and or on by from about this that "
    "these those some s".split()
)


@dataclass(frozen=True, slots=True)
class Expected:
    subject: str
    predicate: str
    object: str | None
    valid_from: str | None = None
    ends: bool = False


@dataclass(frozen=True, slots=True)
class Turn:
    turn_id: str
    speaker: str
    text: str
    at: datetime


@dataclass(slots=True)
class Outcome:
    """Counts and the mistakes, to print."""

    turns: int = 0
    extracted: int = 0
    expected: int = 0
    matched: int = 0
    dated: int = 0
    dated_right: int = 0
    false_positives: list[tuple[str, str]] = field(default_factory=list)
    misses: list[tuple[str, str]] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        precision = self.matched / self.extracted if self.extracted else 0.0
        recall = self.matched / self.expected if self.expected else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        return {
            "turns": float(self.turns),
            "extracted": float(self.extracted),
            "expected": float(self.expected),
            "matched": float(self.matched),
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "date_accuracy": round(self.dated_right / self.dated, 4) if self.dated else 0.0,
        }


def _words(text: str, subject: str) -> set[str]:
    own = {w.lower() for w in re.findall(r"[A-Za-z]+", subject)}
    out = set()
    for word in re.findall(r"[a-z0-9+]+", text.lower()):
        if word in _STOP or word in own:
            continue
        out.add(word[:-1] if len(word) > 3 and word.endswith("s") else word)
    return out


def objects_overlap(found: str | None, expected: str | None, subject: str) -> bool:
    """The object rule of the module docstring."""
    if found is None or expected is None:
        return found is None and expected is None
    a, b = _words(found, subject), _words(expected, subject)
    if not a or not b:
        return a == b
    return len(a & b) >= 0.5 * min(len(a), len(b))


def load_labels(path: Path | None = None) -> dict[str, list[Expected]]:
    """The labels shipped with the package (or those at ``path``), by turn id."""
    try:
        if path is None:
            raw = resources.files("sedimem.evaluation").joinpath("data/extraction_labels.json")
            doc = json.loads(raw.read_text())
        else:
            doc = json.loads(path.read_text())
        return {
            item["turn"]: [
                Expected(
                    f["subject"], f["predicate"], f.get("object"), f.get("valid_from"),
                    bool(f.get("ends", False)),
                )
                for f in item["facts"]
            ]
            for item in doc["turns"]
        }  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValidationError(
            "labels", f"cannot read {path or 'the packaged labels'}: {exc}"
        ) from exc


def load_turns(data: Path, wanted: Sequence[str]) -> dict[str, Turn]:
    """The wanted turns of ``locomo10.json``: speaker, text and session time."""
    try:
        items: list[dict[str, Any]] = json.loads(data.read_text())
    except (OSError, ValueError) as exc:
        raise ValidationError(
            "data", f"cannot read {data}: {exc}", allowed="locomo10.json"
        ) from exc
    want = set(wanted)
    found: dict[str, Turn] = {}
    for item in items:
        conv = item["conversation"]
        n = 1
        while f"session_{n}" in conv:
            at = session_date(conv[f"session_{n}_date_time"])
            for turn in conv[f"session_{n}"]:
                turn_id = f"{item['sample_id']}:{turn['dia_id']}"
                if turn_id in want:
                    found[turn_id] = Turn(turn_id, turn["speaker"], turn["text"], at)
            n += 1
    missing = sorted(want - found.keys())
    if missing:
        raise ValidationError("data", f"{len(missing)} labelled turns are not in {data}, "
                              f"first {missing[0]}", allowed="locomo10.json")  # fmt: skip
    return found


def _match(found: Statement, expected: Expected) -> bool:
    fact = found.fact
    return (
        (fact.subject or "").lower() == expected.subject.lower()
        and fact.predicate == expected.predicate
        and found.ends == expected.ends
        and objects_overlap(fact.object, expected.object, expected.subject)
    )


def _describe(subject: str | None, predicate: str | None, obj: str | None, ends: bool) -> str:
    return f"({subject}, {predicate}, {obj}){' ends' if ends else ''}"


def score(
    labels: dict[str, list[Expected]],
    turns: dict[str, Turn],
    extract: Callable[[Turn], list[Statement]] | None = None,
) -> Outcome:
    """Extract every labelled turn and compare with its labels (see the module docstring)."""
    run = extract or (lambda t: extract_statements(t.text, t.speaker, t.at))
    outcome = Outcome()
    for turn_id, expected in labels.items():
        outcome.turns += 1
        found = run(turns[turn_id])
        outcome.extracted += len(found)
        outcome.expected += len(expected)
        free = list(expected)
        for statement in found:
            pair = next((e for e in free if _match(statement, e)), None)
            fact = statement.fact
            if pair is None:
                text = _describe(fact.subject, fact.predicate, fact.object, statement.ends)
                outcome.false_positives.append((turn_id, text))
                continue
            free.remove(pair)
            outcome.matched += 1
            if pair.valid_from is not None:
                outcome.dated += 1
                outcome.dated_right += fact.valid_from.date().isoformat() == pair.valid_from
        for e in free:
            outcome.misses.append((turn_id, _describe(e.subject, e.predicate, e.object, e.ends)))
    return outcome


def report(data: Path, console: Console, *, labels: Path | None = None) -> dict[str, float]:
    """Score the extractor, print its mistakes and a table, and end with a JSON metrics line."""
    wanted = load_labels(labels)
    outcome = score(wanted, load_turns(data, list(wanted)))
    for turn_id, text in outcome.false_positives:
        console.print(f"wrong   {turn_id} {text}", highlight=False, markup=False)
    for turn_id, text in outcome.misses:
        console.print(f"missed  {turn_id} {text}", highlight=False, markup=False)
    metrics = outcome.metrics()
    table = Table("turns", "expected", "extracted", "matched", "precision", "recall", "F1",
                  "dates right", title="Offline extractor on labelled LoCoMo turns")  # fmt: skip
    table.add_row(
        *(f"{int(metrics[k])}" for k in ("turns", "expected", "extracted", "matched")),
        *(f"{metrics[k]:.3f}" for k in ("precision", "recall", "f1", "date_accuracy")),
    )
    console.print(table)
    console.print(json.dumps({"metrics": metrics}), soft_wrap=True, highlight=False)
    return metrics
