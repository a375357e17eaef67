"""The rules an LLM's facts must follow, checked after the model answered.

The LLM extractor's prompt states the rules (:data:`RULES`); a model may still break them,
so each fact of a conversation turn is checked here against the same rules the offline
extractor follows (:mod:`.subjects`, :mod:`.vocabulary`):

- a fact must be structured (subject, predicate) and not a question;
- its subject may not be the assistant; the role words "user"/"the user" name the turn's
  user (the scope's user);
- an assistant turn yields only ``has_booking`` facts about the user;
- a known predicate gets the vocabulary's cardinality and a statement phrased from its
  parts; any predicate is snake_case (what else the model invents accumulates);
- an object must say what it is about on its own (:func:`.clauses.stated_object`: not
  "making this" or "the taste of it").
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import stated_object
from sedimem.extraction.vocabulary import (
    KNOWN_PREDICATES,
    SINGLE_PREFIXES,
    cardinality_of,
    describe,
    phrase,
)
from sedimem.types.longterm import Episode, Fact

__all__ = ["RULES", "checked"]

RULES = (
    "A fact is a statement about a person that a person would note: name, occupation and "
    "employer, where they live and moves, family, relations and pets with names, health, "
    "allergies and diet, likes, dislikes and preferences, habits with their frequency, "
    "possessions, plans and events with dates, quantities (budget, height, counts), "
    "negations and endings. Never a fact: questions, requests and instructions, advice and "
    "explanations, greetings and small talk, hypotheticals and hedges, general statements "
    "about the world, the assistant's own opinions or statements about itself. First "
    "person in a user turn is the user; in an assistant turn, keep only what the user did "
    "or decided through the assistant (predicate has_booking). Subjects are people, named. "
    "Prefer these predicates: " + describe()
)
_ASSISTANT = frozenset({"assistant", "the assistant", "ai", "bot", "chatbot", "i", "me"})
_USER = frozenset({"user", "the user", "you", "the human", "human"})


def checked(episode: Episode, fact: Fact) -> Fact | None:
    """``fact`` as the rules allow it for ``episode``'s turn, or None when they refuse it.

    An episode that is no conversation turn (no ``metadata["role"]``) is left as it is,
    except that a known predicate is phrased and given its cardinality.
    """
    role = episode.metadata.get("role")
    if fact.subject is None or fact.predicate is None:
        return None if role is not None else fact
    predicate = re.sub(r"[^a-z0-9]+", "_", fact.predicate.lower()).strip("_") or None
    if predicate is None:
        return None
    subject = fact.subject.strip()
    if role is not None:
        if fact.statement.rstrip().endswith("?") or subject.lower() in _ASSISTANT:
            return None
        if subject.lower() in _USER:
            user = episode.metadata.get("subject")
            if not isinstance(user, str) or not user:
                return None
            subject = user
        if role != "user" and predicate != "has_booking":
            return None
    obj = fact.object
    if role is not None and obj is not None:
        obj = stated_object(obj)
        if obj is None:
            return None
    update: dict[str, object] = {"subject": subject, "predicate": predicate, "object": obj}
    if predicate in KNOWN_PREDICATES or predicate.startswith(SINGLE_PREFIXES):
        update["statement"] = phrase(subject, predicate, obj)
        update["cardinality"] = cardinality_of(predicate)
    return fact.model_copy(update=update)
