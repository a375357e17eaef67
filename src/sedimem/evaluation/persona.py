"""The offline extractor on Synthetic-Persona-Chat's test split (CC BY 4.0).

Hand-over, as an agent would: "User 1" is role ``user``, "User 2" role ``assistant``, no
``name``; the user is :data:`USER`. Conversations 0-483 are the tuning half (every rule was
chosen looking at them only); 484-967 are reported apart, and are the headline.

Matching rule (content words). The content words of a text are its lower-case words minus
stop words and the user's own name, each stemmed by dropping one ending of ``ing``, ``ed``
or ``s`` (words of five letters or more) and then a final ``e`` ("lives", "living", "live"
are one word). Two texts *agree* when they share at least
half of the content words of the smaller of the two (and at least one).

- Gold: User 1's persona sentences that the conversation states: a persona sentence agrees
  with at least one sentence of User 1's turns that is not a question.
- A learned fact is *correct* when it was read from User 1's turn and its statement agrees
  with one of User 1's persona sentences. Otherwise it is, first match wins, a *question*
  (read from a sentence ending in "?"), *other speaker* (read from a User 2 turn: User 2's
  words filed as the user's memory), *general* (its subject is not the user), or *unlisted*
  (User 1 said it about themself, but it is in no persona sentence: often true, not gold).
- Precision, as the issue defines it: correct / (correct + question + other speaker +
  general). Strict precision: correct / every learned fact (unlisted counted wrong).
  *Persona-2 echo* counts, for information, the correct-or-unlisted facts that agree with
  a User 2 persona sentence and with none of User 1's (the loose rule's view of "about
  User 2"; the hand check below shows these are User 1's own words).
- Recall = stated gold sentences agreeing with a learned fact / stated gold sentences.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from rich.console import Console
from rich.table import Table

from sedimem.errors import ValidationError
from sedimem.extraction import Statement, extract_statements
from sedimem.extraction.sentences import split_sentences

__all__ = [
    "TUNING",
    "USER",
    "Conversation",
    "PersonaOutcome",
    "agree",
    "halves",
    "load",
    "report",
    "score",
]

#: Who User 1 is in the learned facts.
USER = "persona_user"
#: The conversations every rule was tuned on (the rest are reported apart).
TUNING = range(0, 484)
_T0 = datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
_STOP = frozenset(
    """a an the my his her their our its of to in at for with and or on by from about this
    that these those some is are am was were be been being has have had does do did not no
    i me we us you your it they them he she him so very really also just too all any can
    will would like likes love loves enjoy enjoys lot lots much many s t m re ve d ll
    longer named called who what which when where there here than then as if but""".split()
)  # fmt: skip
_TURN = re.compile(r"^(User [12]):\s*(.*)$")


@dataclass(frozen=True, slots=True)
class Conversation:
    index: int
    persona_1: list[str]
    persona_2: list[str]
    turns: list[tuple[str, str]]  # (role, text)


def _stem(word: str) -> str:
    for ending in ("ing", "ed", "s"):
        if len(word) >= 5 and word.endswith(ending):
            word = word[: -len(ending)]
            break
    return word[:-1] if len(word) >= 4 and word.endswith("e") else word


def content_words(text: str) -> set[str]:
    """The content words of ``text`` (see the module docstring)."""
    words = re.findall(r"[a-z0-9]+", text.lower().replace(USER, " "))
    return {_stem(w) for w in words if w not in _STOP}


def agree(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` share half of the smaller one's content words (at least 1)."""
    x, y = content_words(a), content_words(b)
    if not x or not y:
        return False
    return len(x & y) >= max(1, (min(len(x), len(y)) + 1) // 2)


def load(path: Path) -> list[Conversation]:
    """Every conversation of the CSV, in order."""
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        out: list[Conversation] = []
        for index, row in enumerate(rows):
            turns: list[tuple[str, str]] = []
            for line in row["Best Generated Conversation"].splitlines():
                m = _TURN.match(line.strip())
                if m:
                    turns.append(("user" if m[1] == "User 1" else "assistant", m[2]))
            out.append(
                Conversation(
                    index,
                    [s.strip() for s in row["user 1 personas"].splitlines() if s.strip()],
                    [s.strip() for s in row["user 2 personas"].splitlines() if s.strip()],
                    turns,
                )
            )
        return out
    except (OSError, KeyError, csv.Error, UnicodeDecodeError) as exc:
        raise ValidationError(
            "persona", f"cannot read {path}: {exc}", allowed="synthetic-persona-chat-test.csv"
        ) from exc


@dataclass(slots=True)
class PersonaOutcome:
    conversations: int = 0
    learned: int = 0
    correct: int = 0
    stated: int = 0
    recalled: int = 0
    question: int = 0
    other_speaker: int = 0
    general: int = 0
    unlisted: int = 0
    echo: int = 0
    wrong: list[str] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        def share(n: int) -> float:
            return round(n / self.learned, 4) if self.learned else 0.0

        judged = self.correct + self.question + self.other_speaker + self.general
        return {
            "conversations": float(self.conversations),
            "learned": float(self.learned),
            "stated": float(self.stated),
            "precision": round(self.correct / judged, 4) if judged else 0.0,
            "strict_precision": share(self.correct),
            "recall": round(self.recalled / self.stated, 4) if self.stated else 0.0,
            "facts_per_conversation": round(self.learned / max(1, self.conversations), 3),
            "question_share": share(self.question),
            "other_speaker_share": share(self.other_speaker),
            "general_share": share(self.general),
            "unlisted_share": share(self.unlisted),
            "persona_2_echo_share": share(self.echo),
        }


Extract = Callable[[str, str, datetime], list[Statement]]


def _rule(text: str, role: str, at: datetime) -> list[Statement]:
    return extract_statements(text, USER if role == "user" else None, at, role=role, addressee=USER)


def score(conversations: list[Conversation], extract: Extract = _rule) -> PersonaOutcome:
    """Extract every turn of ``conversations`` and compare (see the module docstring)."""
    outcome = PersonaOutcome()
    for conv in conversations:
        outcome.conversations += 1
        mine = [
            sentence.text
            for role, text in conv.turns
            if role == "user"
            for sentence in split_sentences(text)
            if not sentence.question
        ]
        stated = [p for p in conv.persona_1 if any(agree(p, t) for t in mine)]
        outcome.stated += len(stated)
        learned: list[str] = []
        for number, (role, text) in enumerate(conv.turns):
            for st in extract(text, role, _T0 + timedelta(minutes=number)):
                statement = st.fact.statement
                learned.append(statement)
                outcome.learned += 1
                own = any(agree(statement, p) for p in conv.persona_1)
                if role == "user" and not own and any(agree(statement, p) for p in conv.persona_2):
                    outcome.echo += 1
                if role == "user" and own:
                    outcome.correct += 1
                    continue
                outcome.wrong.append(f"{conv.index}: {statement}  <- {st.sentence}")
                if st.sentence.rstrip().endswith("?"):
                    outcome.question += 1
                elif role != "user":
                    outcome.other_speaker += 1
                elif st.fact.subject != USER:
                    outcome.general += 1
                else:
                    outcome.unlisted += 1
        outcome.recalled += sum(any(agree(s, p) for s in learned) for p in stated)
    return outcome


def halves(conversations: list[Conversation]) -> tuple[list[Conversation], list[Conversation]]:
    """(the tuning half, the held-out half)."""
    tuned = [c for c in conversations if c.index in TUNING]
    return tuned, [c for c in conversations if c.index not in TUNING]


def report(path: Path, console: Console) -> dict[str, dict[str, float]]:
    """Score both halves, print a table, and end with a JSON metrics line."""
    tuned, held = halves(load(path))
    results = {"tuning_0_483": score(tuned), "held_out_484_967": score(held)}
    metrics = {name: outcome.metrics() for name, outcome in results.items()}
    table = Table(
        "measure", *metrics, title="Offline extractor on Synthetic-Persona-Chat "
        "(User 1 = user, User 2 = assistant; the held-out half is the headline)",
    )  # fmt: skip
    for key in metrics["held_out_484_967"]:
        cells = [metrics[name][key] for name in metrics]
        shown = [f"{int(c)}" if c.is_integer() and c > 1 else f"{c:.3f}" for c in cells]
        table.add_row(key, *shown)
    console.print(table)
    console.print(json.dumps({"persona": metrics}), soft_wrap=True, highlight=False)
    return metrics
