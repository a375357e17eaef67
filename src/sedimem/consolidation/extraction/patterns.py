"""Clause patterns: one clause of a chat turn -> zero or more (subject, predicate, object).

A clause is read only when it states something: questions, hypotheticals and plans ("I'd
love to", "gonna", "if"), and clauses about the listener ("you") are skipped, because a wrong
fact costs more than a missed one (precision first). The subject is the speaker for "I",
"we" and a clause that starts with a past-tense event verb ("Lost my job yesterday"); a
capitalised name; or "my <relative>" (the speaker's relative, or the name that follows).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sedimem.consolidation.extraction.vocabulary import EVENT_VERBS, FAMILY, GERUNDS, PETS

__all__ = ["Match", "match_clause", "split_clauses"]


@dataclass(frozen=True, slots=True)
class Match:
    """One triple read from a clause; ``negated`` means the clause ends it."""

    subject: str
    predicate: str
    object: str | None
    surface: str  # the verb as a statement says it ("lives in", "went to")
    negated: bool = False
    future: bool = False
    confidence: float = 0.6
    dated: bool = True  # whether the clause's date applies (not to "my daughter Maya")


_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_CLAUSES = re.compile(
    r";|\s[-\u2013\u2014]\s|,?\s+but\s+|,\s*so\s+|\s+because\s+|\s+'?cause\s+|,\s*which\s+"
    r"|,?\s+and\s+(?=(?:I|we|my)\b)|,\s*(?=(?:I|we)\b)",
    re.IGNORECASE,
)
_LEAD = re.compile(
    r"^(?:(?:yeah|yes|yep|yup|so|well|oh|ooh|wow|woah|whoa|also|btw|by the way|actually|"
    r"anyway|and|plus|hey|haha|lol|omg|ok|okay|guess what|fun fact|cool|nice|thanks|"
    r"thank you|honestly|totally|sure|hi|hello|great|but)\b[,!.]?\s*)+",
    re.IGNORECASE,
)
_SKIP = re.compile(
    r"\b(?:you|your|yours|would|'d|could|might|should|if|hope|hoping|wish|want|wanna|"
    r"gonna|going to|plan|planning|thinking|maybe|perhaps|let's|let me|can't wait|"
    r"someday|dream|dreaming|trying to|try to|need to|have to|gotta|will|'ll)\b",
    re.IGNORECASE,
)
_ADVERBS = (
    r"(?:(?:just|recently|finally|also|really|actually|totally|still|now|even|already|"
    r"officially|truly|absolutely|definitely|so|always|both|all)\s+)*"
)
_BAD_OBJECT = re.compile(
    r"^(?:(?:it|that|this|these|those|them|him|her|me|us|you|one)$|(?:it|them|him|me|us|you|"
    r"how|what|when|where|why|who|which|to|the idea|the fact|being|some|something|anything|"
    r"everything|nothing|a lot|so much|here|there|that's|it's|lots|more|a bit)\b)",
    re.IGNORECASE,
)
_OBJECT_END = re.compile(
    r"\s*(?:,|!|\.|\(|\s-\s|\sand it\b|\sand they\b|\swhich\b|\sthat was\b|\sit was\b"
    r"|\sso\b|\stoo\b|\sa lot\b|\sso much\b|\severy day\b|\severy\b|\slately\b|\snow\b"
    r"|\sthough\b|\sas well\b|\sright now\b|\sat the moment\b|\ssince\b|\srecently\b|$)",
    re.IGNORECASE,
)
_DEICTIC = re.compile(r"^(?:this|that|these|those|their|his|her|its)\b", re.IGNORECASE)
_RELATION = "|".join(sorted(FAMILY, key=len, reverse=True))
_PET = "|".join(sorted(PETS, key=len, reverse=True))
_NAME = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_NOT_NAMES = frozenset(
    {
        "I", "We", "It", "This", "That", "The", "They", "He", "She", "My", "Our", "There",
        "Here", "What", "When", "Thanks", "Yeah", "Wow", "Just", "Last", "Next", "Today",
        "Yesterday", "Also", "So", "And", "But", "Then", "Now", "Sounds", "Great", "Cool",
        "Nice", "Awesome", "Hey", "Hi", "Oh", "Congrats", "Glad", "Sorry", "Haha", "Lol",
        "Well", "Anyway", "Me", "Your", "His", "Her", "Their", "Everyone", "Nobody", "Some",
        "Growing", "Being", "Having", "Playing", "Painting", "Dance", "Reading", "Writing",
    }
)  # fmt: skip
_FIRST = re.compile(r"^(?P<subj>I|we)(?P<be>'m|'ve|'d| am| have| was| were| are|'re)?\s+", re.I)
_RELATIVE = re.compile(rf"\b[Mm]y (?P<rel>{_RELATION})s?(?:,? (?P<name>[A-Z][a-z]+))?\b")
_PET_NAMED = re.compile(
    rf"\b(?:a|an|my|our|new|another)\s+(?:\w+\s+)?(?P<pet>{_PET})\s+(?:named|called)\s+"
    r"(?P<name>[A-Z][a-z]+)"
)
_PET_MINE = re.compile(rf"\b[Mm]y (?:\w+ )?(?P<pet>{_PET}),? (?P<name>[A-Z][a-z]+)\b")


def split_clauses(text: str) -> list[str]:
    """Statement clauses: questions dropped, leading interjections stripped."""
    out: list[str] = []
    text = text.replace("\u2019", "'").replace("`", "'")
    for sentence in _SENTENCES.split(text):
        sentence = sentence.strip()
        if not sentence or sentence.endswith("?"):
            continue
        for clause in _CLAUSES.split(sentence):
            clause = _LEAD.sub("", clause.strip()).strip().rstrip(".!").strip()
            if clause:
                out.append(clause)
    return out


def _object(raw: str, *, max_words: int = 8) -> str | None:
    """The object phrase: cut at the first boundary, refused if empty, vague or too long."""
    cut = _OBJECT_END.search(raw)
    text = (raw[: cut.start()] if cut else raw).strip(" ,;:\"'")
    text = re.sub(r"^doing\s+", "", text, flags=re.IGNORECASE)
    if not text or _BAD_OBJECT.match(text) or len(text.split()) > max_words:
        return None
    return text


_LIST = re.compile(r"^(?P<items>[\w' -]+(?:,\s*[\w' -]+)+),?\s+and\s+(?P<last>[\w' -]+?)\s*$")


def _listed(raw: str) -> list[str]:
    """ "reading, watching movies, and exploring nature": each item of a short list."""
    m = _LIST.match(raw.strip().rstrip(".!"))
    if m is None:
        return []
    items = [i.strip() for i in m["items"].split(",")] + [m["last"].strip()]
    if any(not i or len(i.split()) > 4 or _BAD_OBJECT.match(i) or _DEICTIC.match(i) for i in items):
        return []
    return items


def _possessive(text: str, speaker: str) -> str:
    return re.sub(r"\b(?:my|our)\b", f"{speaker}'s", text, flags=re.IGNORECASE)


def _relations(clause: str, speaker: str) -> list[Match]:
    """ "my daughter Maya", "a dog named Rex", "my cat Tom": who belongs to the speaker."""
    found: list[Match] = []
    for m in _RELATIVE.finditer(clause):
        if m["name"] and m["name"] not in _NOT_NAMES:
            predicate = FAMILY[m["rel"].lower()]
            found.append(
                Match(
                    speaker, predicate, m["name"], f"has a {m['rel']},", confidence=0.7, dated=False
                )
            )
    for m in [*_PET_NAMED.finditer(clause), *_PET_MINE.finditer(clause)]:
        if m["name"] not in _NOT_NAMES:
            obj = f"{m['pet'].lower()} named {m['name']}"
            found.append(Match(speaker, "has_pet", obj, "has a", confidence=0.7, dated=False))
    return found


def _subject(clause: str, speaker: str) -> tuple[str, str, bool] | None:
    """(subject, rest of the clause, first person) or None when no subject is readable."""
    first = _FIRST.match(clause)
    if first:
        be = (first["be"] or "").strip().lower()
        rest = clause[first.end() :]
        if be in ("'m", "am", "'re", "are"):
            rest = "am " + rest
        elif be in ("'ve", "have"):
            rest = "have " + rest
        elif be in ("was", "were"):
            rest = "was " + rest
        elif be == "'d":
            return None
        return speaker, rest, True
    rel = re.match(rf"^[Mm]y (?P<rel>{_RELATION})(?: (?P<name>[A-Z][a-z]+))?\s+", clause)
    if rel:
        subject = rel["name"] or f"{speaker}'s {rel['rel'].lower()}"
        return subject, clause[rel.end() :], False
    name = re.match(rf"^(?P<name>{_NAME})\s+", clause)
    # a capitalised gerund opens a sentence ("Networking plays a role"), it names nobody
    if name and name["name"].split()[0] not in _NOT_NAMES and not name["name"].endswith("ing"):
        return name["name"], clause[name.end() :], False
    return None


_EVENTS = "|".join(sorted(map(re.escape, EVENT_VERBS), key=len, reverse=True))
_GERUND = "|".join(sorted(map(re.escape, GERUNDS), key=len, reverse=True))
_ROLE_JOB = re.compile(
    r"^(?:started|got|landed|began|took|accepted)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)"
    r"(?:\s+as\s+(?:an?\s+)?(?P<role>[^,!.]+?))?(?:\s+at\s+(?P<org>[^,!.]+?))?$",
    re.IGNORECASE,
)
_LOST_JOB = re.compile(
    r"^(?:lost|quit|left)\s+(?:my|his|her|the|our)\s+job"
    r"(?:\s+as\s+(?:an?\s+)?(?P<role>[^,!.]+?))?(?:\s+at\s+(?P<org>[^,!.]+?))?$",
    re.IGNORECASE,
)


def _state(rest: str, subject: str, first: bool) -> list[Match]:
    """Present-tense states: where one lives and works, what one likes, plays, eats."""
    verb_s = "" if first else "s"
    checks: list[tuple[str, str, str, float]] = [
        (rf"^live{verb_s} in (?P<o>.+)", "lives_in", "lives in", 0.8),
        (rf"^work{verb_s} (?:at|for) (?P<o>.+)", "works_at", "works at", 0.8),
        (rf"^work{verb_s} as (?:an? )?(?P<o>.+)", "works_as", "works as", 0.8),
        (r"^(?:am|is) from (?P<o>.+)", "comes_from", "comes from", 0.7),
        (r"^(?:am|is) (?:a |an )?(?P<o>vegetarian|vegan|pescatarian)\b", "diet", "is", 0.8),
        (r"^(?:am|is) (?:an? )(?P<o>[\w ]+?) (?:at|for) (?P<at>.+)", "works_as", "works as", 0.6),
        (
            rf"^(?:do |does )?(?:love{verb_s}|like{verb_s}|enjoy{verb_s}|adore{verb_s}) "
            r"(?P<o>.+)",
            "likes",
            "likes",
            0.6,
        ),
        (
            r"^(?:am|is|been|have been|has been) (?:into|passionate about|keen on|obsessed with|"
            r"crazy about|all about|"
            r"a (?:big |huge )?fan of) (?P<o>.+)",
            "likes",
            "likes",
            0.6,
        ),
        (r"^(?:am|is) an? (?:big |huge )?(?P<o>[\w -]+?) fan\b", "likes", "likes", 0.6),
        (rf"^play{verb_s} (?:the )?(?P<o>.+)", "plays", "plays", 0.6),
        (rf"^eat{verb_s} (?P<o>.+)", "eats", "eats", 0.6),
        (rf"^(?:hate{verb_s}|(?:don't|doesn't) (?:really )?(?:like|enjoy)) (?P<o>.+)",
         "dislikes", "dislikes", 0.6),
        (r"^moved to (?P<o>.+)", "lives_in", "moved to", 0.7),
        (r"^passed away\b", "died", "passed away", 0.7),
        (rf"^(?:start{verb_s}|begin{verb_s}) (?P<o>.+)", "starts", "starts", 0.6),
    ]  # fmt: skip
    for pattern, predicate, surface, confidence in checks:
        m = re.match(pattern, rest, re.IGNORECASE)
        if m is None:
            continue
        if predicate == "died":
            return [Match(subject, predicate, None, surface, confidence=confidence)]
        listed = _listed(m["o"]) if predicate in ("likes", "dislikes") else []
        if listed:
            return [
                Match(subject, predicate, item, surface, confidence=confidence) for item in listed
            ]
        obj = _object(m["o"])
        if obj is None:
            return []
        if predicate == "likes" and obj.lower().split()[0] in ("all", "every"):
            obj = " ".join(obj.split()[1:]) or obj
        if predicate in ("likes", "dislikes") and _DEICTIC.match(obj):
            return []  # "I love their work": whose, what, is in another turn
        future = predicate == "starts"
        return [Match(subject, predicate, obj, surface, future=future, confidence=confidence)]
    return []


def _negation(rest: str, subject: str) -> list[Match]:
    """ "no longer eat meat", "don't eat meat anymore", "stopped smoking", "lost my job"."""
    lost = _LOST_JOB.match(rest)
    if lost:
        out: list[Match] = []
        if lost["role"]:
            out.append(Match(subject, "works_as", lost["role"].strip(), "works as", True))
        if lost["org"]:
            out.append(Match(subject, "works_at", lost["org"].strip(), "works at", True))
        return out or [Match(subject, "works_at", None, "works at", True)]
    m = re.match(
        r"^(?:no longer|(?:do not|don't|does not|doesn't|am not|is not) (?P<any>.+?) "
        r"(?:anymore|any more)$)",
        rest,
        re.IGNORECASE,
    )
    inner: str | None = None
    if m and m["any"]:
        inner = m["any"]
    elif rest.lower().startswith("no longer "):
        inner = rest[len("no longer ") :]
    else:
        stop = re.match(r"^(?:stopped|quit|gave up|gave up on)\s+(?P<inner>.+)$", rest, re.I)
        inner = stop["inner"] if stop else None
    if inner is None:
        return []
    verb = re.match(rf"^(?P<g>{_GERUND})(?:s)?(?:\s+(?P<o>.+))?$", inner, re.IGNORECASE)
    if verb is None:
        return []
    predicate = GERUNDS[verb["g"].lower()]
    obj = _object(verb["o"] or "") if verb["o"] else None
    if verb["o"] and obj is None:
        return []
    surface = predicate.replace("_", " ")
    return [Match(subject, predicate, obj, surface, negated=True, confidence=0.7)]


def _event(rest: str, subject: str) -> list[Match]:
    """Past events: "went to X", "adopted a dog", "started a new job as X"."""
    job = _ROLE_JOB.match(rest)
    if job and (job["role"] or job["org"]):
        out: list[Match] = []
        if job["role"]:
            out.append(Match(subject, "works_as", job["role"].strip(), "works as", confidence=0.7))
        if job["org"]:
            out.append(Match(subject, "works_at", job["org"].strip(), "works at", confidence=0.7))
        return out
    m = re.match(rf"^(?P<v>{_EVENTS})\s+(?P<o>.+)$", rest, re.IGNORECASE)
    if m is None:
        went = re.match(r"^went\s+(?P<o>\w+ing)\b", rest, re.IGNORECASE)
        if went and went["o"].lower() not in ("nothing", "something", "thing"):
            return [Match(subject, "did", went["o"].lower(), "went", confidence=0.6)]
        return []
    verb = m["v"].lower()
    obj = _object(m["o"])
    if obj is None:
        return []
    predicate = EVENT_VERBS[verb]
    out = [Match(subject, predicate, obj, verb, confidence=0.6)]
    if predicate == "adopted":
        pet = re.match(rf"^(?:an?|two|three|\d)\s+(?:\w+\s+)?(?P<pet>{_PET})$", obj, re.I)
        if pet:
            out.append(Match(subject, "has_pet", pet["pet"].lower(), "has a", confidence=0.6))
    return out


def match_clause(clause: str, speaker: str) -> list[Match]:
    """Every triple a clause states (the date expressions are already cut out)."""
    found = _relations(clause, speaker)
    if _SKIP.search(clause):
        return found
    owned = _possessions(clause, speaker)
    if owned:
        return found + owned
    # a clause opening on a past event verb has the speaker as its subject
    if re.match(rf"^(?:just\s+)?(?:{_EVENTS}|lost|quit|started|got)\b", clause, re.I):
        read: tuple[str, str, bool] | None = (
            speaker,
            re.sub(r"^just\s+", "", clause, flags=re.I),
            True,
        )
    else:
        read = _subject(clause, speaker)
    if read is None:
        return found
    subject, rest, first = read
    rest = re.sub(rf"^{_ADVERBS}", "", rest, flags=re.IGNORECASE)
    if first and rest.lower().startswith(("am ", "have ", "was ")):
        head, _, tail = rest.partition(" ")
        if not tail.lower().startswith("all about"):  # "all" is no adverb there
            tail = re.sub(rf"^{_ADVERBS}", "", tail, flags=re.IGNORECASE)
        if head.lower() == "have":
            rest = tail  # "I've started" reads as "started"
        elif head.lower() == "am":
            rest = "am " + tail
    matches = _negation(rest, subject) or _state(rest, subject, first) or _event(rest, subject)
    return found + [
        Match(
            m.subject,
            m.predicate,
            None if m.object is None else _possessive(m.object, speaker),
            m.surface,
            m.negated,
            m.future,
            m.confidence,
        )
        for m in matches
    ]


_LIKED = re.compile(
    r"^(?P<o>[\w' -]+?) (?:is|are) (?:one of )?my (?:main |favorite |fave |top |biggest )?"
    r"(?:hobbies|hobby|passions?|favorites?|faves?|top pick)$",
    re.IGNORECASE,
)
_GOAL = re.compile(r"^(?:one of )?my (?:main |biggest )?goals? (?:is|are) to (?P<o>.+)$", re.I)


def _possessions(clause: str, speaker: str) -> list[Match]:
    """ "X and Y are my main hobbies", "my goal is to X": what the speaker likes and aims at."""
    liked = _LIKED.match(clause)
    if liked:
        items = re.split(r",\s*(?:and\s+)?|\s+and\s+", liked["o"])
        return [
            Match(speaker, "likes", item.strip(), "likes")
            for item in items
            if item.strip() and not _BAD_OBJECT.match(item.strip())
        ]
    goal = _GOAL.match(clause)
    if goal:
        obj = _object(goal["o"], max_words=10)
        return [] if obj is None else [Match(speaker, "goal", _possessive(obj, speaker), "aims to")]
    return []
