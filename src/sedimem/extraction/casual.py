"""Chat as people type it: a lower-case "i", apostrophes left out, "btw" and "lol".

"im vegan btw", "i live in leeds", "my wife is called anna" are how many users write to an
assistant, and every reader of :mod:`.patterns` expects "I'm", "I" and a capital on a name.
:func:`as_written` restores what is unambiguous before the turn is read:

- a lone "i" (not "i.e.") is "I";
- contractions typed without their apostrophe ("im", "ive", "dont", "cant", "doesnt",
  "thats"...) get it back; words that are also words of their own ("ill", "id", "its",
  "were", "well", "hell", "shell") are left alone;
- chat fillers that carry nothing ("btw", "lol", "tbh", "fyi", "haha") are dropped;
- "my dogs name is" is "my dog's name is";
- in a turn with no capital letter but those that start sentences, the word after
  "named", "called", "name is" and "call me" is a name, and gets its capital.

Text written with its capitals and apostrophes is returned unchanged.
"""

from __future__ import annotations

import re

__all__ = ["as_written"]

_I = re.compile(r"(?<![\w.'\u2019-])i(?=['\u2019]|[\s,;:!?]|$)")
_CONTRACTIONS = {
    "im": "I'm", "ive": "I've", "dont": "don't", "doesnt": "doesn't", "didnt": "didn't",
    "cant": "can't", "wont": "won't", "isnt": "isn't", "wasnt": "wasn't", "arent": "aren't",
    "werent": "weren't", "havent": "haven't", "hasnt": "hasn't", "hadnt": "hadn't",
    "wouldnt": "wouldn't", "couldnt": "couldn't", "shouldnt": "shouldn't", "thats": "that's",
    "whats": "what's", "theres": "there's", "youre": "you're", "theyre": "they're",
}  # fmt: skip
_CONTRACTION = re.compile(r"\b(" + "|".join(_CONTRACTIONS) + r")\b", re.IGNORECASE)
# (no leading run of blanks in the pattern: on a turn of 8,000 spaces it would be tried
# from each of them)
# (a sentence's end after one stays: "im a nurse btw. i have a dog" is two sentences)
_FILLER = re.compile(r"\b(?:btw|lol|lmao|rofl|tbh|fyi|imo|imho|haha+|hehe+|lolol)\b,?", re.I)
_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?])\s+)[A-Z]")
# "my dogs name is rex": the possessive's apostrophe left out
_POSSESSIVE = re.compile(r"\b([Mm]y|[Oo]ur) ([a-z]+?)s name\b")
_NAMED = re.compile(r"\b(named|called|name is|name's|call me)\s+([a-z])")


def as_written(text: str) -> str:
    """``text`` with a lone "i", bare contractions and fillers restored as written (see
    the module docstring); unchanged when there is nothing of the kind."""
    # a capital only where a sentence starts ("My dogs name is rex") says no names are
    # capitalised either
    lower = not any(c.isupper() for c in _SENTENCE_START.sub("", text))
    if not (_casual(text) or (lower and _NAMED.search(text))):
        return text
    text = _POSSESSIVE.sub(r"\1 \2's name", text)
    text = _CONTRACTION.sub(lambda m: _restore(m[1]), text)
    text = _I.sub("I", text)
    text = _FILLER.sub(" ", text)
    if lower:
        text = _NAMED.sub(lambda m: f"{m[1]} {m[2].upper()}", text)
    text = re.sub(r"[ \t]+(?=[.!?,;])", "", text)  # where a filler stood before a period
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def _restore(word: str) -> str:
    restored = _CONTRACTIONS[word.lower()]
    return restored if restored.startswith("I") or word.islower() else restored.capitalize()


def _casual(text: str) -> bool:
    return bool(
        _I.search(text)
        or _CONTRACTION.search(text)
        or _FILLER.search(text)
        or _POSSESSIVE.search(text)
    )
