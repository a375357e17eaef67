"""Score the rule extractor on the development chats (content-word matching)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sedimem.extraction import extract_statements
from tests.extraction.dev_chats import CHATS, Chat

USER = "dana"
T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
_STOP = frozenset(
    "a an the my his her their our its of to in at for with and or on by from about this that "
    "is are am be been has have had does do not no longer s i me named called".split()
)


def words(text: str) -> set[str]:
    out = set()
    for w in re.findall(r"[a-z0-9']+", text.lower()):
        w = w.strip("'").removesuffix("'s")
        if w and w not in _STOP and w != USER:
            out.add(w[:-1] if len(w) > 3 and w.endswith("s") else w)
    return out


def matches(statement: str, gold: str) -> bool:
    have, want = words(statement), words(gold)
    return bool(want) and len(have & want) >= max(1, (len(want) + 1) // 2)


@dataclass
class DevScore:
    learned: int = 0
    correct: int = 0
    gold: int = 0
    found: int = 0
    wrong: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct / self.learned if self.learned else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.gold if self.gold else 1.0


def statements_of(chat: Chat) -> list[str]:
    out: list[str] = []
    for index, (role, text) in enumerate(chat.turns):
        at = T0 + timedelta(minutes=index)
        for s in extract_statements(text, USER if role == "user" else None, at, role=role,
                                    addressee=USER):  # fmt: skip
            out.append(s.fact.statement)
    return out


def score() -> DevScore:
    result = DevScore()
    for number, chat in enumerate(CHATS):
        learned = statements_of(chat)
        result.learned += len(learned)
        result.gold += len(chat.gold)
        for statement in learned:
            if any(matches(statement, g) for g in chat.gold):
                result.correct += 1
            else:
                result.wrong.append(f"{number}: {statement}")
            lowered = statement.lower()
            result.forbidden.extend(
                f"{number}: {statement}" for n in chat.never if n.lower() in lowered
            )
        for g in chat.gold:
            if any(matches(s, g) for s in learned):
                result.found += 1
            else:
                result.missed.append(f"{number}: {g}")
    return result


if __name__ == "__main__":
    s = score()
    print("\n".join("WRONG  " + w for w in s.wrong))
    print("\n".join("MISSED " + m for m in s.missed))
    print("\n".join("NEVER  " + m for m in s.forbidden))
    print(f"precision {s.precision:.3f} recall {s.recall:.3f} learned {s.learned} gold {s.gold}")
