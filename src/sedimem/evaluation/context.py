"""Does the assembled context hold the answer? LoCoMo, ``ingest`` then ``assemble``.

Protocol (no LLM): each conversation is handed over as an agent would, with
:meth:`Memory.ingest` (every turn a ``user`` message named by its speaker, dated by its
session), into a fresh embedded store. For each question of categories 1-4 whose answer is
written, word for word, in one of its evidence turns, three contexts are built at each
budget and the question counts as answered by a context when the answer's words appear in
it, in order (lower case, punctuation as spaces, whitespace collapsed):

- ``assemble``: ``memory.assemble(question, scope, budget)``;
- ``bm25``: the conversation's raw turns ranked by BM25 (Okapi, k1 1.5, b 0.75, our
  stop words) and packed whole, best first, while they fit the budget;
- ``hybrid``: hybrid recall's top 50 turns, packed the same way.

Every context is counted with the same tokenizer. Conversations 0-4 are the half the
assembly was tuned on; 5-9 are reported apart and are the headline (nothing was chosen by
looking at them).
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from sedimem.context.tokens import Tokenizer, default_tokenizer
from sedimem.errors import ValidationError
from sedimem.evaluation.locomo import CATEGORIES, read_locomo, session_date
from sedimem.retrieval.terms import STOPWORDS
from sedimem.scope import Scope

__all__ = [
    "BUDGETS",
    "METHODS",
    "TUNED",
    "Dialogue",
    "Probe",
    "answered",
    "bm25_ranking",
    "load_dialogues",
    "normalize",
    "pack_lines",
    "parse_conversations",
    "report_context",
    "run_context_eval",
]

BUDGETS: tuple[int, ...] = (500, 1000, 2000)
METHODS: tuple[str, ...] = ("assemble", "bm25", "hybrid")
#: The conversations (by position in the file) rules and weights may be chosen on.
TUNED: frozenset[int] = frozenset(range(5))
_HYBRID_DEPTH = 50
_WORD = re.compile(r"\w+")
_NOT_WORD = re.compile(r"[\W_]+")


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    at: datetime
    session: int
    role: str | None = None
    """``user`` or ``assistant`` in the chat form (then ``speaker`` is the role, no name)."""


@dataclass(frozen=True, slots=True)
class Probe:
    question: str
    answer: str
    category: int


@dataclass(slots=True)
class Dialogue:
    index: int
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)

    @property
    def half(self) -> str:
        return "tuned" if self.index in TUNED else "untuned"


def normalize(text: str) -> str:
    """Lower case, punctuation as spaces, whitespace collapsed, padded with one space."""
    return " " + " ".join(_NOT_WORD.sub(" ", text.lower()).split()) + " "


def answered(answer: str, context: str) -> bool:
    """Whether ``answer``'s words appear, in order and whole, in ``context``."""
    wanted = normalize(answer)
    return wanted.strip() != "" and wanted in normalize(context)


def _turn_text(turn: dict[str, Any]) -> str:
    caption = turn.get("blip_caption")
    text = str(turn["text"])
    return f"{text} [shares a photo: {caption}]" if caption else text


def load_dialogues(path: Path) -> list[Dialogue]:
    """LoCoMo's conversations with the questions whose answer an evidence turn writes."""
    data = read_locomo(path)
    dialogues = []
    for index, item in enumerate(data):
        conv = item["conversation"]
        dialogue = Dialogue(index=index, sample_id=str(item["sample_id"]))
        n = 1
        while f"session_{n}" in conv:
            when = session_date(conv[f"session_{n}_date_time"])
            for position, turn in enumerate(conv[f"session_{n}"]):
                dialogue.turns.append(
                    Turn(
                        dia_id=str(turn["dia_id"]),
                        speaker=str(turn["speaker"]),
                        text=_turn_text(turn),
                        at=when + timedelta(seconds=position),
                        session=n,
                    )
                )
            n += 1
        by_id = {t.dia_id: t for t in dialogue.turns}
        for qa in item["qa"]:
            category = qa.get("category")
            if category not in (1, 2, 3, 4) or "answer" not in qa:
                continue
            answer = str(qa["answer"])
            evidence = [by_id[e] for e in qa.get("evidence", []) if e in by_id]
            if any(answered(answer, t.text) for t in evidence):
                dialogue.probes.append(Probe(str(qa["question"]), answer, int(category)))
        dialogues.append(dialogue)
    return dialogues


def _terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def bm25_ranking(query: str, documents: Sequence[str]) -> list[int]:
    """Indexes of ``documents`` that share a term with ``query``, best BM25 first."""
    docs = [Counter(_terms(d)) for d in documents]
    lengths = [sum(d.values()) for d in docs]
    average = sum(lengths) / len(docs) if docs else 0.0
    frequency = Counter(term for d in docs for term in d)
    scores: dict[int, float] = {}
    for term in set(_terms(query)):
        n = frequency.get(term, 0)
        if not n:
            continue
        idf = math.log(1 + (len(docs) - n + 0.5) / (n + 0.5))
        for i, doc in enumerate(docs):
            tf = doc.get(term, 0)
            if tf:
                norm = tf + 1.5 * (1 - 0.75 + 0.75 * lengths[i] / average)
                scores[i] = scores.get(i, 0.0) + idf * tf * 2.5 / norm
    return sorted(scores, key=lambda i: (-scores[i], i))


def pack_lines(lines: Sequence[str], budget: int, tokenizer: Tokenizer) -> str:
    """``lines`` in order, each whole, while the text stays within ``budget`` tokens."""
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = tokenizer.count(line + "\n")
        if used + cost <= budget:
            kept.append(line)
            used += cost
    return "\n".join(kept)


def _line(turn: Turn) -> str:
    return f"- [{turn.at:%Y-%m-%d}] {turn.speaker}: {turn.text}"


@dataclass(slots=True)
class _Tally:
    hits: Counter[str] = field(default_factory=Counter)
    asked: Counter[str] = field(default_factory=Counter)
    tokens: Counter[str] = field(default_factory=Counter)

    def add(self, key: str, hit: bool, tokens: int) -> None:
        self.hits[key] += int(hit)
        self.asked[key] += 1
        self.tokens[key] += tokens


async def _evaluate_dialogue(
    dialogue: Dialogue,
    tally: _Tally,
    tokenizer: Tokenizer,
    budgets: Sequence[int],
    tmp: Path,
    timings: list[float],
    advance: Callable[[int], None],
) -> None:
    from sedimem.memory import Memory

    scope = Scope(tenant="locomo", project=dialogue.sample_id, user="speaker")
    sessions: dict[int, list[dict[str, Any]]] = {}
    for t in dialogue.turns:
        message = {"role": t.role, "content": t.text, "timestamp": t.at}
        if t.role is None:  # LoCoMo's own form: every turn a user message named by its speaker
            message.update(role="user", name=t.speaker)
        sessions.setdefault(t.session, []).append(message)
    async with await Memory.open(f"sqlite:///{tmp}/{dialogue.index}.db") as memory:
        for n, messages in sessions.items():
            await memory.ingest(messages, scope.with_session(f"session-{n}"))
        documents = [f"{t.speaker}: {t.text}" for t in dialogue.turns]
        for probe in dialogue.probes:
            ranked = [_line(dialogue.turns[i]) for i in bm25_ranking(probe.question, documents)]
            hits = await memory.episodes.recall(probe.question, scope=scope, k=_HYBRID_DEPTH)
            recalled = [f"- [{h.record.occurred_at:%Y-%m-%d}] {h.record.description}" for h in hits]
            for budget in budgets:
                begin = time.perf_counter()
                context = await memory.assemble(probe.question, scope, budget)
                timings.append(time.perf_counter() - begin)
                texts = {
                    "assemble": context.text or "",
                    "bm25": pack_lines(ranked, budget, tokenizer),
                    "hybrid": pack_lines(recalled, budget, tokenizer),
                }
                for method, text in texts.items():
                    hit = answered(probe.answer, text)
                    used = tokenizer.count(text)
                    for key in (
                        f"{dialogue.half}.{method}.{budget}",
                        f"{dialogue.half}.{method}.{budget}.{CATEGORIES[probe.category]}",
                        f"all.{method}.{budget}",
                    ):
                        tally.add(key, hit, used)
            advance(1)


async def run_context_eval(
    path: Path,
    *,
    budgets: Sequence[int] = BUDGETS,
    conversations: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
    chat: bool = False,
    padding: int = 0,
) -> dict[str, float]:
    """Run the protocol; ``<half>.<method>.<budget>[.<category>]`` -> share answered, with
    ``...tokens`` (mean tokens used) and ``...questions`` beside each. ``chat``: the
    user/assistant form with ``padding`` borrowed turns after each assistant turn
    (:func:`sedimem.evaluation.chat.as_chat`)."""
    dialogues = load_dialogues(path)
    if chat:
        from sedimem.evaluation.chat import as_chat

        dialogues = as_chat(dialogues, padding)
    if conversations is not None:
        wanted = set(conversations)
        dialogues = [d for d in dialogues if d.index in wanted]
    total = sum(len(d.probes) for d in dialogues)
    done = 0

    def advance(n: int) -> None:
        nonlocal done
        done += n
        if progress is not None:
            progress(done, total)

    tokenizer = default_tokenizer()
    tally = _Tally()
    timings: list[float] = []
    with tempfile.TemporaryDirectory(prefix="sedimem-context-eval-") as tmp:
        for dialogue in dialogues:
            await _evaluate_dialogue(
                dialogue, tally, tokenizer, budgets, Path(tmp), timings, advance
            )
    metrics: dict[str, float] = {}
    for key, asked in sorted(tally.asked.items()):
        metrics[key] = round(tally.hits[key] / asked, 4)
        metrics[f"{key}.tokens"] = round(tally.tokens[key] / asked, 1)
        metrics[f"{key}.questions"] = float(asked)
    if timings:
        timings.sort()
        metrics["assemble_ms_p50"] = round(timings[len(timings) // 2] * 1000, 2)
        metrics["assemble_ms_p95"] = round(timings[int(len(timings) * 0.95)] * 1000, 2)
    return metrics


def parse_conversations(text: str) -> list[int]:
    """``"5-9"`` or ``"0,2,4"`` (or both, comma-separated) as conversation positions."""
    chosen: list[int] = []
    try:
        for part in text.split(","):
            low, _, high = part.strip().partition("-")
            chosen.extend(range(int(low), int(high or low) + 1))
    except ValueError as exc:
        raise ValidationError(
            "conversations", f"cannot read {text!r}", allowed="ranges like 5-9 or 0,2,4"
        ) from exc
    if not chosen or min(chosen) < 0:
        raise ValidationError("conversations", f"{text!r} names none", allowed="0 and up")
    return chosen


def report_context(
    path: Path,
    console: Console,
    *,
    budgets: Sequence[int] = BUDGETS,
    conversations: Sequence[int] | None = None,
    chat: bool = False,
    padding: int = 0,
) -> dict[str, float]:
    """Run :func:`run_context_eval` with a progress bar; print the tables and a JSON line."""
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("questions", total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        metrics = asyncio.run(
            run_context_eval(
                path,
                budgets=budgets,
                conversations=conversations,
                progress=advance,
                chat=chat,
                padding=padding,
            )
        )
    form = f" as user/assistant chats (padding {padding})" if chat else ""
    for half, title in (("tuned", "conversations 0-4 (tuned on)"), ("untuned", "5-9 (headline)")):
        asked = metrics.get(f"{half}.assemble.{budgets[0]}.questions")
        if not asked:
            continue
        table = Table(
            "budget",
            *(f"{m} (tokens)" for m in METHODS),
            "assemble - best baseline",
            title=f"LoCoMo{form}: contexts holding the answer, {title}, {asked:.0f} questions",
        )
        for budget in budgets:
            share = {m: metrics[f"{half}.{m}.{budget}"] for m in METHODS}
            cells = [
                f"{share[m]:.3f} ({metrics[f'{half}.{m}.{budget}.tokens']:.0f})" for m in METHODS
            ]
            margin = share["assemble"] - max(share["bm25"], share["hybrid"])
            table.add_row(str(budget), *cells, f"{margin:+.3f}")
        console.print(table)
        table = Table("category", "questions", *METHODS, title=f"{half}, per category, 1,000")
        middle = budgets[len(budgets) // 2]
        for label in (CATEGORIES[c] for c in (1, 2, 3, 4)):
            n = metrics.get(f"{half}.assemble.{middle}.{label}.questions")
            if n:
                shares = [f"{metrics[f'{half}.{m}.{middle}.{label}']:.3f}" for m in METHODS]
                table.add_row(label, f"{n:.0f}", *shares)
        table.title = f"{half}, per category, budget {middle}"
        console.print(table)
    console.print(
        f"assemble: p50 {metrics.get('assemble_ms_p50', 0):.1f} ms, "
        f"p95 {metrics.get('assemble_ms_p95', 0):.1f} ms",
        highlight=False,
    )
    console.print(json.dumps({"metrics": metrics}), soft_wrap=True, highlight=False)
    return metrics
