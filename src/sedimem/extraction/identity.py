"""What the speaker is, was, and means to become: "I'm an environmentalist", "I used to be
in the military", "I want to be a marine biologist".

These are among the most useful things a user says about themself, and the easiest to read
wrongly, so each reader takes one narrow shape and refuses the rest:

- **What one is** (``status``, "{s} is {o}"): "am a/an <words> <person>" whose head noun
  names a kind of person (a listed word, or an agent ending: "-ist", "-ian", "-er"...), so
  "I'm an old man with one leg" and "I'm a proud Republican" are read and "I'm a bit
  tired", "I'm a long way from home" are not. It runs after every more specific reader
  (occupations, diets, marital status), which keep their own predicates.
- **What one was** (``used_to``): "used to be/work/live/play ..."; a habit given up is
  history worth knowing ("I used to be a carpenter"), and the clause's tense keeps it from
  reading as the present.
- **What one means to become** (``goal``): "I want to be / hope to become / my dream is to
  be <a person>", and "I'm hoping to be a teacher". Only being or becoming someone: "I want
  to try that place" is a passing wish, not a fact. "My goal is to X" is one too, and
  "X and Y are my main hobbies" what one likes (:func:`possessions`).
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, bad_object, object_of, split_list, stated_object
from sedimem.extraction.subjects import possessive
from sedimem.extraction.vocabulary import OCCUPATIONS

__all__ = ["school_year", "aspiration", "former", "identity", "possessions", "target_weight"]

# Head nouns that name a person without an agent ending.
_PEOPLE = frozenset(
    """man woman girl boy guy lady gentleman kid child teen teenager adult person people
    mom mother dad father parent wife husband grandma grandmother grandpa grandfather
    son daughter sister brother twin veteran vet lover nerd geek buff junkie addict
    enthusiast fanatic introvert extrovert loner homebody foodie vegan vegetarian
    republican democrat liberal conservative christian catholic muslim jew atheist
    buddhist hindu native immigrant citizen local newbie beginner novice expert pro
    athlete graduate grad major freshman sophomore junior senior alumnus alumna
    member patient survivor animal-lover bookworm workaholic perfectionist owl
    homeschooler mama papa chick representative executive relative detective male female
    professional american""".split()
) | {job for job in OCCUPATIONS if " " not in job}
# Agent endings ("environmentalist", "bodybuilder", "musician", "employee").
_AGENT = re.compile(r"(?:ist|ian|[^e]er|eer|or|ess|ant|ent|ee|man|woman|ic)$")
# Words with an agent ending that name no person (comparatives, things, times).
_NOT_PEOPLE = frozenset(
    """other another older younger bigger better smaller taller shorter faster slower
    stronger weaker happier harder easier later sooner rather never ever over under
    after whether together however super number winter summer water paper power order
    corner dinner center centre matter letter computer border chapter weather answer
    color colour floor door error favor favour flavor flavour honor humor mirror
    moment event percent comment content recent different excellent urgent present
    current talent basic magic topic music picture plastic panic traffic mess dress chess
    guess press access process success stress address business progress express mattress
    list wrist twist""".split()
)
# "a bit", "a little", "a lot": what follows is an adjective, not a kind of person
_DEGREE = re.compile(r"^(?:bit|little|lot|tad|few|couple|kind|sort|part|piece|way)\b", re.I)
# Where the phrase naming the person ends.
_PHRASE_END = re.compile(
    r"\s*(?:,|;|\bwho\b|\bthat\b|\bwhich\b|\bso\b|\bbut\b|\band\b|\bbecause\b|\bwhen\b"
    r"|\bsince\b|\bif\b|\bthan\b|\bright now\b|\bnow\b|\btoo\b|\bas well\b|\bthough\b"
    r"|\bat heart\b|\bat the moment\b|\bthese days\b|\bmyself\b|\banyway\b"
    r"|\bactually\b|\breally\b|$)",
    re.IGNORECASE,
)
# The head noun comes before the first preposition or verb ("mother of two", "man with one
# leg", "student studying biology").
_AFTER_HEAD = re.compile(
    r"\s(?:of|with|from|in|at|on|for|to|by|like|(?!(?:morning|evening|thing|king|ring|"
    r"string|spring|wedding|building|darling|sibling)\s)\w{3,}ing)\s",
    re.IGNORECASE,
)


def _person_phrase(raw: str) -> str | None:
    """``raw`` ("an old man with one leg who...") as "an old man with one leg" when its
    head names a kind of person; None otherwise."""
    m = re.match(r"^(?P<art>an?)\s+(?P<rest>.+)$", raw.strip(), re.IGNORECASE)
    if m is None or _DEGREE.match(m["rest"]):
        return None
    cut = _PHRASE_END.search(m["rest"])
    phrase = (m["rest"][: cut.start()] if cut else m["rest"]).strip(" ,.!")
    if not phrase:
        return None
    head_part = _AFTER_HEAD.split(f"{phrase} ", maxsplit=1)[0]
    words = re.findall(r"[A-Za-z][\w'-]*", head_part)
    if not words or len(phrase.split()) > 8:
        return None
    head = words[-1].lower()
    if head in _NOT_PEOPLE or (head not in _PEOPLE and not _AGENT.search(head)):
        return None
    if head.endswith("s") and head not in _PEOPLE and not head.endswith(("ss", "ous")):
        return None  # a plural after "a" is no noun phrase of one person ("a sports")
    return stated_object(f"{m['art'].lower()} {phrase}")


# "I'm in the army", "I'm serving in the navy", "I'm attending college": where one is
# for years, not for the afternoon ("I'm at school" is where one is now: not read)
_ENROLLED = re.compile(
    r"^am\s+(?:currently\s+|still\s+|now\s+)?(?:in|serving\s+in|attending)\s+"
    r"(?P<o>(?:the\s+)?(?:army|navy|air\s+force|marines|military|national\s+guard|coast\s+guard)"
    r"|college|(?:high|middle|elementary|grade|primary|secondary)\s+school|school|university"
    r"|grad\s+school|med(?:ical)?\s+school"
    r"|law\s+school|nursing\s+school)$",
    re.IGNORECASE,
)


_SCHOOL_YEAR = re.compile(
    r"^am\s+an?\s+(?P<y>freshman|sophomore|junior|senior)(?:\s+student)?\s+(?:at|in)\s+"
    r"(?P<at>(?-i:[A-Z])[\w&.'-]*(?:\s+(?-i:[A-Z])[\w&.'-]*){0,3})"
    r"(?:,?\s+(?:studying|majoring\s+in)\s+(?P<what>[a-z][\w -]{1,30}))?$",
    re.IGNORECASE,
)


def school_year(rest: str, subject: str) -> list[Match]:
    """ "am a sophomore at NYU studying computer science": a student there (no job), and
    what one studies."""
    year = _SCHOOL_YEAR.match(rest)
    if year is None:
        return []
    found = [
        Match(subject, "status", f"a {year['y'].lower()}", "is", confidence=0.7),
        Match(subject, "attends", year["at"], "attends", confidence=0.7),
    ]
    if year["what"] and not bad_object(year["what"]):
        found.append(Match(subject, "learning", year["what"], "is learning", confidence=0.6))
    return found


def identity(rest: str, subject: str) -> list[Match]:
    """ "am an environmentalist", "am a young mixed race girl", "am in the army": what
    ``subject`` is."""
    rest = rest.strip()
    enrolled = _ENROLLED.match(rest)
    if enrolled:
        where = re.sub(r"\s+", " ", enrolled["o"].lower())
        return [Match(subject, "status", f"in {where}", "is", confidence=0.6, dated=False)]
    m = re.match(r"^am\s+(?:(?:more\s+)?of\s+)?(?P<o>an?\s.+)$", rest, re.I)
    if m is None or re.search(r",\s+[a-z]", rest):
        return []  # "a teacher in Ohio, looking for...": the clause is read again without it
    phrase = _person_phrase(m["o"])
    if phrase is None:
        return []
    return [Match(subject, "status", phrase, "is", confidence=0.6, dated=False)]


_FORMER = re.compile(
    r"^(?:I|we)\s+used\s+to\s+(?P<o>(?:be|work|live|play|teach|run|own|race|coach|sing|"
    r"dance|study|serve|volunteer|collect|build|restore|paint|write|ride|drive)\b.+)$",
    re.IGNORECASE,
)


# "a carpenter before I went to college": the clause that dates it is not the object
_WHEN = re.compile(
    r"\s+(?:before|after|when|until|while|but|because|myself|back then|as a kid)\b.*$", re.I
)


def former(clause: str, speaker: str) -> list[Match]:
    """ "I used to be in the military": what the speaker was or did (``used_to``)."""
    m = _FORMER.match(clause.strip())
    if m is None:
        return []
    obj = object_of(_WHEN.sub("", m["o"]), max_words=10)
    obj = None if obj is None else stated_object(obj)
    if obj is None or len(obj.split()) < 2:
        return []
    return [Match(speaker, "used_to", obj, "used to", confidence=0.6, dated=False)]


_ASPIRATION = re.compile(
    r"^(?:I\s+(?:really\s+)?(?:want|hope|plan|aspire|would like|'d like)\s+to|"
    r"I(?:'m|\s+am)\s+(?:hoping|planning|aiming|studying|training)\s+to|"
    r"my\s+(?:dream|goal|plan)\s+is\s+to|I\s+(?:have\s+a\s+dream|dream)\s+of)\s+"
    r"(?:be|become|becoming|being)\s+(?P<o>an?\s.+)$",
    re.IGNORECASE,
)
_ONE_DAY = re.compile(
    r"\s+(?:when\s+I\s+grow\s+up|one\s+day|someday|some\s+day|in\s+the\s+future|"
    r"eventually|soon|after\s+college|after\s+school)\b.*$",
    re.IGNORECASE,
)


def aspiration(clause: str, speaker: str) -> list[Match]:
    """ "I want to be a doctor", "my dream is to become an actress": who the speaker means
    to become (``goal``: "aims to become a doctor")."""
    m = _ASPIRATION.match(_ONE_DAY.sub("", clause.strip()))
    if m is None:
        return []
    phrase = _person_phrase(m["o"])
    if phrase is None:
        return []
    return [Match(speaker, "goal", f"become {phrase}", "aims to", confidence=0.6, dated=False)]


_TARGET = re.compile(
    r"^I(?:\s+(?:really\s+)?(?:want|hope|plan|need|aim|would like)|'d like|(?:'m|\s+am)\s+"
    r"(?:trying|hoping|planning|aiming))\s+to\s+(?:get|be|go|weigh)\s+"
    r"(?P<how>under|below|down to|less than)\s+(?P<v>\d{2,3}(?:[.,]\d)?)"
    r"(?:\s?(?P<unit>kg|kgs|kilos|lbs|pounds))?(?P<by>\s+by\s+[\w ]{1,20}?)?$",
    re.IGNORECASE,
)


def target_weight(clause: str, speaker: str) -> list[Match]:
    """ "I want to get under 85 by summer": the weight the speaker aims at (``goal``)."""
    m = _TARGET.match(clause.strip())
    if m is None:
        return []
    unit = f" {m['unit']}" if m["unit"] else ""
    by = m["by"] or ""
    how = m["how"].lower()
    how = "of" if how == "down to" else how
    goal = f"reach a weight {how} {m['v']}{unit}{by}"
    return [Match(speaker, "goal", goal, "aims to", confidence=0.6, dated=False)]


_LIKED = re.compile(
    r"^(?P<o>[\w' -]+?) (?:is|are) (?:one of )?my (?:main |favorite |fave |top |biggest )?"
    r"(?:hobbies|hobby|passions?|favorites?|faves?|top pick)$",
    re.IGNORECASE,
)
_GOAL = re.compile(r"^(?:one of )?my (?:main |biggest )?goals? (?:is|are) to (?P<o>.+)$", re.I)


def possessions(clause: str, speaker: str) -> list[Match]:
    """ "X and Y are my main hobbies", "my goal is to X": what the speaker likes and aims at."""
    liked = _LIKED.match(clause)
    if liked:
        items = split_list(liked["o"])
        return [
            Match(speaker, "likes", item.strip(), "likes")
            for item in items
            if item.strip() and not bad_object(item)
        ]
    goal = _GOAL.match(clause)
    if goal:
        obj = object_of(goal["o"], max_words=10)
        return [] if obj is None else [Match(speaker, "goal", possessive(obj, speaker), "aims to")]
    return []
