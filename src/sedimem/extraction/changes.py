"""Clauses that change a value: a new value replaces an old one, or a fact ends.

One idea: what a person says when something about them *changed* - they moved, switched
jobs, were promoted, turned a year older, raised a budget, lost a job or a pet, stopped
eating meat. The readers of :mod:`.patterns` call these before or among their own; the
triples carry ``negated=True`` when the clause ends a fact (the caller closes it), and a
new value of a single-valued predicate (:mod:`.vocabulary`) supersedes the old one.
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, object_of
from sedimem.extraction.subjects import NOT_NAMES
from sedimem.extraction.vocabulary import (
    CARS,
    FAMILY,
    GERUNDS,
    LANGUAGES,
    OWNED,
    PET_WORDS,
    PLAYED,
    RIDDEN,
    alternation,
)
from sedimem.types.longterm import Fact

__all__ = [
    "JOB_CHANGED",
    "MEASURE_SET",
    "MOVED_THERE",
    "MOVES",
    "MOVING_TO",
    "NEW_JOB",
    "NAME_GONE",
    "NO_LONGER_DIET",
    "RENAMED_OR_AGED",
    "born",
    "ended",
    "expecting",
    "graduated",
    "job_change",
    "name_gone",
    "new_employer",
    "pet_endings",
    "pet_gone",
    "sold",
    "switched",
    "switched_job",
    "what_follows",
]

#: "We finally moved!", "we've moved in": a move that names no place (where to is the
#: plan told before, if any: see :class:`~.rules.RuleExtractor`); not "we moved the couch"
MOVED_THERE = re.compile(
    r"\b(?:[Ww]e|I)(?:'ve| have)? (?:finally |just |officially |now )*moved(?: in| house)?"
    r"(?=\s*(?:[.!,;)]|$| (?:last|this|yesterday|today|over the weekend|a (?:week|month) ago|"
    r"\w+ (?:days|weeks|months) ago)\b))"
)
#: A job one now has: "a new job", "got the job", "I was hired", "started my new job" (a
#: search for one told before ends: see :class:`~.rules.RuleExtractor`)
NEW_JOB = re.compile(
    r"\b(?:new (?:job|position|role)|got (?:a |the )?job|(?:was|got|been) hired|started (?:a |my )?"
    r"(?:new )?job)\b",
    re.IGNORECASE,
)
#: A plan to move somewhere, as filed ("plans": "moving to Manchester")
MOVING_TO = re.compile(
    r"^(?:moving|relocating) (?:back )?to (?P<place>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2})$"
)


# "my dog Rex passed away", "we had to put our cat down": the pet is no longer the speaker's
_PET_GONE = re.compile(
    rf"\b(?:(?:[Mm]y|[Oo]ur) (?:old |beloved |sweet |little )?(?P<pet>{PET_WORDS})"
    r"(?:,? (?P<name>[A-Z][a-z]+))?,? (?:passed away|died|passed on)\b|"
    r"(?:I|[Ww]e) (?:lost|had to put down|had to say goodbye to) (?:my|our) "
    rf"(?:old |beloved |sweet |little )?(?P<pet2>{PET_WORDS})(?:,? (?P<name2>[A-Z][a-z]+))?|"
    rf"(?:I|[Ww]e) had to put (?:my|our) (?:old )?(?P<pet3>{PET_WORDS})"
    r"(?: (?P<name3>[A-Z][a-z]+))? down\b)"
)


def pet_gone(clause: str, speaker: str) -> list[Match]:
    """The speaker's pet died: their ``has_pet`` of it ends (named: only that one)."""
    gone = _PET_GONE.search(clause)  # "Sadly, my dog Rex passed away"
    if gone is None:
        return []
    pet = (gone["pet"] or gone["pet2"] or gone["pet3"]).lower()
    name = gone["name"] or gone["name2"] or gone["name3"]
    obj = f"{pet} named {name}" if name and name not in NOT_NAMES else pet
    return [Match(speaker, "has_pet", obj, "had a", negated=True, confidence=0.7)]


#: "Luna passed away": a name alone that died (a clause about it is read though it names
#: no person of the speaker's)
NAME_GONE = re.compile(
    # a short lead-in first: "Sadly, ", "Sad news: ", "Update: "
    r"^(?:(?:[Ss]adly|[Uu]nfortunately|[Tt]ragically),? |[A-Z][a-z]+(?: [a-z]+){0,2}[:,] )?"
    r"(?:(?:[Mm]y|[Oo]ur) )?"
    r"(?:(?:sweet|beloved|old|little|dear) )?(?P<name>[A-Z][a-z]+) "
    r"(?:passed away|died|passed on|crossed the rainbow bridge)\b"
)
#: the kind of pet a name is known as when the clause does not say it ("pet named Luna")
_SOME_PET = "pet"


def name_gone(clause: str, speaker: str, named: frozenset[str]) -> list[Match]:
    """ "Luna passed away": the speaker's pet of that name, if they have one, ends. Which
    kind it is ("my cat Luna") was said in another turn: :func:`pet_endings` gives the
    store an ending that matches any kind. A relative ("Grandma", or a name the turn gave
    a relative) is not a pet."""
    m = NAME_GONE.match(clause)
    if m is None:
        return []
    name = m["name"]
    if name in NOT_NAMES or name in named or name.lower() in FAMILY or name == speaker:
        return []
    gone = f"{_SOME_PET} named {name}"
    return [Match(speaker, "has_pet", gone, "had a", negated=True, confidence=0.6)]


def pet_endings(ended: Fact) -> list[Fact]:
    """``ended`` as the store can match it: "pet named Luna", and "named Luna" for a pet
    filed under its kind ("cat named Luna": the store ends a value that begins with the
    ending's words, or ends with them); any other ending as it is."""
    prefix = f"{_SOME_PET} named "
    obj = ended.object or ""
    if ended.predicate != "has_pet" or not obj.startswith(prefix):
        return [ended]
    return [ended, ended.model_copy(update={"object": obj.removeprefix(f"{_SOME_PET} ")})]


#: "We raised the budget to 3000 euros", "My landlord raised the rent to $2,000": the
#: measure's new value (whoever set it, it is the speaker's)
MEASURE_SET = re.compile(
    r"^(?:I|[Ww]e|(?:[Mm]y|[Oo]ur|[Tt]he) (?:landlord|landlady|boss|employer|company))"
    r"(?:'ve| have)? (?:just |finally )?(?:raised|increased|upped|bumped up|"
    r"lowered|cut|reduced|dropped|changed|set|moved) (?:my|our|the) (?:(?:trip|travel|"
    r"holiday|vacation|monthly|yearly|annual|total|wedding|house|renovation) )?"
    r"(?P<m>budget|rent|salary|savings)(?: for (?P<for>[\w ]{1,30}?))? (?:up |down )?to "
    r"(?:about |around |roughly )?(?P<v>[$\u20ac\u00a3]?\d[\w$,. ]{0,30})$"
)

#: Present-tense patterns of :func:`.patterns._state` (pattern, predicate, surface,
#: confidence) that state a changed value: a new name, an age just reached ...
RENAMED_OR_AGED: list[tuple[str, str, str, float]] = [
    (r"^changed (?:my|his|her) name to (?P<o>[A-Z][\w'-]+)$", "name", "name", 0.7),
    (r"^(?:just |finally )?turned (?P<o>\d{1,2})$", "age", "turned", 0.7),
    # "Maya turns 8 next week", "I'm turning 30 in May": the age from the day it names
    (r"^(?:turns?|will turn|am turning) (?P<o>\d{1,2})(?:,? and .*)?$", "age", "turned", 0.7),
    (r"^(?:just |finally )?celebrated (?:my|his|her) (?P<o>\d{1,2})(?:st|nd|rd|th) birthday$",
     "age", "turned", 0.7),
]  # fmt: skip
#: ... a move, a new employer.
MOVES: list[tuple[str, str, str, float]] = [
    (r"^moved (?:into|in to|to) (?:a |an |my |our )?(?:new |bigger |smaller |little )?"
     r"(?:apartment|flat|house|home|place|condo|studio) in (?P<o>.+)", "lives_in", "moved to",
     0.7),
    (r"^(?:started|began) working (?:at|for) (?P<o>.+)", "works_at", "works at", 0.7),
    # "moved to Austin from Seattle": where from is no part of where, and is where one lived
    (r"^moved (?:back |away |out )?(?:from (?P<from>[\w .'-]+?) )?to (?P<o>.+?)"
     r"(?: from (?P<from2>[\w .'-]+))?$", "lives_in", "moved to", 0.7),
    (r"^relocated to (?P<o>.+)", "lives_in", "moved to", 0.7),
    # "moved here from Texas": where one lived before (where "here" is, the turn does not say)
    (r"^moved (?:here |over |out here |back )?from "
     r"(?P<o>(?-i:[A-Z])[\w.'-]*(?: (?-i:[A-Z])[\w.'-]*)*)$", "moved_from", "moved from", 0.7),
]  # fmt: skip

_ROLE_JOB = re.compile(
    r"^(?:started|got|landed|began|took|accepted)\s+(?:a\s+)?(?:new\s+)?(?:job|position|role)"
    r"(?:\s+as\s+(?:an?\s+)?(?P<role>[^,!.]+?))?(?:\s+at\s+(?P<org>[^,!.]+?))?$",
    re.IGNORECASE,
)
_PROMOTED = re.compile(
    r"^(?:got|was|been|have been|has been) promoted to (?:an? |the )?(?P<role>[^,!.]+?)$",
    re.IGNORECASE,
)
_JOINED_AS = re.compile(
    r"^joined\s+(?P<org>[^,!.]+?)\s+as\s+(?:an?\s+)?(?:new\s+)?(?P<role>[^,!.]+?)$",
    re.IGNORECASE,
)


def job_change(rest: str, subject: str) -> list[Match]:
    """A new role or employer: "got promoted to X", "joined X as Y", "started a new job
    as X at Y"."""
    promoted = _PROMOTED.match(rest)
    if promoted and (role := object_of(promoted["role"])) is not None:
        return [Match(subject, "works_as", role, "works as", confidence=0.7)]
    joined = _JOINED_AS.match(rest)
    if joined:  # "joined a bank as a team lead": a new employer and role
        org, role = object_of(joined["org"]), object_of(joined["role"])
        if org is not None and role is not None:
            return [
                Match(subject, "works_at", org, "works at", confidence=0.7),
                Match(subject, "works_as", role, "works as", confidence=0.7),
            ]
    job = _ROLE_JOB.match(rest)
    if job and (job["role"] or job["org"]):
        out: list[Match] = []
        if job["role"]:
            out.append(Match(subject, "works_as", job["role"].strip(), "works as", confidence=0.7))
        if job["org"]:
            out.append(Match(subject, "works_at", job["org"].strip(), "works at", confidence=0.7))
        return out
    return []


_ORG = r"[A-Z][\w&.'-]*(?: [A-Z][\w&.'-]*){0,2}"
#: "I changed jobs", "I got a new job": a clause that says the employer changed without
#: naming the new one; the turn's next clause may ("..., I'm at Spotify now").
JOB_CHANGED = re.compile(
    r"^(?:I|[Ww]e)(?:'ve| have)? (?:just |recently |finally |also )?(?:(?:changed|switched) "
    r"jobs?|(?:got|started|found|landed) (?:a )?new job)$"
)
# "am at Spotify now": only after JOB_CHANGED an employer (alone, where one is right now)
_NOW_AT = re.compile(rf"^am (?:now )?(?:at|with) (?P<org>{_ORG})(?: now)?$")


def new_employer(rest: str, subject: str) -> list[Match]:
    """ "am at Spotify now", said after "I changed jobs": the new employer."""
    m = _NOW_AT.match(rest)
    return [] if m is None else [Match(subject, "works_at", m["org"], "works at", confidence=0.7)]


_SWITCHED_JOB = re.compile(
    rf"^(?:left|quit) (?P<old>{_ORG}) (?:and (?:joined|started at|moved to)|to join|for) "
    rf"(?P<new>{_ORG})$"
)


#: "I left Spotify last week": the employer ends (a place left ends no employer: nothing
#: is filed, and only a current ``works_at`` of that name can end)
_LEFT = re.compile(rf"^(?:left|quit|resigned from) (?P<old>{_ORG})$")
#: "I start at Klarna in May", "(I'm) starting at Klarna as a staff engineer", "I'm joining
#: Klarna as a designer": the new employer, from the day the clause names
_STARTING = re.compile(
    rf"^(?i:(?:am |will )?(?:start|starts|starting) (?:work )?at|(?:am |will )?(?:join|joining)) "
    rf"(?P<new>{_ORG})(?: as (?:an? )?(?P<role>[^,!.]+?))?$"
)


def switched_job(rest: str, subject: str) -> list[Match]:
    """ "left Google and joined Stripe": the new employer (and the old one ended); "left
    Spotify" (the old one ended); "starting at Klarna as a staff engineer" (the new one)."""
    left = _LEFT.match(rest)
    if left:
        return [Match(subject, "works_at", left["old"], "works at", negated=True)]
    starting = _STARTING.match(rest)
    if starting and (starting["role"] or not rest.lower().startswith(("join", "am join"))):
        out = [Match(subject, "works_at", starting["new"], "works at", confidence=0.7)]
        if starting["role"] and (role := object_of(starting["role"])) is not None:
            out.append(Match(subject, "works_as", role, "works as", confidence=0.7))
        return out
    switched = _SWITCHED_JOB.match(rest)
    if switched is None:
        return []
    return [
        Match(subject, "works_at", switched["old"], "works at", negated=True),
        Match(subject, "works_at", switched["new"], "works at", confidence=0.7),
    ]


_ARTICLE = r"(?:(?:an?|the|my|our) )?"
_SWITCHED = re.compile(
    rf"^(?:switched|changed|converted) (?:over )?from {_ARTICLE}(?P<old>[\w'+ -]{{1,40}}?) "
    rf"to {_ARTICLE}(?P<new>[\w'+ -]{{1,40}}?)$",
    re.IGNORECASE,
)


def switched(rest: str, subject: str) -> list[Match]:
    """ "switched from iPhone to Android": what one prefers now, and the old one ended."""
    m = _SWITCHED.match(rest)
    if m is None:
        return []
    old, new = object_of(m["old"], max_words=3), object_of(m["new"], max_words=3)
    if old is None or new is None or m["new"].lower().startswith("being "):
        return []
    return [
        Match(subject, "prefers", old, "prefers", negated=True, confidence=0.7),
        Match(subject, "prefers", new, "prefers", confidence=0.7),
    ]


_EXPECTING = re.compile(
    r"^(?:(?:[Mm]y|[Oo]ur) (?:wife|husband|partner|girlfriend|boyfriend|fianc[e\u00e9]e?)"
    r"(?: [A-Z][a-z]+)? and I|I|[Ww]e)(?:'re|'m| are| am) (?:now |finally |also )?expecting"
    r"(?: (?P<o>a baby|a child|twins|triplets|a (?:baby )?(?P<sex>boy|girl)|"
    r"(?:our|my) (?:first|second|third|fourth|\w+th) (?:child|baby|kid)))?(?: again)?$"
)


def expecting(clause: str, speaker: str) -> list[Match]:
    """ "My wife and I are expecting", "we're expecting twins": a baby on the way (from
    when it is said: a date in the clause is the due date, not the start)."""
    m = _EXPECTING.match(clause)
    if m is None:
        return []
    obj = "a baby"
    if m["sex"]:
        obj = f"a baby {m['sex']}"
    elif m["o"] in ("twins", "triplets"):
        obj = m["o"]
    return [Match(speaker, "expecting", obj, "is expecting", confidence=0.7, dated=False)]


_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3,
             "fourth": 4, "4th": 4, "fifth": 5, "5th": 5, "sixth": 6, "6th": 6}  # fmt: skip
_BORN = re.compile(
    rf"^(?:I|[Ww]e)(?:'ve| have)? (?:just |finally |recently )?(?:had|welcomed) (?:my|our) "
    rf"(?P<n>{alternation(_ORDINALS)}) (?:baby|child|kid|son|daughter)\b"
)


def born(clause: str, speaker: str) -> list[Match]:
    """ "We just had our third baby": the count of children is now that number."""
    m = _BORN.match(clause)
    if m is None:
        return []
    count = str(_ORDINALS[m["n"].lower()])
    return [Match(speaker, "number_of_children", count, "has", confidence=0.7)]


_LOST_JOB = re.compile(
    r"^(?:(?:lost|quit|left)\s+(?:my|his|her|the|our)\s+job"
    r"(?:\s+as\s+(?:an?\s+)?(?P<role>[^,!.]+?))?(?:\s+at\s+(?P<org>[^,!.]+?))?|"
    # "I got laid off last month", "I was let go from Acme", "I got fired"
    r"(?:was|got|am)\s+(?:laid off|let go|fired)(?:\s+from\s+(?:(?:my|his|her|our|the)\s+"
    r"(?:job|position|role)|work)|\s+from\s+(?P<from>[^,!.]+?))?)$",
    re.IGNORECASE,
)
#: "I'm no longer vegetarian", "not vegan anymore": a diet that ended.
NO_LONGER_DIET = re.compile(
    r"^(?:am|is|are) (?:no longer (?:a |an )?(?P<a>vegetarian|vegan|pescatarian)|not (?:a |an )?"
    r"(?P<b>vegetarian|vegan|pescatarian) (?:anymore|any more))$",
    re.IGNORECASE,
)
_GERUND = alternation(GERUNDS)


_DRINK = re.compile(
    r"^(?:coffee|caffeine|alcohol|booze|beer|wine|soda|pop|energy drinks|tea|espresso)\b",
    re.IGNORECASE,
)


# "(We) broke up", "I split up with my girlfriend Mia", "my husband and I separated"
_PARTED = re.compile(
    r"^(?:just |finally |recently |officially )?(?P<how>broke up|split up|separated|got divorced|"
    r"called it quits)(?: with (?:my )?(?P<rel>boyfriend|girlfriend|partner|fiance|fiancee|"
    r"husband|wife)(?:,? (?P<name>[A-Z][a-z]+))?)?(?: (?:last|this|a)\b.*)?$",
    re.IGNORECASE,
)


def ended(rest: str, subject: str) -> list[Match]:
    """ "no longer eat meat", "don't eat meat anymore", "stopped smoking", "lost my job",
    "got laid off"."""
    diet = NO_LONGER_DIET.match(rest)
    if diet:  # "I'm no longer vegetarian": that diet ended
        obj = (diet["a"] or diet["b"]).lower()
        return [Match(subject, "diet", obj, "is", negated=True, confidence=0.7)]
    lost = _LOST_JOB.match(rest)
    if lost:
        out: list[Match] = []
        if lost["role"]:
            out.append(Match(subject, "works_as", lost["role"].strip(), "works as", True))
        if lost["org"] or lost["from"]:
            org = (lost["org"] or lost["from"]).strip()
            out.append(Match(subject, "works_at", org, "works at", True))
        # without a role or a place named, the job as a whole ended: where and as what
        # ("I work at Acme as a designer", then "I got laid off": neither holds now)
        return out or [
            Match(subject, "works_at", None, "works at", True),
            Match(subject, "works_as", None, "works as", True),
        ]
    given_up = _given_up(rest, subject)
    if given_up:
        return given_up
    if parted := _PARTED.match(rest):  # "broke up with my boyfriend": no partner now
        relation = FAMILY.get((parted["rel"] or "partner").lower(), "partner")
        out = [Match(subject, relation, parted["name"], relation, True, confidence=0.7)]
        if relation == "spouse" and parted["how"].lower() in ("separated", "got divorced"):
            status = "divorced" if "divorced" in parted["how"].lower() else "separated"
            out.append(Match(subject, "marital_status", status, "is", confidence=0.7))
        return out
    m = re.match(
        r"^(?:no longer|(?:do not|don't|does not|doesn't|am not|is not) (?P<any>.+?) "
        r"(?:anymore|any more)$)",
        rest,
        re.IGNORECASE,
    )
    inner: str | None = None
    if m and m["any"]:
        inner = m["any"]
    elif longer := re.match(r"^(?:(?:am|is|are) )?no longer (?P<inner>.+)$", rest, re.I):
        inner = longer["inner"]  # "I no longer eat meat", "I'm no longer married"
    else:
        stop = re.match(r"^(?:stopped|quit|gave up|gave up on)\s+(?P<inner>.+)$", rest, re.I)
        inner = stop["inner"] if stop else None
        if inner is not None and _DRINK.match(inner):
            inner = f"drinking {inner}"  # "I quit coffee": the drinking ends
    if inner is None:
        return []
    had = _HAD.match(inner) or _WAS.match(inner)
    if had is not None:
        return _no_longer_had(had, subject)
    verb = re.match(rf"^(?P<g>{_GERUND})(?:s)?(?:\s+(?P<o>.+))?$", inner, re.IGNORECASE)
    if verb is None:
        return []
    predicate = GERUNDS[verb["g"].lower()]
    obj = object_of(verb["o"] or "") if verb["o"] else None
    if verb["o"] and obj is None:
        return []
    return _no_longer(subject, predicate, obj)


# "I don't have a car anymore", "I no longer have a dog": a thing or a pet no longer had
_HAD = re.compile(
    rf"^(?:have|has|own|owns) (?:a |an |my |our )?(?:(?P<pet>{PET_WORDS})|"
    rf"(?P<thing>(?:[\w-]+ ){{0,2}}(?:{alternation(OWNED)})))s?$",
    re.IGNORECASE,
)
# "I'm not married anymore": a marital status no longer held
_WAS = re.compile(r"^(?P<status>married|engaged|single)$", re.IGNORECASE)


def _no_longer_had(had: re.Match[str], subject: str) -> list[Match]:
    groups = had.groupdict()
    if groups.get("status"):
        return [Match(subject, "marital_status", had["status"].lower(), "is", negated=True)]
    if groups.get("pet"):  # ends the pet filed without a name ("has a dog")
        return [Match(subject, "has_pet", had["pet"].lower(), "has", negated=True)]
    return [Match(subject, "owns", f"a {had['thing']}", "owns", negated=True, confidence=0.7)]


def _no_longer(subject: str, predicate: str, obj: str | None) -> list[Match]:
    """The ending of ``predicate`` (``obj``, or any value), and for a plain verb with an
    object the habit told of it ("plays tennis every Sunday" is a habit fact: "I stopped
    playing tennis" and "I quit tennis" end it too)."""
    surface = predicate.replace("_", " ")
    out = [Match(subject, predicate, obj, surface, negated=True, confidence=0.7)]
    if obj is not None and "_" not in predicate:
        out.append(
            Match(subject, "habit", f"{surface} {obj}", surface, negated=True, confidence=0.7)
        )
    return out


_GIVEN_UP = re.compile(
    r"^(?:stopped|quit|quitted|gave up|given up|dropped)(?: on)? (?:(?P<learning>learning|"
    r"studying) )?(?P<o>.+)$",
    re.IGNORECASE,
)


def _given_up(rest: str, subject: str) -> list[Match]:
    """ "gave up on Spanish", "stopped learning Spanish": the learning ends; "quit tennis":
    the playing ends, and the habit told of it ("plays tennis every Sunday"). Only what is
    learned or played: "gave up on him" ends nothing."""
    m = _GIVEN_UP.match(rest)
    if m is None:
        return []
    obj = object_of(m["o"], max_words=4)
    if obj is None:
        return []
    thing = re.sub(r"^(?:the|my) ", "", obj.lower())
    if m["learning"] or thing in LANGUAGES:
        return [Match(subject, "learning", obj, "learning", negated=True, confidence=0.7)]
    if thing in PLAYED:
        return _no_longer(subject, "plays", obj)
    return []


# what a thing one had is called, not which one it is ("my old Prius" is the Prius)
_OLD = r"(?:(?:old|trusty|beloved|ancient|little|first) )?"
_SOLD = re.compile(
    rf"^(?:(?:also|just|finally|recently) )?(?:sold|traded in|traded|got rid of) "
    rf"(?P<det>my|our|the) {_OLD}(?P<old>[\w' -]{{1,30}}?)"
    r"(?: (?:and (?:bought|got)|for) (?P<new>[\w' -]{1,30}))?$",
    re.IGNORECASE,
)
_MODEL = re.compile(r"\bmodel [3sxy]\b", re.IGNORECASE)


def is_car(thing: str) -> bool:
    """Whether ``thing`` names a car ("a Tesla Model Y", "my Civic", "an old car")."""
    return bool(_MODEL.search(thing)) or _names_one(thing, CARS)


def _is_ridden(thing: str) -> bool:
    return _names_one(thing, RIDDEN)


def _names_one(thing: str, words: frozenset[str]) -> bool:
    """Whether a word of ``thing`` is one of ``words`` (lower case)."""
    return not words.isdisjoint(thing.lower().split())


def sold(rest: str, subject: str) -> list[Match]:
    """ "sold my Civic and bought a Tesla": what one owned ends, and so does driving it (for
    a car) or riding it (a bike, a Vespa), with the habit told of it ("rides a Vespa to work
    every day", or "rides Ana's Vespa ..." when it was told as "my Vespa"); what was bought
    is owned (driven, ridden) now."""
    m = _SOLD.match(rest)
    if m is None:
        return []
    old = object_of(m["old"], max_words=4)
    new = object_of(m["new"], max_words=4) if m["new"] else None
    if old is None or (m["new"] and new is None):
        return []
    car = is_car(old) or (new is not None and is_car(new))
    if m["det"].lower() == "the" and not (car or _is_ridden(old) or _names_one(old, OWNED)):
        return []  # "sold the idea to my boss", "sold the tickets": nothing one had
    use = "drives" if car else "rides" if _is_ridden(old) else None
    out: list[Match] = []
    if car:  # one's car sold, one drives no more: whatever car was said ("a Honda Civic"
        # for "sold my car"), and to wherever ("drives to work every day")
        generic = old.lower() in ("car", "old car", "vehicle", "truck")
        out.append(Match(subject, "drives", None if generic else old, "drives", negated=True))
        out.append(Match(subject, "habit", "drives", "drives", negated=True, confidence=0.7))
    elif use is not None:
        out.extend(_no_longer(subject, use, old))
        # "my Vespa" was filed as "Ana's Vespa": the habit begins with those words
        out.append(Match(subject, "habit", f"{use} {subject}'s {old}", use, negated=True,
                         confidence=0.7))  # fmt: skip
    out.append(Match(subject, "owns", old, "owns", negated=True, confidence=0.7))
    if new is not None:  # "sold my bike and bought a kayak": the kayak is owned
        now = "drives" if car else "rides" if _is_ridden(new) else "owns"
        out.append(Match(subject, now, new, now, confidence=0.7))
        out.append(Match(subject, "bought", new, "bought", confidence=0.6))
    return out


def graduated(school: str, subject: str) -> list[Match]:
    """ "graduated from NYU": no longer a student there (the date is the graduation's)."""
    return [
        Match(subject, "works_as", "student", "works as", negated=True, confidence=0.6),
        Match(subject, "works_at", school, "works at", negated=True, confidence=0.6),
    ]


def what_follows(event: str, obj: str, subject: str) -> list[Match]:
    """What a past event makes true: "graduated from X" (no longer a student there),
    "adopted a dog" (has a dog), "bought a Tesla" (drives it)."""
    if event == "graduated_from":
        return graduated(obj, subject)
    if event == "bought" and is_car(obj):
        return [Match(subject, "drives", obj, "drives", confidence=0.6)]
    pet = re.match(rf"^(?:an?|two|three|\d)\s+(?:\w+\s+)?(?P<pet>{PET_WORDS})$", obj, re.I)
    if event == "adopted" and pet:
        return [Match(subject, "has_pet", pet["pet"].lower(), "has a", confidence=0.6)]
    return []
