"""What a person would note about someone: the profile patterns of one clause.

Each reader takes the rest of a clause after its subject ("I'm a nurse at X" -> ``rest`` =
"am a nurse at X", ``subject`` = the user) and returns the triples it states, or nothing.
They run before the older event and state patterns of :mod:`.patterns` and cover: name,
occupation and employer, where one is based, diet, allergies and conditions, family and
pets (:mod:`.family`), measures (age, height, weight, budget...), habits with their
frequency, dated plans, things one is learning or training for, what one drives, owns and
uses, and standing negations ("I don't eat chicken").
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import (
    FUNCTION_WORDS,
    Match,
    bad_object,
    items_of,
    object_of,
    split_list,
    thing_of,
    without_company,
)
from sedimem.extraction.everyday import everyday
from sedimem.extraction.family import family
from sedimem.extraction.health import health
from sedimem.extraction.identity import school_year
from sedimem.extraction.jobs import job_facts
from sedimem.extraction.measures import measure, tally
from sedimem.extraction.vocabulary import (
    NATIONALITIES,
    OCCUPATIONS,
    OWNED,
    alternation,
    third_person,
)

__all__ = [
    "job_facts",
    "match_name",
    "match_profile",
]

_OCC = alternation(OCCUPATIONS)
_PLACE = r"(?P<place>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2})"
_NAMEWORD = r"[A-Z][a-z]+"
_FREQUENCY = re.compile(
    r"\b(?:every (?:other )?(?:day|morning|evening|night|week|weekend|month|year|\w+day)|"
    r"daily|weekly|"
    r"nightly|monthly|on (?:weekends|the weekends?|\w+days)|each (?:day|morning|evening|week)|"
    r"(?:once|twice|\w+ times) (?:a|per|every) (?:day|week|month|year)|"
    r"(?:\d+|a few) (?:km|miles|hours|minutes) (?:a|per) (?:day|week))\b",
    re.IGNORECASE,
)
# "I usually work out in the mornings": what one usually does is a habit too, when it says
# one thing ("we usually watch movies, hike, or..." is a list cut short)
_USUALLY = re.compile(
    r"^(?:usually|normally|regularly|often) |\bin the (?:mornings|evenings|afternoons)\b",
    re.IGNORECASE,
)
_HABIT_VERBS = frozenset(
    """run climb swim cycle bike hike walk cook bake read write paint draw play practice
    practise meditate train go visit volunteer teach study work knit sew garden dance sing
    jog lift surf ski skate row box fish hunt drive ride call watch do take eat drink attend
    shoot coach fly travel commute""".split()
)  # fmt: skip
_THING_VERBS = {
    "drive": "drives", "own": "owns", "use": "uses", "speak": "speaks", "collect": "collects",
    "teach": "teaches", "run": "runs", "grow": "grows", "raise": "raises",
    "volunteer at": "volunteers_at", "volunteer for": "volunteers_at", "ride": "rides",
}  # fmt: skip
#: What one drives or rides is the vehicle, not where ("a Civic to work", "my bike in the
#: park")
_VEHICLE_VERBS = frozenset({"drives", "rides"})
_NO_VERBS = {"eat": "does_not_eat", "drink": "does_not_drink", "want": "does_not_want"}
# "I don't eat anything sweet": a kind of thing, one item
_ANYTHING = re.compile(r"^anything (?P<kind>[a-z]+)$")
_NO_ACTIVITIES = frozenset("ski smoke drive swim cook dance drink eat".split())
#: What one "can't have" that is food ("Dev can't have dairy"; not "can't have kids")
_NOT_HAD_FOOD = re.compile(
    r"^(?:any )?(?:dairy|gluten|lactose|sugar|caffeine|alcohol|nuts|peanuts|eggs|soy|wheat|"
    r"meat|pork|beef|fish|shellfish|seafood|milk|cheese|spicy food|red meat)"
    r"(?:(?:,| or| and) .+)?$"
)
_PROGRESSIVE = {
    "learning": "learning", "studying": "learning", "training for": "training_for",
    "using": "uses", "reading": "reading", "building": "building", "writing": "writing",
    "renovating": "renovating", "studying for": "preparing_for", "preparing for": "preparing_for",
    "working on": "working_on", "practicing": "practices", "practising": "practices",
    "homeschooling": "homeschools",
}  # fmt: skip
_PLAN_VERBS = (
    r"(?:flying|going|travel+ing|moving|driving|heading|visiting|starting|getting|having|planning|"
    r"taking|seeing|meeting|attending|leaving|running|hosting|celebrating)"
)
_NOT_A_NAME = frozenset(
    """Fine Good Okay Ok Sorry Glad Here Back Home Done Ready Sure Happy Sad Tired Busy Excited
    So Just Not Also Still Really Very Well Great Alright Thrilled Curious New Into From In
    At Currently Now Always Never Afraid Home Hungry""".split()
)  # fmt: skip
#: "I'm Jewish", "I'm Canadian", "I'm Catholic": who one is, not one's name (not filed: a
#: faith or an origin is not what the assistant needs kept, and "so I don't eat pork" is)
_BELONGING = re.compile(
    r"^(?:\w+(?:ish|ese|ican|ian|ean)|Muslim|Hindu|Buddhist|Sikh|Catholic|Protestant|"
    r"Orthodox|Mormon|Atheist|Agnostic|Christian|Dutch|French|Greek|Thai|German|Swiss|Kiwi|"
    r"Aussie|Pagan|Jain|Filipino|Latino|Latina|Asian|Black|White|Iraqi|Israeli|Pakistani|"
    r"Saudi|Kuwaiti|Nepali|Bengali|Punjabi|Gujarati|Somali|Yemeni|Omani|Qatari)$"
)
#: Names that end like a word of origin or faith: still names
_NAMES_LIKE_BELONGING = frozenset(
    "Brian Ian Julian Adrian Vivian Lillian Jillian Gillian Marian Damian Christian Sebastian "
    "Fabian Dorian Florian Kilian Killian Cian Aidan Ryan Jordan Logan Trish Hamish".split()
)


_CALLED_NOT_NAMED = frozenset(
    "maybe back later crazy anytime sometime tomorrow tonight please now soon asap".split()
)


def match_name(clause: str, subject: str) -> list[Match]:
    """ "my name is Zoe", "call me Zoe", "I'm Zoe" (the whole clause): the speaker's name."""
    m = re.match(  # "I go by Annie now", "I changed my name to Ana Lopez": the name now
        r"^(?:my name is|my name's|call me|name's|I go by|I(?:'ve| have)? (?:legally )?changed "
        r"my name to)\s+(?P<n>[A-Za-z][a-z'-]+(?-i: [A-Z][a-z'-]+)?)(?: now| these days)?$",
        clause,
        re.I,
    )
    if m is not None and m["n"].lower() in _CALLED_NOT_NAMED:
        return []  # "call me maybe", "call me back"
    if m is None:
        m = re.match(rf"^I(?:'m| am)\s+(?P<n>{_NAMEWORD})$", clause)
        if m is None or m["n"] in _NOT_A_NAME:
            return []
        if _BELONGING.match(m["n"]) and m["n"] not in _NAMES_LIKE_BELONGING:
            return []
    return [Match.of(subject, "name", m["n"][0].upper() + m["n"][1:], 0.8)]


_DECADE = re.compile(
    r"^(?:the |the early |the late |the mid[- ])?(?:'?\d0s|\d{3}0s|\d{4}|(?:twen|thir|for|fif|six|"
    r"seven|eigh|nine)ties)$",
    re.IGNORECASE,
)
_JOB_AS = re.compile(
    r"^(?:am|is|work|works|am working|is working) (?:as )?(?:an? |the )?"
    rf"(?P<occ>(?:[\w-]+ ){{0,3}}?(?:{_OCC}))"
    r"(?: (?:(?:at|for|with) (?P<org>(?:the |a )?[\w'&. -]+?)|of (?P<of>(?-i:[A-Z])[\w'&. -]*?)))?"
    rf"(?: (?:in|based in|out of) {_PLACE})?$",
    re.IGNORECASE,
)
_JOB_AT = re.compile(
    r"^(?:work|works|am working|is working) (?:at|for|in) (?P<org>[\w'&. -]+?)"
    r"(?: as (?:an? )?(?P<occ>[\w -]+?))?"
    rf"(?: (?:in|based in) {_PLACE})?$",
    re.IGNORECASE,
)
_NEW_JOB = re.compile(
    r"^(?:got|landed|started|accepted|took) (?:a )?(?:new )?(?:job|position|role)"
    r"(?: as (?:an? )?(?P<occ>[\w -]+?))?(?: (?:at|with) (?P<org>[\w'&. -]+?))?"
    r"(?: as (?:an? )?(?P<occ_after>[\w -]+?))?$",  # "at Siemens as a data analyst"
    re.IGNORECASE,
)
_NO_EMPLOYER = re.compile(r"^an? (?:team|group|crew|squad|staff|bunch|couple) of\b", re.I)
#: roles whose "in X" names a field ("a student in computer science"), not a place
_STUDIES = re.compile(
    r"\b(?:student|phd|major|professor|researcher|postdoc|lecturer|candidate|grad)\b", re.I
)
#: how long one has had a job ("a teacher for 12 years"): no part of the job's name
_FOR_YEARS = re.compile(
    r" (?:for|over) (?:about |almost |nearly |over |more than )?(?:\d+|[a-z]+|a few) "
    r"(?:years?|months?|decades?)$"
)
# "My father was a police officer", "I was a nurse for twenty years": a job once held
_WAS_JOB = re.compile(
    rf"^was (?:an? )(?P<occ>(?:[\w-]+ ){{0,2}}?(?:{_OCC}))"
    r"(?: (?:for|at|in|before|until|when|back) .+)?$",
    re.IGNORECASE,
)


def _occupation(rest: str, subject: str) -> list[Match]:
    was = _WAS_JOB.match(rest)
    if was:
        job = was["occ"].lower()
        return [Match.of(subject, "used_to", f"be {'an' if job[0] in 'aeiou' else 'a'} {job}", 0.6)]
    for pattern in (_NEW_JOB, _JOB_AT, _JOB_AS):
        m = pattern.match(_FOR_YEARS.sub("", rest))
        if m is None:
            continue
        groups = m.groupdict()
        place = groups.get("place")
        if place and place.split()[0].lower() in ("the", "a"):  # "a nurse in the ICU"
            place = None
        org = groups.get("org") or groups.get("of")  # "the CTO of Acme"
        if org and _NO_EMPLOYER.match(org):  # "the tech lead for a team of 6"
            org = None
        occupation = groups.get("occ") or groups.get("occ_after")
        if place and place[0].islower() and occupation and _STUDIES.search(occupation):
            # "a PhD student in biology at Stanford": a field, no place; the school employs
            place, _, school = place.partition(" at ")
            place, org = None, org or (school if school[:1].isupper() else None)
        if org and pattern is _JOB_AS and not org[0].isupper() and not org.startswith("the "):
            org = None if len(org.split()) > 4 else org
        found = job_facts(subject, occupation, org, place)
        if found:
            return found
    based = re.match(
        rf"^(?:am|is|have|has) (?:based|living|lived) in {_PLACE}(?: (?:for|since)(?: [\w ]+)?)?$",
        rest,
    )  # "I've lived in Chicago for five years": and still do
    if based and (rest.startswith(("am", "is")) or re.search(r" (?:for|since)\b", rest)):
        return [Match.of(subject, "lives_in", based["place"], 0.8)]
    return []


_STATUS = re.compile(
    r"^(?:am|is) (?:now |currently |happily )?(?P<o>retired|homeschooled|unemployed|"
    r"self-employed|a stay-at-home parent|an only child|a single (?:mom|dad|mother|father|"
    r"parent)|(?P<m>married|single|divorced|engaged|"
    r"widowed))(?: to be married| to [A-Z][\w'-]+| from [\w ]+)?"
    # "we've been married 10 years": how long is no part of it
    r"(?: (?:for )?(?:about |almost |nearly |over |more than )?(?:\d+|[a-z]+|a few) years?)?"
    r"(?: and (?:looking|searching|hoping|"
    r"trying)\b.*)?$"
)
_WITH_KIDS = re.compile(
    r" with (?P<k>(?:(?:a|an|one|two|three|four|five|six|\d) )?(?:little |young |grown )?"
    r"(?:kids?|children|child|sons?|daughters?|boys?|girls?))$"
)
# "I got married last year", "I just got engaged!": the status changed (dated by the clause)
_STATUS_CHANGED = re.compile(
    r"^(?:just |finally |recently )?got (?P<o>married|engaged|divorced)(?: to [A-Z][\w'-]+)?"
    r"(?: again)?$"
)
# "I was born in Brazil" is where one comes from; "raised in", "grew up on" where one grew up
_ORIGIN = re.compile(
    r"^(?:was (?P<born>born)(?P<raised> and (?:raised|brought up))?|was (?:raised|brought up)|"
    r"grew up)"
    r" (?:in|on) (?P<o>.+)$",
    re.IGNORECASE,
)


_ON_A_DIET = re.compile(
    r"^(?:am|is|are) (?:now |currently |strictly )?on (?:a |the |my )?"
    r"(?P<o>(?!(?:a|an|the|my|new)\b)[\w-]+(?: [\w-]+)?) diet$"
)


_NATIONALITY = re.compile(
    rf"^(?:am|is) (?:originally |proudly )?(?P<half>half[- ])?(?P<o>{alternation(NATIONALITIES)})$",
    re.I,
)


def _status(rest: str, subject: str) -> list[Match]:
    """ "I'm retired", "I'm married", "I grew up on a farm", "I'm afraid of dogs"."""
    kids = _WITH_KIDS.search(rest)  # "I'm married with three kids"
    status = _STATUS.match(rest[: kids.start()] if kids else rest)
    if status:
        found = [Match.of(subject, "marital_status" if status["m"] else "status", status["o"])]
        if kids and not re.match(r"(?:a|an|one|two|three|four|five|six|\d) ", kids["k"]):
            return [*found, Match.of(subject, "status", "a parent", 0.6)]  # how many: unsaid
        return found + (family(f"have {kids['k']}", subject) if kids else [])
    changed = _STATUS_CHANGED.match(rest)
    if changed:
        return [Match.of(subject, "marital_status", changed["o"])]
    if nationality := _NATIONALITY.match(rest):  # "I'm Canadian (but I live in London)"
        half = "half " if nationality["half"] else ""
        return [Match.of(subject, "nationality", half + nationality["o"].title(), 0.7)]
    origin = _ORIGIN.match(rest)
    if origin:
        obj = object_of(origin["o"])
        if obj is None or _DECADE.match(obj):
            return []  # "I was born in the 80s": when, not where
        born = origin["born"] and not origin["raised"]
        return [Match.of(subject, "comes_from" if born else "grew_up_in", obj)]
    diet = _ON_A_DIET.match(rest)
    if diet and not bad_object(diet["o"]):
        return [Match.of(subject, "diet", f"on a {diet['o'].lower()} diet", 0.7)]
    if re.match(r"^(?:am|is) (?:now |currently )?on a diet$", rest):
        return [Match.of(subject, "status", "on a diet", 0.6)]  # a kind would be a ``diet``
    if re.match(r"^(?:just |finally |recently )?retired(?: (?:after|from|in|at)\b.*)?$", rest):
        return [Match.of(subject, "status", "retired", 0.7)]
    afraid = re.match(
        r"^(?:am|is) (?:really |very |so )?(?:afraid|scared|terrified) of (?P<o>.+)$", rest
    )
    if afraid:
        return [Match.of(subject, "afraid_of", item, 0.6) for item in items_of(afraid["o"], 4)]
    return []


_OWNED = alternation(OWNED)
# Words before the thing that are no description of it ("a question about my car", "a
# dream house", "a friend's boat"): the thing is not the speaker's.
_NOT_OWNED = frozenset({"dream", "rental", "rented", "borrowed", "new-to-me", "imaginary"})
_HAVE = re.compile(
    r"^(?:have|has|have got|has got|'ve got) "
    r"(?P<det>an?|my own|my|our own|our|two|three|four|five|\d{1,2}|some|a few) "
    rf"(?P<words>(?:[\w-]+ ){{0,2}}?)(?P<head>(?i:{_OWNED}))(?:s|es)?(?: [A-Z][\w-]*)?"
    r"(?P<tail>(?: (?:of|in|on|near|by|named|called) [^,;]+?)?)"
    r"(?:(?:,|;| and| but| so| where| that| which| because| since| with| for)\b.*)?$"
)


_HAVE_LIST = re.compile(r"^(?:have|has|have got|has got|'ve got) (?P<items>an? [^,]+,.+)$")
_NOT_HAD = re.compile(
    r"^ (?:in mind|in common|in the works|in progress|on order|on the way|in view)\b"
)


def _has_thing(rest: str, subject: str) -> list[Match]:
    """ "I have a large garden", "I've got two boats", "I have a large collection of teddy
    bears" (what one collects): a thing the speaker has, when it names one (see OWNED)."""
    listed = _HAVE_LIST.match(rest)  # "have a house, a car and a boat": each owned
    if listed and len(items := split_list(listed["items"])) > 1:
        owned = [found for item in items for found in _has_thing(f"have {item}", subject)]
        if len(owned) == len(items):
            return owned
    m = _HAVE.match(rest)
    if m is None:
        return []
    words = m["words"].split()
    if any(w.lower() in FUNCTION_WORDS or w.lower() in _NOT_OWNED or "'" in w for w in words):
        return []
    tail = m["tail"]
    if _NOT_HAD.match(tail):
        return []  # "a store in mind": thought of, not had
    thing = " ".join([*words, m["head"]])
    if m["head"].lower() == "collection" and tail.startswith(" of "):
        collected = object_of(tail[4:], max_words=5)
        return [] if collected is None else [Match.of(subject, "collects", collected, 0.6)]
    said = rest[m.start("words") : m.end("tail")].strip()
    said = re.sub(r" of (?:my|our|his|her|their) own$", "", said)  # "a garden of my own"
    det = m["det"].lower()
    if det.startswith(("my", "our")):  # "my own bakery": a bakery
        det = "" if said.endswith("s") and not thing.endswith("s") else "a"
    obj = object_of(f"{det} {said}".strip(), max_words=9)
    return [] if obj is None else [Match.of(subject, "owns", obj, 0.6)]


_HOW_ONE_IS = re.compile(r"^ (?:great|well|fine|good|okay|ok|better|worse|alright|badly|so)\b")


def _base(gerund: str) -> str | None:
    """The habit verb of a gerund ("doing" -> "do", "running" -> "run"), if it is one."""
    stem = gerund.removesuffix("ing")
    for verb in (stem, stem + "e", stem[:-1]):
        if verb in _HABIT_VERBS:
            return verb
    return None


_AT_WORK = re.compile(r"\bat (?P<org>(?-i:[A-Z])[\w&'.-]*(?: (?-i:[A-Z])[\w&'.-]*){0,3})")


def _habit(rest: str, subject: str) -> list[Match]:
    usual = _FREQUENCY.search(rest) is None and _USUALLY.search(rest) is not None
    if not usual and not _FREQUENCY.search(rest):
        return []
    # "I've been doing yoga three times a week" (read as "am doing ..."): "do yoga ..."
    ongoing = re.match(r"^am (?P<v>[a-z]+ing)\b(?P<tail>.*)$", rest)
    if ongoing and _HOW_ONE_IS.match(ongoing["tail"]):
        return []  # "I'm doing great every day": how one is, no habit
    if ongoing and (verb := _base(ongoing["v"])) is not None:
        rest = verb + ongoing["tail"]
    m = re.match(r"^(?:(?:usually|often|always|regularly|mostly|also|still|normally) )*"
                 r"(?P<v>[a-z]+)\b(?P<tail>.*)$", rest)  # fmt: skip
    if m is None or m["v"] not in _HABIT_VERBS:
        return []
    tail = m["tail"].strip(" ,")
    if len(tail.split()) > 10 or re.match(r"^(?:it|that|this|them)\b", tail):
        return []
    if usual and "," in tail:
        return []
    habit = [Match.of(subject, "habit", f"{third_person(m['v'])} {tail}".strip(), 0.7)]
    employer = _AT_WORK.search(tail) if m["v"] == "work" else None
    if employer:  # "I work part-time at Starbucks on weekends": the employer too
        habit.append(Match.of(subject, "works_at", employer["org"], 0.6))
    vehicle = _THING_VERBS.get(m["v"])  # "drive a Civic to work every day": drives a Civic
    if vehicle in _VEHICLE_VERBS and re.match(r"^an? ", tail):
        kept = _FREQUENCY.sub("", thing_of(tail, places=True)).strip(" ,")
        habit.append(Match.of(subject, vehicle, kept, 0.6))
    return habit


_ONLY_WHEN = re.compile(
    r"^(?:(?:instead|anyway|again|too|also|now|then|later|soon|back|after all|either way)"
    r"\s*)+$",
    re.IGNORECASE,
)


def _doing(rest: str, subject: str, dated: bool) -> list[Match]:
    """Progressive: "am learning Spanish", "am flying to Lisbon" (a plan only when dated)."""
    prog = re.match(
        r"^am (?:currently |still |now |also )?(?P<v>\w+ing(?: for| on)?) (?P<o>.+)$", rest
    )
    if prog is None:
        return []
    verb = prog["v"].lower()
    if verb == "playing":  # "I've been playing guitar for ten years": a standing habit
        years = re.match(
            r"^(?:the )?(?P<o>.+?) for (?:(?:about|around|over|almost|nearly|like) )?"
            r"(?:\w+ )?(?:years?|months?)$",
            prog["o"],
        )
        obj = object_of(years["o"]) if years else None
        return [] if obj is None else [Match.of(subject, "plays", obj, 0.6)]
    if verb in _PROGRESSIVE:
        obj = object_of(prog["o"])
        if obj is None:
            return []
        obj = thing_of(obj)  # "learning Spanish for fun": Spanish
        if obj.lower() in ("one", "some", "a few"):  # "working on one": what, is elsewhere
            return []
        if verb == "using":
            return [Match.of(subject, "uses", o) for o in _used(obj)]
        return [Match.of(subject, _PROGRESSIVE[verb], obj)]
    if dated and re.match(_PLAN_VERBS, verb):
        obj = object_of(without_company(f"{verb} {prog['o']}"), max_words=8)
        if obj is None or re.search(r"\b(?:there|here|it|that|this|them)\b", obj):
            return []  # "heading there": where, is in another turn
        if _ONLY_WHEN.match(obj[len(verb) :].strip()):
            return []  # "going [in November] instead": the date was all it said
        return [Match.of(subject, "plans", obj, 0.6)]
    return []


def _used(obj: str) -> list[str]:
    """The tools of "uses X and Y", "Vim on Linux" (each named), without where they are
    used ("React on the frontend": React)."""
    obj = re.sub(r" on the (?:frontend|backend|server|client)(?: side)?$", "", obj)
    return [p for p in re.split(r" and | on (?=(?-i:[A-Z])|my )", obj) if p]


_HOW_WELL = re.compile(
    r"\b(?:fluent|native|basic|conversational|broken|rusty|decent|some|a (?:bit|little) of|"
    r"a little)\s+",
    re.IGNORECASE,
)


def _things(rest: str, subject: str) -> list[Match]:
    verbs = "|".join(sorted(_THING_VERBS, key=len, reverse=True))
    m = re.match(rf"^(?:also |mostly |still )?(?P<v>{verbs})s? (?P<o>.+)$", rest)
    if m is None or _FREQUENCY.search(rest):
        return []
    obj = object_of(m["o"], max_words=8)
    if obj is None:
        return []
    predicate = _THING_VERBS[m["v"]]
    # "tennis, golf and chess"; "all kinds of things, like old signs, furniture and clothes":
    # the examples are the things
    examples = re.split(r",? (?:like|such as|including) ", m["o"], maxsplit=1)[-1]
    if predicate in ("plays", "collects", "uses") and len(items := items_of(examples, 4)) > 1:
        return [Match.of(subject, predicate, item, 0.6) for item in items]
    said = obj  # "teaches math at a high school in Austin": where one lives, too
    obj = thing_of(obj, places=predicate in _VEHICLE_VERBS)
    if predicate == "uses":
        return [Match.of(subject, "uses", o) for o in _used(obj)]
    if predicate == "speaks":  # "French and German", "English, Hindi and a bit of Tamil"
        spoken = _HOW_WELL.sub("", m["o"])  # "fluent Spanish and some French": both spoken
        return [Match.of(subject, "speaks", o, 0.7) for o in items_of(spoken, 5) or [obj]]
    out = [Match.of(subject, predicate, obj, 0.6)]
    place = re.search(rf" in {_PLACE}$", said)
    if predicate == "teaches" and place:
        out.append(Match.of(subject, "lives_in", place["place"], 0.6))
    return out


def _standing_negation(rest: str, subject: str) -> list[Match]:
    """ "don't eat chicken", "don't ski": a standing fact, not the end of one."""
    m = re.match(
        r"^(?:do not|don't|does not|doesn't|never|can't|cannot|can not) (?P<v>[a-z]+)"
        r"(?: (?P<o>.+))?$",
        rest,
    )
    if m is None or re.search(r"\b(?:anymore|any more)\b", rest):
        return []
    verb = m["v"]
    if verb == "have" and m["o"] and _NOT_HAD_FOOD.match(m["o"]):
        verb = "eat"  # "can't have dairy": does not eat it
    elif verb == "have" and m["o"] and rest.startswith(("don't", "do not", "doesn't", "does not")):
        # "I don't have a car": a thing one does not own (of the things "I have" files)
        had = _has_thing(f"have {m['o']}", subject)
        return [Match.of(subject, "does_not_own", h.object, 0.6) for h in had if h.object]
    if verb == "want" and m["o"] and re.match(r"^(?:to|you|them|it|that|this)\b", m["o"]):
        return []  # "I don't want to go": what, is a plan of the moment, not a standing want
    if verb in _NO_VERBS and m["o"]:
        if re.match(r"^(?:after|before|at|until|during|late|past)\b", m["o"]):
            return []  # "I don't eat after 8pm": when, not what
        said = re.sub(r"^any |\b(?:at all|ever)\b", "", m["o"]).strip()
        items = [said] if _ANYTHING.match(said) else items_of(said, 3)
        return [Match.of(subject, _NO_VERBS[verb], item) for item in items]
    if verb in _NO_ACTIVITIES and not m["o"]:
        return [Match.of(subject, "does_not_do", verb)]
    return []


# A move said in the future, as a plan: "will be moving to", "am about to move to"
_FUTURE_MOVE = re.compile(
    r"^(?:will (?:be moving|move)|am (?:about|going|planning) to move|plan to move|"
    r"intend to move|(?:am|are) moving soon) (?P<to>to .+)$"
)


def match_profile(rest: str, subject: str, *, dated: bool = False) -> list[Match]:
    """Every profile triple ``rest`` states about ``subject`` (the first reader that reads
    it wins)."""
    rest = rest.strip()
    rest = re.sub(r"\s+(?:myself|as well|right now|now|though|too|currently)$", "", rest)
    rest = re.sub(  # why, or what it replaced: "(going to Spain) instead of Italy"
        r",? (?:for (?:religious|health|ethical|medical|personal) reasons|instead of [\w' ]+)$",
        "",
        rest,
    )
    # "I'm actually in college", "I really live in Ohio": the adverb says nothing of the fact
    rest = re.sub(
        r"^((?:am|is|was|have|has) )?(?:actually|really|honestly|currently) ", r"\1", rest
    )
    future = _FUTURE_MOVE.match(rest)
    if future:  # "I'll be moving to Denver next year": a plan when dated, as "I'm moving"
        rest = f"am moving {future['to']}"
    lived = re.match(rf"^(?:have|has) (?:lived|been living) in {_PLACE}$", rest)
    if dated and lived:  # "I've lived in Chicago since 2015": the date was cut; still there
        return [Match.of(subject, "lives_in", lived["place"], 0.8)]
    readers = (
        school_year, health, everyday, family, measure, tally, _status, _occupation,
        _standing_negation, _habit, _has_thing,
    )  # fmt: skip
    for reader in (*readers, _things):
        found = reader(rest, subject)
        if found:
            return found
    return _doing(rest, subject, dated)
