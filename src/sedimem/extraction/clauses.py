"""Clauses of a turn and the shape of an object phrase.

A turn is cut into sentences (:mod:`.sentences`), and only sentences that state something
are kept: questions, requests and instructions (a sentence opening on an imperative verb,
"please", "can you"), and greetings are dropped here (a question keeps the statement of
the speaker's it opens on: "I drive a Civic, how often should I change the oil?"). Each
kept sentence is cut into clauses at ";", dashes, "but", "so", "because", "which",
"though", at "and"/"," before a new first person and at a colon before "my" ("We're a
family of four: my kids are 5 and 8"). Leading interjections ("yeah", "oh", "btw") are
stripped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sedimem.extraction.sentences import Sentence, split_sentences
from sedimem.extraction.vocabulary import FAMILY_WORDS

__all__ = [
    "FUNCTION_WORDS",
    "MAX_CLAUSE_CHARS",
    "Clause",
    "Match",
    "bad_object",
    "items_of",
    "listed",
    "object_of",
    "shared_subject",
    "split_clauses",
    "split_list",
    "thing_of",
    "without_company",
]

#: A clause longer than this is no fact said in passing (and every pattern run on a clause
#: stays bounded by it, whatever the turn holds).
MAX_CLAUSE_CHARS = 300


@dataclass(frozen=True, slots=True)
class Match:
    """One triple read from a clause; ``negated`` means the clause ends it."""

    subject: str
    predicate: str
    object: str | None
    surface: str  # the verb the clause used (kept for readers; statements use phrase())
    negated: bool = False
    future: bool = False
    confidence: float = 0.6
    dated: bool = True  # whether the clause's date applies (not to "my daughter Maya")

    @classmethod
    def of(cls, subject: str, predicate: str, obj: str | None, confidence: float = 0.7) -> Match:
        """A triple whose predicate is also its surface verb (the profile readers')."""
        return cls(subject, predicate, obj, predicate, confidence=confidence)


@dataclass(frozen=True, slots=True)
class Clause:
    """A statement clause, the sentence it came from, the text of that sentence before it
    (its separator and lead words included: "I was born in Brazil, but "), and the
    sentence of the turn before that one, a question too ("" for the first)."""

    text: str
    sentence: Sentence
    before: str = ""
    previous_sentence: str = ""


_CLAUSES = re.compile(
    r";|\s[-\u2013\u2014]\s|,?\s+but\s+|,\s*so\s+|\s+because\s+|\s+'?cause\s+|,\s*which\s+"
    r"|,?\s+and\s+(?=(?:(?:so\s+)?(?:now|these\s+days|nowadays),?\s+)?(?:I|we|my|our|he|she)\b)|[,:]\s*(?=(?:I|we|he|she)\b)|:\s*(?=my\b)|,?\s+(?:al)?though\s+"
    # "Arjun is vegetarian and Dev can't have dairy": a second person, a statement of theirs
    r"|,?\s+and\s+(?=[A-Z][a-z]+\s+(?:is|was|has|can't|cannot|doesn't|loves|likes|hates|"
    r"works|lives)\b)"
    # "Big day: Priya is pregnant!": a named person's statement after a colon
    r"|:\s*(?=[A-Z][a-z]+\s+(?:is|was|has|just|got|can't|loves|likes|works|lives)\b)"
    # "I love hiking and the view is amazing", "We use Postgres and the frontend is React":
    # a thing with a statement of its own (it was read as the object: "likes hiking and the
    # view is amazing")
    r"|,?\s+and\s+(?=the\s+(?:[\w-]+\s+){1,2}?(?:is|are|was|were|has|have|went)\b)"
    # "I love cooking, my favorite dish is ramen": a favorite is a statement of its own
    r"|,\s*(?=my\s+(?:absolute\s+)?(?:favou?rite|fave)\b)"
    # "I'm a nurse and will start nights next week", "... so I'll start": the plan is a
    # clause of its own (skipped as a plan), so the fact before it is still read
    r"|,?\s+and\s+(?=(?:will|shall|won't|am\s+going\s+to|gonna)\b)"
    # "my daughter has a peanut allergy so nothing with nuts please", "I'm a PhD student at
    # Stanford so my days are long": what follows is a consequence (or a request) of its own
    r"|\s+so\s+(?=(?:I|we|he|she|they|my|our|nothing|no|please)\b)"
    # "I live alone since my wife died": what happened is a clause of its own
    r"|\s+since\s+(?=(?:my|our)\b)",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:(?:yeah|yes|yep|yup|so|well|oh|ooh|wow|woah|whoa|also|btw|by the way|actually|"
    r"anyway|and|plus|hey|haha|lol|omg|ok|okay|guess what|fun fact|cool|nice|thanks|"
    r"thank you|honestly|totally|sure|hi|hello|great|but|big news|news|please|perfect|"
    r"not yet|not really|pretty well|ah|oh and|right|though|although|these days|nowadays|"
    r"now|lately|currently|at the moment|right now|since then|in fact|correction|update|"
    r"quick one|quick update|good news|great news|heads up|fyi)"
    r"\b[,!.:]?\s*)+",
    re.IGNORECASE,
)
# a sentence that asks or tells the listener to do something states nothing
_REQUEST = re.compile(
    r"^(?:please|pls|can you|could you|would you|will you|can u|do you|are you|have you|"
    r"tell me|give me|show me|help me|let me|let's|lets|recommend|suggest|write|make|find|"
    r"explain|list|describe|book|plan|remind|what|how|why|where|when|who|which|is there|"
    r"are there|should i|can i|could i|do i|any (?:tips|ideas|advice))\b",
    re.IGNORECASE,
)
# A request about the assistant's answers is kept for the reader of standing requests
# (:mod:`.requests`): "Please make your explanations simple" describes the user.
_ABOUT_ANSWERS = re.compile(
    r"\b(?:answers|responses|replies|explanations|emojis?|emoticons|metric|imperial)\b|"
    r"\b(?:answer|reply|respond|write|talk to me|speak to me) in\b",
    re.IGNORECASE,
)
# "being" leads a state of one's own ("being still", "being a mom") unless what follows
# points elsewhere ("being able to", "being there")
VAGUE_BEING = (
    r"being(?:$| (?:able|there|here|told|asked|honest|sure|with|around|in|on|at|so|too|very|"
    r"really|it|that|this|them)\b)"
)
_BAD_OBJECT = re.compile(
    r"^(?:(?:it|that|this|these|those|them|him|her|me|us|you|one)$|(?:it|them|him|me|us|you|"
    rf"how|what|when|where|why|who|which|the idea|the fact|{VAGUE_BEING}|some|something|"
    # "anything sweet" is a kind of thing; "anything", "anything else" are not
    r"anything(?! (?!else\b|more\b|at\b|like\b)(?-i:[a-z]+)$)|"
    r"everything|nothing|a lot|so much|here|there|that's|it's|lots|more|a bit)\b)",
    re.IGNORECASE,
)
_OBJECT_END = re.compile(
    r"\s*(?:,|!|\.(?:\s|$)|\(|\s-\s|\sand it\b|\sand they\b|\swhich\b|\sthat was\b|\sit was\b"
    r"|\sso\b|\stoo\b|\sa lot\b|\sso much\b|\severy day\b|\severy\b|\slately\b|\snow\b"
    r"|\sthough\b|\sas well\b|\sright now\b|\sat the moment\b|\ssince\b|\srecently\b"
    r"|\sat all\b|\sanymore\b|\sduring\b|\splease\b|\swhile\b|\ssometimes\b"
    r"|\soccasionally\b|\sonce in a while\b|$)",
    re.IGNORECASE,
)
_DEICTIC = re.compile(r"^(?:this|that|these|those|their|his|her|its)\b", re.IGNORECASE)


# "I drive a Tesla Model 3, how often should I rotate the tires?": a question that opens
# on a statement of the speaker's own, cut off from the question by a comma or a dash;
# after a short preamble ("quick one - I take ...") or "since" ("Since I'm allergic to
# nuts, which snacks are safe?").
_STATED_LEAD = re.compile(
    r"^(?:[\w' ]{1,20}\s[-\u2013\u2014:]\s+)?(?:(?i:since|as|because|now that)\s+)?"
    r"(?P<lead>(?:I|I'm|I've|I'd|We|We're|We've|My|Our)\s[^?]{6,}?)(?:,|\s[-\u2013\u2014])\s+"
    r"(?:so\s+|and\s+|but\s+)?(?:how|what|which|where|when|who|why|can|could|should|would|"
    r"will|do|does|did|is|are|any|anything|is there|are there)\b[^,]*\?$"
)


def _stated_lead(sentence: Sentence) -> Sentence | None:
    """The statement a question opens on, as a sentence of its own (``None``: none)."""
    found = _STATED_LEAD.match(sentence.text.strip())
    if found is None or "?" in found["lead"]:
        return None
    return Sentence(found["lead"] + ".", sentence.listed)


def split_clauses(text: str, *, lists: bool = True) -> list[Clause]:
    """Statement clauses of ``text`` (see the module docstring); ``lists``: whether list
    items count (an assistant's lists are boilerplate)."""
    out: list[Clause] = []
    prior = ""  # the sentence before, as written
    for asked in split_sentences(text):
        sentence: Sentence | None = asked
        if asked.question:
            sentence = _stated_lead(asked)
        before, prior = prior, asked.text
        if sentence is None or (sentence.listed and not lists):
            continue
        body = _LEAD.sub("", sentence.text.strip()).strip()
        if not body or (_REQUEST.match(body) and not _ABOUT_ANSWERS.search(body)):
            continue
        for start, piece in _pieces(sentence.text):
            stripped = piece.strip()
            lead = _LEAD.match(stripped)  # "so", "oh and", "but": not the clause's words
            opened = stripped[lead.end() :] if lead else stripped
            clause = opened.strip().rstrip(".!").strip()
            if clause and len(clause) <= MAX_CLAUSE_CHARS and not _request(clause):
                # where the clause's words begin: past the piece's spaces and lead words
                at = start + len(piece) - len(piece.lstrip()) + len(stripped) - len(opened.lstrip())
                out.append(Clause(clause, sentence, sentence.text[:at], before))
    return out


_RELATIVE_ALONE = re.compile(rf"(?:[Mm]y|[Oo]ur) (?:{FAMILY_WORDS})(?: [A-Z][a-z]+)?")


def _pieces(text: str) -> list[tuple[int, str]]:
    """``text`` cut at clause separators, each piece with where it starts."""
    pieces, at = [], 0
    for separator in _CLAUSES.finditer(text):
        piece = _LEAD.sub("", text[at : separator.start()].strip())
        if _RELATIVE_ALONE.fullmatch(piece) and text[separator.end() :].startswith("I "):
            continue  # "My husband and I are both vegetarian": one subject of two people
        pieces.append((at, text[at : separator.start()]))
        at = separator.end()
    pieces.append((at, text[at:]))
    return pieces


def _request(clause: str) -> bool:
    """Whether ``clause`` asks for something (and is no standing request about answers)."""
    return _REQUEST.match(clause) is not None and _ABOUT_ANSWERS.search(clause) is None


def bad_object(text: str) -> bool:
    """Whether ``text`` is too vague to be an object ("it", "something", "how to"); a
    title is not ("It Ends with Us", "That Thing You Do")."""
    text = text.strip()
    return not text or (bool(_BAD_OBJECT.match(text)) and not _titled(text))


def object_of(raw: str, *, max_words: int = 8) -> str | None:
    """The object phrase: cut at the first boundary, refused if empty, vague or too long."""
    cut = _OBJECT_END.search(raw)
    text = (raw[: cut.start()] if cut else raw).strip(" ,;:\"'")
    text = re.sub(r"^doing\s+", "", text, flags=re.IGNORECASE)
    if text.count('"') % 2:  # a title cut inside its quotes ("The Martian.") loses them
        text = text.replace('"', "").strip(" ,;:.!")
    if bad_object(text) or len(text.split()) > max_words:
        return None
    return text


# Words that carry no thing of their own: a demonstrative followed by one is a pronoun
# ("that the hard way"), not a determiner ("that cafe").
_FUNCTION = (
    r"about|after|around|at|before|by|for|from|in|into|of|on|out|to|with|a|an|the|and|or|"
    r"but|like|as|so|than|that|which|who|is|was|are|were|I|me|my|we|our|one|ones|way|much|"
    r"many|too|again|here|there|now|then|up|down|over|off|back|away|more|really|very|just|"
    r"all|things|stuff"  # "to do all those things" names nothing
)
#: Words that name no thing of their own ("about", "the", "my", "things").
FUNCTION_WORDS = frozenset(_FUNCTION.lower().split("|"))
# an object never ends on these: what followed was cut ("to ride at the [spot]"), and so
# was the thing a preposition before them led to
_DANGLING = re.compile(
    r"(?:(?:\s+|^)(?:about|at|by|for|from|in|into|of|on|to|with))?(?:\s+|^)(?:a|an|the|and|"
    r"or|but)$",
    re.IGNORECASE,
)
# A pronoun stands for something said elsewhere: an object led by one ("they're a great
# escape", "this after I visited...") or holding one and hardly anything else ("making
# this", "holding them", "the taste of it") does not say what the fact is about. One with
# more words of its own still does ("helping people find peace and joy through it"). A
# possessive is left alone: it is mostly the subject's own ("runs his own business").
_PRONOUN_WORDS = frozenset("it they they're them he she him us you you're".split())
_DEMONSTRATIVES = frozenset("this that these those".split())
_PRONOUN = re.compile(
    rf"\b(?:{'|'.join(_PRONOUN_WORDS)})\b"
    rf"|\b(?:{'|'.join(_DEMONSTRATIVES)})(?:$|\s+(?:{_FUNCTION})\b)",
    re.IGNORECASE,
)
_NOT_OWN = _PRONOUN_WORDS | _DEMONSTRATIVES | FUNCTION_WORDS  # words no thing is named by
_WORD = re.compile(r"[\w']+")


def _titled(text: str) -> bool:
    """Whether ``text`` opens on a capital and has another after it (not "I"): a title."""
    first, *rest = text.split()
    return first[:1].isupper() and any(w[:1].isupper() and w != "I" for w in rest)


def stated_object(text: str) -> str | None:
    """``text`` as a fact's object, or None when it says nothing on its own (see
    :data:`_PRONOUN`); a last word nothing can end on ("the") is dropped."""
    kept = text.strip()
    while (cut := _DANGLING.search(kept)) is not None:
        kept = kept[: cut.start()].rstrip(" ,")
    if bad_object(kept):
        return None
    if _titled(kept):
        return kept  # a title or a name: "The Who", "It Ends with Us"
    words = [w.lower() for w in _WORD.findall(kept)]
    if all(w in FUNCTION_WORDS for w in words) or words[0] == "of":
        return None  # "joined in"; "of those games" ("all" was read as an adverb)
    if words[0] in _DEMONSTRATIVES and len([w for w in words if w not in _NOT_OWN]) < 2:
        return None  # "that app", "this place": named elsewhere ("this cute pup" says more)
    pronoun = _PRONOUN.search(kept)
    if pronoun is None:
        return kept
    if pronoun.start() == 0:
        return None
    own = [w for w in words if w not in _NOT_OWN]
    return kept if len(own) > 1 else None


_ITEM = re.compile(r"[\w' -]+")


def listed(raw: str, max_words: int = 4) -> list[str]:
    """ "reading, watching movies, and exploring nature": each item of a short list (three
    or more items; split by hand, not by one pattern, which could backtrack for ever)."""
    text = raw.strip().rstrip(".!")
    head, sep, last = text.rpartition(" and ")
    if not sep or head.count(",") < 1:
        return []
    items = [i.strip() for i in head.rstrip(", ").split(",")] + [last.strip()]
    if any(
        not i
        or not _ITEM.fullmatch(i)
        or len(i.split()) > max_words
        or _BAD_OBJECT.match(i)
        or _DEICTIC.match(i)
        for i in items
    ):
        return []
    return items


_COMMA_LIST = re.compile(r"^[\w' -]+(?:,\s*[\w' -]+)*,?\s+(?:and|or)\s+[\w' -]+\b")
_LIST_END = re.compile(_OBJECT_END.pattern.replace(r"\s*(?:,|", r"\s*(?:", 1), re.IGNORECASE)


def split_list(text: str) -> list[str]:
    """The parts of "a, b and c" (or "a, b, and c"), as said; no cut, no check."""
    return [part for part in _LIST_SEPARATOR.split(text) if part]


_LIST_SEPARATOR = re.compile(r",\s*(?:and\s+)?|\s+and\s+")


def items_of(raw: str, max_words: int) -> list[str]:
    """The items of "a, b and c", "a and b", "a or b" or a single "a" (each short)."""
    text = raw.strip().rstrip(".!")
    # a list's commas are no end of it: "peanuts, shellfish and eggs"
    listed = _COMMA_LIST.match(text) is not None
    cut = (_LIST_END if listed else _OBJECT_END).search(text)
    text = text[: cut.start()] if cut else text
    parts = [p.strip(" ,") for p in re.split(r",\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", text)]
    parts = [re.sub(r"^(?:also|both|all)\s+", "", p) for p in parts if p]
    if not parts or any(
        len(p.split()) > max_words or _BAD_OBJECT.match(p) or _DEICTIC.match(p) for p in parts
    ):
        return []
    return parts


def deictic(text: str) -> bool:
    """Whether ``text`` points at something said elsewhere ("their work", "that one")."""
    return bool(_DEICTIC.match(text))


# What a clause adds after the thing itself: why ("to work", "for fun"), with whom ("with my
# brother"), how often or when ("every day", "on weekends", "twice a month", "in the
# morning"). A fact keeps the thing: "drives a Civic", which "I sold my Civic" can end and
# which reads well in a context. What belongs to the thing stays ("a house with a garden",
# "a degree in biology"): only these phrases, when something is left before them, are cut.
_PURPOSE = (
    r"to (?:work|school|class|college|university|uni|church|the office)"
    r"|for (?:fun|a living|work|exercise|fitness|a hobby|pleasure|relaxation)"
    r"|as a hobby|in my (?:spare|free) time|on the side"
)
_COMPANION = (
    r"with (?:my|our|his|her|their|the|\w+'s) (?:\w+ )?(?:family|friends?|kids|children|parents"
    r"|husband|wife|partner|boyfriend|girlfriend|son|sons|daughters?|brothers?|sisters?"
    r"|mom|dad|mother|father|grandparents|grandma|grandpa|cousins?|dogs?|team|colleagues"
    r"|coworkers|classmates|neighbou?rs?|roommates?)(?:,? (?-i:[A-Z][a-z]+))?"  # "... Elena"
    r"|with friends|with family"
)
_WHEN = (
    r"every (?:single )?\w+|each \w+|daily|weekly|nightly|monthly|most (?:days|mornings|"
    r"evenings|nights|weekends)|on (?:the )?weekends?|at (?:the )?weekends?|on \w+days"
    r"|(?:once|twice|\w+ times) (?:a|per|every) \w+|in the (?:mornings?|evenings?|"
    r"afternoons?)|at night|after (?:work|school)|before (?:work|school)"
    # how long: "learning the cello for two years", "since 2019", "since I was a kid"
    r"|for (?:the (?:past|last) )?(?:\w+ ){0,2}(?:years?|months?|weeks?|decades?)"
    r"|since (?:\d{4}|I was)"
)
# a verb whose object is the phrase that follows it: "spend time with my family", "hang out
# with friends", "go to work" are not complete without it
_INCOMPLETE = re.compile(
    r"\b(?:time|out|go|goes|going|get|gets|getting|come|comes|coming|be|being|spend|"
    r"spending|hang|hanging|stay|staying|travel|traveling|travelling)$",
    re.IGNORECASE,
)
_TRAILING = re.compile(rf"\s+(?:{_PURPOSE}|{_COMPANION}|{_WHEN})\b", re.IGNORECASE)
# where an activity happens is no part of a thing one drives or rides ("my bike in the
# park"); a place stays on what it belongs to ("teaches math at a high school in Austin")
_PLACE_AFTER = re.compile(r"\s+(?:around|in|at|on|through|across)\s", re.IGNORECASE)


_WITH = re.compile(rf"\s+(?:{_COMPANION})\b", re.IGNORECASE)


def without_company(obj: str) -> str:
    """``obj`` without whom it was done with ("the gym with my brother": the gym; "a
    wedding with my family in Rome": a wedding in Rome). Nothing is cut when nothing would
    be left, nor from what the verb needs ("spend time with my family")."""
    if _INCOMPLETE.search(_WITH.split(obj, maxsplit=1)[0]):
        return obj
    return _WITH.sub("", obj).strip(" ,") or obj


def thing_of(obj: str, *, places: bool = False) -> str:
    """``obj`` without what follows the thing (see :data:`_TRAILING`); ``places``: also
    without a trailing place phrase. Nothing is cut when nothing would be left."""
    cut = _TRAILING.search(obj)
    text = obj[: cut.start()] if cut else obj
    if _INCOMPLETE.search(text):
        return obj
    if places and (at := _PLACE_AFTER.search(text)):
        text = text[: at.start()]
    return text.strip(" ,") or obj


_CONTINUED = re.compile(
    r",?\s+and\s+(?=(?:also\s+)?(?:(?P<adj>allergic|vegetarian|vegan|pescatarian|based|"
    r"(?:lactose|gluten|dairy|soy|sugar)(?=[- ]?(?:free|intolerant|sensitive)))|"
    r"(?:weigh|run|live|work|have|love|like|enjoy|hate|prefer|play|drive|own|"
    r"use|teach|climb|swim|cook|hike|walk|go|practice|practise|meditate|study|don't|do not|"
    r"never|am|want|just|got|was|recently|started|quit)\b)|"
    r"(?P<count>(?:two|three|four|five|six|\d{1,2}|an?) (?:\w+ )?"
    r"(?:cat|dog|kid|child|children|son|daughter|brother|sister|fish|bird|horse|rabbit|turtle)"
    r"s?\b))",
    re.IGNORECASE,
)


def shared_subject(rest: str) -> list[str]:
    """ "am vegetarian and allergic to X", "climb on Saturdays and run every morning": the
    parts that share the clause's subject, each readable alone."""
    parts: list[str] = []
    start = 0
    for m in _CONTINUED.finditer(rest):
        parts.append(rest[start : m.start()])
        start = m.end()
        if m["adj"]:
            parts.append("")  # marks: the next part is an adjective after "am"
        elif m["count"] and parts[-1].lower().startswith("have "):
            parts.append("\x01")  # marks: the next part is more of what one has
    parts.append(rest[start:])
    out: list[str] = []
    adjective = False
    having = False
    for part in parts:
        if part in ("", "\x01") and out:
            adjective, having = part == "", part == "\x01"
            continue
        out.append(f"am {part}" if adjective else f"have {part}" if having else part)
        adjective = having = False
    return [p for p in out if p.strip()]
