"""The predicates the offline extractor emits, and the words that lead to them.

Predicate names say their cardinality: single-valued ones (one current value per subject:
``lives_in``, ``works_at``, ``works_as``, ``diet``, ``spouse``, ``comes_from``) are listed in
:data:`SINGLE_VALUED`, everything else accumulates (``likes``, ``has_pet``, events such as
``visited`` or ``started``).
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "EVENT_VERBS",
    "FAMILY",
    "GERUNDS",
    "PETS",
    "SINGLE_VALUED",
    "Cardinality",
    "cardinality_of",
]

Cardinality = Literal["one", "many"]

#: One current value per subject: a new value supersedes the old one.
SINGLE_VALUED = frozenset({"lives_in", "works_at", "works_as", "diet", "spouse", "comes_from"})

#: Past-tense event verbs -> predicate (the object is what follows, dates cut out).
EVENT_VERBS: dict[str, str] = {
    "went to": "went_to",
    "visited": "visited",
    "attended": "attended",
    "started": "started",
    "began": "started",
    "finished": "finished",
    "completed": "finished",
    "won": "won",
    "adopted": "adopted",
    "bought": "bought",
    "got back from": "returned_from",
    "came back from": "returned_from",
    "joined": "joined",
    "graduated from": "graduated_from",
    "ran": "ran",
    "painted": "painted",
    "signed with": "signed_with",
    "signed up for": "signed_up_for",
    "took up": "took_up",
    "learned": "learned",
    "published": "published",
    "launched": "launched",
    "opened": "opened",
    "built": "built",
    "created": "created",
    "wrote": "wrote",
    "volunteered at": "volunteered_at",
    "traveled to": "traveled_to",
    "travelled to": "traveled_to",
    "flew to": "traveled_to",
    "hiked": "hiked",
    "climbed": "climbed",
    "passed": "passed",
    "received": "received",
    "met": "met",
}

#: Gerunds after "stopped"/"quit"/"no longer" -> the predicate they end.
GERUNDS: dict[str, str] = {
    "eating": "eats",
    "eat": "eats",
    "drinking": "drinks",
    "drink": "drinks",
    "smoking": "smokes",
    "smoke": "smokes",
    "playing": "plays",
    "play": "plays",
    "working at": "works_at",
    "working for": "works_at",
    "work at": "works_at",
    "work for": "works_at",
    "working as": "works_as",
    "work as": "works_as",
    "living in": "lives_in",
    "live in": "lives_in",
    "liking": "likes",
    "like": "likes",
    "love": "likes",
    "enjoy": "likes",
}

PETS = frozenset(
    {
        "dog", "dogs", "cat", "cats", "puppy", "puppies", "kitten", "kittens", "pup", "pups",
        "hamster", "hamsters", "rabbit", "rabbits", "bunny", "parrot", "bird", "birds",
        "turtle", "turtles", "fish", "horse", "horses", "guinea pig", "snake", "lizard",
    }
)  # fmt: skip

#: Family words -> predicate (the relation's name; spouses share one single-valued one).
FAMILY: dict[str, str] = {
    "daughter": "daughter", "son": "son", "kid": "child", "child": "child",
    "sister": "sister", "brother": "brother", "husband": "spouse", "wife": "spouse",
    "partner": "partner", "boyfriend": "partner", "girlfriend": "partner",
    "fiance": "partner", "fiancee": "partner", "mom": "mother", "mother": "mother",
    "dad": "father", "father": "father", "cousin": "cousin", "aunt": "aunt", "uncle": "uncle",
    "grandma": "grandmother", "grandmother": "grandmother", "grandpa": "grandfather",
    "grandfather": "grandfather", "niece": "niece", "nephew": "nephew",
}  # fmt: skip


def cardinality_of(predicate: str) -> Cardinality:
    """``"one"`` for a single-valued predicate, ``"many"`` otherwise."""
    return "one" if predicate in SINGLE_VALUED else "many"
