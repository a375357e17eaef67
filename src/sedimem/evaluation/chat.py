"""LoCoMo as an agent's user/assistant chat: the form the assembly meets in production.

LoCoMo is a chat between two people, each turn named by its speaker. Agents hand over
``role`` + ``content`` instead, with long assistant answers between the user's short
turns. :func:`as_chat` rewrites each conversation that way, so the context protocol can be
run on that form too:

- the first speaker is the **user**, the second the **assistant**; no turn has a name;
- only the questions about the user are kept (they name the first speaker and not the
  second), asked as the user would ask them: "What did Caroline research?" becomes "What
  did I research?", "Caroline's" becomes "my";
- ``padding``: each assistant turn is followed, in the same message, by that many turns
  drawn from the *other* conversations of the file (seeded by the conversation's position,
  so every run draws the same). This stands for the long, general answers of an assistant:
  text that matches many questions a little and none well.

The answers stay where LoCoMo wrote them, so a question is answered by the same turns.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import replace

from sedimem.errors import ValidationError
from sedimem.evaluation.context import Dialogue, Probe

__all__ = ["as_chat", "ask_as_user"]

_SUBJECT = re.compile(r"\b(does|is|has|was)\s+I\b", re.IGNORECASE)
_AS_FIRST_PERSON = {"does": "do", "is": "am", "has": "have", "was": "was"}


def ask_as_user(question: str, name: str) -> str:
    """``question`` about ``name`` as ``name`` would ask it ("my", "I")."""
    name = re.escape(name)
    asked = re.sub(rf"\b{name}'s\b", "my", question)
    asked = re.sub(rf"\b{name}\b", "I", asked)

    def first_person(match: re.Match[str]) -> str:
        verb = match.group(1)
        said = _AS_FIRST_PERSON[verb.lower()]
        return f"{said.capitalize() if verb[0].isupper() else said} I"

    return _SUBJECT.sub(first_person, asked)


def as_chat(dialogues: Sequence[Dialogue], padding: int = 0) -> list[Dialogue]:
    """Each dialogue as a user/assistant chat (module docstring); ``padding`` >= 0."""
    if padding < 0:
        raise ValidationError("padding", f"got {padding}", allowed="0 and up")
    chats = []
    for dialogue in dialogues:
        speakers = list(dict.fromkeys(t.speaker for t in dialogue.turns))
        if len(speakers) < 2:
            continue
        user, other = speakers[0].split()[0], speakers[1].split()[0]
        borrowed = [t.text for d in dialogues if d.index != dialogue.index for t in d.turns]
        draw = random.Random(dialogue.index)
        turns = []
        for t in dialogue.turns:
            if t.speaker == speakers[0]:
                turns.append(replace(t, speaker="user", role="user"))
                continue
            text = t.text
            if padding and borrowed:
                text += " " + " ".join(draw.choice(borrowed) for _ in range(padding))
            turns.append(replace(t, speaker="assistant", role="assistant", text=text))
        probes = [
            Probe(ask_as_user(p.question, user), p.answer, p.category)
            for p in dialogue.probes
            if re.search(rf"\b{re.escape(user)}\b", p.question)
            and not re.search(rf"\b{re.escape(other)}\b", p.question)
        ]
        chats.append(Dialogue(dialogue.index, dialogue.sample_id, turns, probes))
    return chats
