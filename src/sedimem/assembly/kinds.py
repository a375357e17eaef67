"""What kind of fact a question asks for, by the words it uses: "How many kids do I have?"
asks for ``number_of_children``, "What medication am I on?" for ``takes``, though neither
names the predicate.

A fact's candidate text is weighed with its kind's words (:func:`kind_of`), and
:func:`asked` names the predicates a question's words ask for, so that assembly can read
the asker's current facts of those kinds directly: a search for the question's words does
not find "ana takes metformin" for "What medication am I on?", which shares none of them.
:func:`relatives` names the relatives a question speaks of by kind ("What should I get my
husband?"), whose facts ("jo's spouse likes golf") share none of its words either; nor do
those of a relative or pet the asker named ("How is my cat?": "Luna has diabetes", found
through "ana has a cat named Luna": :func:`pets`, :func:`named_by_kind`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache

from sedimem.assembly.question import Question
from sedimem.extraction.vocabulary import FAMILY, PETS
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.types.longterm import Fact

__all__ = ["KIND_WORDS", "asked", "kind_of", "named_by_kind", "pets", "relatives"]

# what a question about food, cooking or eating out says: what one eats answers it
_FOOD = "eat food cook meal recipe dinner lunch breakfast restaurant snack dietary restriction"
#: Words a question about a kind of fact uses that its predicate's name does not ("How
#: much can I spend?" asks for the ``budget``; "What should I cook tonight?", the diet).
KIND_WORDS = {
    "budget": "spend afford cost",
    "drives": "car",
    "rides": "bike",
    "works_as": "job",
    "works_at": "job employer",
    "lives_in": "live home",
    "lives": "live home",  # "ana lives on a farm"
    "attends": "study school college university",
    "does_not_want": "want",
    "moved_from": "live lived before move",
    "lives_with": "live family",
    "allergic_to": f"allergy {_FOOD}",
    "diet": _FOOD,
    "does_not_eat": _FOOD,
    "goal": "target want",
    # "Where did I travel?", "Where have I been?"
    "returned_from": "travel trip been",
    "traveled_to": "trip been",
    "visited": "travel trip been",
    # "What medication am I on?", "Any health issues I should mention?"
    "takes": "medication medicine meds pills prescription",
    "has_condition": "health medical condition",
    "job_offer": "job offer",
    "works_in": "job work industry",
    "team": "job work",
    "income": "salary earn money",
    "rent": "apartment housing",
    "time_zone": "zone timezone",
    "studying_for": "study school degree",
    "learning": "study school",
    # "Where did my son get in?", "Which college did I get into?"
    "admitted_to": "school college university admitted accepted",
    # "Do I have a driver's license?", "What degree do I have?"
    "holds": "license licence permit degree",
    # "What did we decide on for the sofa?", "Which hotel did I book?"
    "chose": "decide decided decision choice pick",
    "booked": "book booking reservation",
    # "Where am I traveling this summer?": "ana is planning a trip to Portugal"
    "plans": "plan planning trip travel traveling travelling vacation holiday",
    "bought": "buy purchase",
    # "What language is our API in?", "Where do we deploy?": the user's project
    "written_in": "language",
    "built_with": "framework stack",
    "hosted_on": "deploy deployed hosting",
    "deploys_to": "deploy deployed hosting hosted",
    "uses": "tools software stack",
    "born_in": "born old age birthday",
    "nationality": "country citizen citizenship nationality passport",
    # "How do I get to work?", "When do I get up?"
    "habit": "routine usually wake bed sleep",
    "marital_status": "married family",
    # "How many kids do I have?", "Who is in my family?"
    "number_of_children": "kids family",
    "has_child": "kids children family baby",
    "child": "kids family",
    "son": "kids family",
    "daughter": "kids family",
    "spouse": "husband wife married family",
    "partner": "family",
    "mother": "mom family",
    "father": "dad family",
    "sister": "family",
    "brother": "family",
}


def kind_of(f: Fact) -> str:
    """The words of a fact's predicate ("has_pet" -> "has pet"; none when unnamed), those a
    question about such a fact uses (:data:`KIND_WORDS`), and the words for a relative it
    is about ("jo's spouse likes golf" is about a husband or a wife)."""
    predicate = f.predicate or ""
    words = f"{predicate.replace('_', ' ')} {KIND_WORDS.get(predicate, '')}"
    _, whose, relation = (f.subject or "").partition("'s ")
    if whose and relation in _KIN_WORDS:
        words += f" {_KIN_WORDS[relation]}"
    return words.strip()


#: The words for each relation ("spouse": "husband wife").
_KIN_WORDS = {
    relation: " ".join(sorted(w for w, r in FAMILY.items() if r == relation and " " not in w))
    for relation in set(FAMILY.values())
}


@cache
def _kinds_by_stem() -> dict[str, frozenset[str]]:
    """Each stem of :data:`KIND_WORDS` and the predicates it asks for."""
    analyzer = Analyzer()
    found: dict[str, set[str]] = {}
    for predicate, words in KIND_WORDS.items():
        for stem in analyzer.terms(words):
            found.setdefault(stem, set()).add(predicate)
    return {stem: frozenset(predicates) for stem, predicates in found.items()}


def relatives(question: Question) -> list[str]:
    """The relations of the asker a question names by kind ("my husband": ``spouse``), as
    the extractor files the relatives it names so ("jo's spouse likes golf"); a relation
    of several words is read whole ("my father-in-law" is no father)."""
    text = question.text.lower()
    found = set()
    for words, relation in _COMPOUND_KIN:
        if words in text:
            found.add(relation)
            text = text.replace(words, " ")
    return sorted(found | {FAMILY[w] for w in _WORD.findall(text) if w in FAMILY})


#: The relations named in several words, longest first ("best friend", "father-in-law").
_COMPOUND_KIN = sorted(
    ((w, r) for w, r in FAMILY.items() if not w.isalpha()), key=lambda p: -len(p[0])
)
_WORD = re.compile(r"\w+")


def pets(question: Question) -> list[str]:
    """The kinds of pet a question names ("How is my cat?": ``cat``), in the singular, as
    the extractor files the pets it names ("ana has a cat named Luna")."""
    found = set()
    for word in question.words & PETS:
        if word.endswith("ies") and f"{word[:-3]}y" in PETS:  # "puppies"
            word = f"{word[:-3]}y"
        elif word.endswith("s") and word[:-1] in PETS:
            word = word[:-1]
        found.add(word)
    return sorted(found)


def named_by_kind(fact: Fact, relations: Sequence[str], kinds_of_pet: Sequence[str]) -> str | None:
    """The name a fact of the asker's gives to a relative or pet the question names by
    kind: "ana's sister is Mia" (``sister``) names Mia, "ana has a cat named Luna"
    (``cat``) names Luna; ``None`` for any other fact. What the extractor learned of them
    is filed under that name ("Mia works as a nurse", "Luna has diabetes")."""
    if fact.object is None:
        return None
    if fact.predicate in relations:
        return fact.object
    if fact.predicate == "has_pet":
        kind, named, name = fact.object.partition(" named ")
        if named and kind.lower() in kinds_of_pet:
            return name
    return None


#: "Where am I from?", "Where are you originally from?": every word of the first is a stop
#: word, so its words ask for nothing; the question's shape does.
_WHERE_FROM = frozenset({"comes_from", "grew_up_in", "moved_from", "nationality"})
_FROM = re.compile(r"\bwhere\b.*\bfrom\b", re.IGNORECASE)


def asked(question: Question) -> frozenset[str]:
    """The predicates whose kind ``question``'s words ask for (none for most questions)."""
    kinds = _kinds_by_stem()
    found = frozenset(p for stem in question.stems for p in kinds.get(stem, ()))
    if _FROM.search(question.text):
        found |= _WHERE_FROM
    return found
