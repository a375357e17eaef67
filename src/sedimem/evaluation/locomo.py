"""LoCoMo, retrieval only: store every turn as an episode, ask every question, score evidence.

Protocol (no LLM): each conversation's turns become episodes in the conversation's own
project, dated by their session and carrying it as their ``session`` (provenance, as
conversation ingest files turns); each question of categories 1-4 is asked of that project
and the top k episodes are compared with the question's evidence turns. The headline
figures average over categories 1-4; each category is also reported on its own, and the
adversarial questions (category 5: about something the conversation does not say, their
evidence the turns that could mislead) are reported apart, never in the headline.

LoCoMo's category numbers, as its questions show them: 1 multi-hop (several evidence turns:
"What activities does Melanie partake in?"), 2 temporal ("When did ..."), 3 open-domain
(inference beyond the text: "Would Caroline likely ..."), 4 single-hop, 5 adversarial.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sedimem.errors import ValidationError
from sedimem.evaluation.metrics import ndcg_at, recall_all_at, recall_any_at
from sedimem.longterm.episodic import EpisodicMemory
from sedimem.longterm.search import Mode
from sedimem.scope import Scope
from sedimem.types.longterm import Episode

__all__ = [
    "CATEGORIES",
    "METRICS",
    "Conversation",
    "Question",
    "ask",
    "evaluate",
    "ingest",
    "load_locomo",
    "read_locomo",
    "session_date",
]

MODES: tuple[str, ...] = ("bm25", "vector", "hybrid")
CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
#: Categories averaged in the headline figures.
HEADLINE = (1, 2, 3, 4)
METRICS: tuple[str, ...] = (
    "recall@5_any",
    "recall@10_any",
    "recall@5_all",
    "recall@10_all",
    "ndcg@10",
)
_MODE_OF: dict[str, Mode] = {"bm25": "keyword", "vector": "vector", "hybrid": "hybrid"}
_DATE_FORMAT = "%I:%M %p on %d %B, %Y"


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    evidence: frozenset[str]
    category: int


@dataclass(slots=True)
class Conversation:
    sample_id: str
    turns: list[Episode] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def session_date(raw: str) -> datetime:
    try:
        return datetime.strptime(raw.strip(), _DATE_FORMAT).replace(tzinfo=UTC)
    except ValueError as exc:
        raise ValidationError("session date", f"cannot read {raw!r}", allowed=_DATE_FORMAT) from exc


def _turn_text(turn: dict[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    return f"{text} [shares a photo: {caption}]" if caption else text


def read_locomo(path: Path) -> list[dict[str, Any]]:
    """The dataset's JSON (:class:`ValidationError` naming ``data`` if it cannot be read)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ValidationError(
            "data", f"cannot read {path}: {exc}", allowed="locomo10.json"
        ) from exc
    if not isinstance(data, list):
        raise ValidationError("data", f"{path} is not a list of conversations")
    return data


def load_locomo(path: Path, *, tenant: str = "locomo") -> list[Conversation]:
    """Read the dataset; turns keep their dialogue id in ``metadata['dia_id']``."""
    data = read_locomo(path)
    conversations = []
    for item in data:
        conv = item["conversation"]
        scope = Scope(tenant=tenant, project=str(item["sample_id"]))
        result = Conversation(sample_id=str(item["sample_id"]))
        n = 1
        while f"session_{n}" in conv:
            when = session_date(conv[f"session_{n}_date_time"])
            session = scope.model_copy(update={"session": f"session-{n}"})
            for index, turn in enumerate(conv[f"session_{n}"]):
                result.turns.append(
                    Episode(
                        scope=session,
                        task_type="conversation",
                        description=_turn_text(turn),
                        occurred_at=when.replace(second=min(index, 59)),
                        metadata={"dia_id": turn["dia_id"], "session": n},
                    )
                )
            n += 1
        known = {t.metadata["dia_id"] for t in result.turns}
        for qa in item["qa"]:
            evidence = frozenset(e for e in qa.get("evidence", []) if e in known)
            if qa["category"] in CATEGORIES and evidence:
                result.questions.append(Question(qa["question"], evidence, qa["category"]))
        conversations.append(result)
    return conversations


async def ingest(
    memory: EpisodicMemory,
    conversations: Sequence[Conversation],
    progress: Callable[[str, int], None] | None = None,
) -> None:
    """Store every conversation's turns."""
    for conv in conversations:
        await memory.record_many(
            conv.turns, progress=None if progress is None else (lambda n: progress("ingest", n))
        )


async def ask(
    memory: EpisodicMemory,
    conversations: Sequence[Conversation],
    mode: str,
    progress: Callable[[str, int], None] | None = None,
) -> dict[str, float]:
    """Ask every question in one mode: ``metric`` over categories 1-4 and
    ``<category>.metric`` per category (adversarial included)."""
    sums: dict[int, dict[str, float]] = {c: dict.fromkeys(METRICS, 0.0) for c in CATEGORIES}
    counts = dict.fromkeys(CATEGORIES, 0)
    for conv in conversations:
        scope = conv.turns[0].scope.owner
        for question in conv.questions:
            hits = await memory.recall(question.text, scope=scope, k=10, mode=_MODE_OF[mode])
            ranked = [str(h.record.metadata["dia_id"]) for h in hits]
            relevant = set(question.evidence)
            row = sums[question.category]
            row["recall@5_any"] += recall_any_at(ranked, relevant, 5)
            row["recall@10_any"] += recall_any_at(ranked, relevant, 10)
            row["recall@5_all"] += recall_all_at(ranked, relevant, 5)
            row["recall@10_all"] += recall_all_at(ranked, relevant, 10)
            row["ndcg@10"] += ndcg_at(ranked, relevant, 10)
            counts[question.category] += 1
            if progress is not None:
                progress(mode, 1)
    metrics: dict[str, float] = {}
    headline = sum(counts[c] for c in HEADLINE)
    for name in METRICS:
        total = sum(sums[c][name] for c in HEADLINE)
        metrics[name] = round(total / headline, 4) if headline else 0.0
        for category, label in CATEGORIES.items():
            n = counts[category]
            metrics[f"{label}.{name}"] = round(sums[category][name] / n, 4) if n else 0.0
    for category, label in CATEGORIES.items():
        metrics[f"{label}.questions"] = float(counts[category])
    return metrics


async def evaluate(
    memory: EpisodicMemory,
    conversations: Sequence[Conversation],
    *,
    modes: Sequence[str] = MODES,
    progress: Callable[[str, int], None] | None = None,
) -> dict[str, float]:
    """Ingest every conversation, ask every question in each mode, return the metrics
    (``<mode>.<metric>`` and ``<mode>.<category>.<metric>``) and the wall time taken
    (``ingest_s``, ``<mode>.ms_per_question``: recall, query embedding included)."""
    begin = time.perf_counter()
    await ingest(memory, conversations, progress)
    metrics: dict[str, float] = {"ingest_s": round(time.perf_counter() - begin, 2)}
    asked = sum(len(c.questions) for c in conversations)
    for mode in modes:
        begin = time.perf_counter()
        for name, value in (await ask(memory, conversations, mode, progress)).items():
            metrics[f"{mode}.{name}"] = value
        elapsed = time.perf_counter() - begin
        metrics[f"{mode}.ms_per_question"] = round(elapsed * 1000 / asked, 2) if asked else 0.0
    headline = sum(1 for c in conversations for q in c.questions if q.category in HEADLINE)
    metrics["questions"] = float(headline)
    metrics["episodes"] = float(sum(len(c.turns) for c in conversations))
    return metrics
