"""Who a statement is about: the speaker of a turn, the person an assistant addresses, and
the people the user names.

- First person in a user turn is the scope's user: named by the turn's ``name`` when given,
  else by the scope's user id, else :data:`UNNAMED_USER` (never the role word ``user``).
- An assistant's first person is the assistant, whose statements are not memories of the
  user: an assistant turn has no speaker to file facts under. It *addresses* the user, so
  the narrow records of what the user did or decided ("I've booked your table") are about
  the user (:func:`addressee`).
- System and tool turns state nothing about anyone.
- People the user names ("my husband Tom") are subjects of their own, named; "my mom" with
  no name is "<user>'s mother" (:func:`possessive`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from sedimem.scope import Scope

__all__ = ["NOT_NAMES", "UNNAMED_USER", "TurnSubjects", "addressee", "possessive", "turn_subjects"]

Role = Literal["user", "assistant", "system", "tool"]

#: Who the user is in facts when neither the turn nor the scope names them.
UNNAMED_USER = "the user"

#: Capitalised words that open a clause or follow "my dog" but name nobody ("my dog, Just
#: ...", "Last week ..."): never read as a person's or a pet's name.
NOT_NAMES = frozenset(
    {
        "I", "We", "It", "This", "That", "The", "They", "He", "She", "My", "Our", "There",
        "Here", "What", "When", "Thanks", "Yeah", "Wow", "Just", "Last", "Next", "Today",
        "Yesterday", "Also", "So", "And", "But", "Then", "Now", "Sounds", "Great", "Cool",
        "Nice", "Awesome", "Hey", "Hi", "Oh", "Congrats", "Glad", "Sorry", "Haha", "Lol",
        "Well", "Anyway", "Me", "Your", "His", "Her", "Their", "Everyone", "Nobody", "Some",
        "Growing", "Being", "Having", "Playing", "Painting", "Dance", "Reading", "Writing",
    }
)  # fmt: skip

_ROLE_WORDS = frozenset({"user", "assistant", "system", "tool", "human", "ai", "bot"})


@dataclass(frozen=True, slots=True)
class TurnSubjects:
    """Whose first person a turn speaks (``speaker``), and whom it addresses."""

    speaker: str | None
    addressee: str | None


def addressee(scope: Scope, name: str | None = None) -> str:
    """The user a turn of ``scope`` is about: ``name``, the scope's user, or the default."""
    for candidate in (name, scope.user):
        if candidate and candidate.strip() and candidate.strip().lower() not in _ROLE_WORDS:
            return candidate.strip()
    return UNNAMED_USER


def turn_subjects(role: str, scope: Scope, name: str | None = None) -> TurnSubjects:
    """The subjects of one turn of ``role`` (see the module docstring).

    ``name`` is the turn's own name for a user turn; for an assistant turn it is the name
    the user gave in the conversation (the assistant's own name never matters here).
    """
    if role == "user":
        return TurnSubjects(addressee(scope, name), None)
    if role == "assistant":
        return TurnSubjects(None, addressee(scope, name))
    return TurnSubjects(None, None)


def possessive(text: str, subject: str) -> str:
    """``text`` with "my"/"our" turned into ``subject``'s ("my brother" -> "Ana's brother")."""
    return re.sub(r"\b(?:my|our)\b", f"{subject}'s", text, flags=re.IGNORECASE)
