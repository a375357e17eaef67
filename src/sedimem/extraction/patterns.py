"""Clause patterns: one clause of a chat turn -> zero or more (subject, predicate, object).

A clause is read only when it states something: questions, hypotheticals and plans ("I'd
love to", "gonna", "if"), and clauses about the listener ("you") are skipped, because a wrong
fact costs more than a missed one (precision first). The subject is the speaker for "I",
"we" and a clause that starts with a past-tense event verb ("Lost my job yesterday"); a
capitalised name; or "my <relative>" (the speaker's relative, or the name that follows).
"""

from __future__ import annotations

import re

from sedimem.extraction.changes import (
    MEASURE_SET,
    MOVES,
    NAME_GONE,
    NO_LONGER_DIET,
    RENAMED_OR_AGED,
    born,
    ended,
    expecting,
    job_change,
    name_gone,
    new_employer,
    pet_gone,
    sold,
    switched,
    switched_job,
    what_follows,
)
from sedimem.extraction.clauses import (
    Match,
    deictic,
    items_of,
    listed,
    object_of,
    shared_subject,
    thing_of,
    without_company,
)
from sedimem.extraction.everyday import disagrees, go_to, housemate, rather, trying
from sedimem.extraction.family import (
    MY,
    child_ages,
    children_named,
    each_of_two,
    relations,
    young_children,
)
from sedimem.extraction.health import body_state
from sedimem.extraction.identity import aspiration, former, identity, possessions, target_weight
from sedimem.extraction.jobs import job_facts
from sedimem.extraction.measures import WEIGHT_NEWS, weight_news
from sedimem.extraction.milestones import GOT, GRADUATED, milestone
from sedimem.extraction.profile import match_name, match_profile
from sedimem.extraction.projects import project
from sedimem.extraction.requests import ANSWER_REQUEST, answer_style
from sedimem.extraction.states import (
    BEING,
    NOW,
    SCHOOL,
    home_in,
    pet_subject,
    plural_subject,
    states,
)
from sedimem.extraction.subjects import possessive
from sedimem.extraction.vocabulary import (
    EVENT_VERBS,
    FAMILY,
    FAMILY_WORDS,
    PET_WORDS,
    alternation,
)

__all__ = ["SUBJECTLESS", "match_clause"]

_SKIP = re.compile(
    r"\b(?:you|your|yours|would|'d|could|might|should|if|hope|hoping|wish|wanna|"
    # "I don't want kids" is a standing want; "I want ..." a wish
    r"(?<!don't )(?<!do not )(?<!doesn't )(?<!does not )want|"
    # "going to" a named place is a trip ("we're going to Spain in June"), not a wish; nor is
    # going to a school one attends; a move said in the future is a plan (``profile``)
    rf"gonna|going to(?!(?-i: [A-Z])| move\b| {SCHOOL}$)|plan(?! to move\b)|"
    r"planning(?! (?:a|an|my|our) (?:(?:road|family|ski|camping|weekend|beach|girls'?|boys'?) )?"
    r"(?:trip|holiday|vacation|visit|getaway)\b)|"
    r"thinking|maybe|perhaps|let's|let me|can't wait|"
    r"someday|dream|dreaming|trying to|try to|need to|have to|gotta|"
    r"(?:will|'ll)(?! (?:be moving|move) to\b)|used to|"
    r"probably|wondering|not sure|i guess|i think|i bet|kind of|sort of|unless|whether)\b"
    # "I don't either": what the other speaker said, denied; its subject is theirs
    r"|\beither\s*[!.]*$",
    re.IGNORECASE,
)
_SKILL = r"(?:(?:complete|total|absolute) )?(?:beginner|novice|newbie|expert|pro|natural|whiz)\b"
_YOUR_ADVICE = re.compile(
    r"\s+(?:that |which )?you (?:recommended|suggested|mentioned|gave me|sent me|showed me|"
    r"told me about|found|picked)\b(?= |$|,)"
)
# "I have a sister who lives in London": a relative, and what the clause says of them
_PRONOUNS = frozenset({"his", "hers", "theirs", "yours", "mine", "ours", "him", "her", "them"})
_NOT_A_FAN = re.compile(
    r"^am not (?:really |much of |that |very |too |much )?(?:(?:a (?:big |huge |great )?)?fan of"
    r"|into) (?P<o>.+)$",
    re.IGNORECASE,
)
_NOT_NOW = re.compile(r"^am not (?:married|engaged|single) (?:anymore|any more)$", re.I)
_ECHO = re.compile(r",?\s+(?:too|as well)\s*[!.]*$", re.IGNORECASE)
_ADVERBS = (
    r"(?:(?:just|recently|finally|also|really|actually|totally|still|now|even|already|"
    r"officially|truly|absolutely|definitely|so|always|both|all|mostly|currently|more)\s+)*"
)
_NAME = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_NOT_PLAYED = frozenset("sing dance write draw paint cook read run swim act".split())
# "a huge Lakers fan", not "a huge fan" (of nothing named)
_A_FAN = r"an? (?:big |huge )?(?!(?:big|huge|great|real|true|massive|avid|lifelong) fan\b)"
_FIRST = re.compile(
    r"^(?P<subj>I|we)(?P<be>'m|'ve|'d|'ll| am| have| was| were| are|'re| will)?\s+", re.I
)


def _subject(clause: str, speaker: str, named: frozenset[str]) -> tuple[str, str, bool] | None:
    """(subject, rest of the clause, first person) or None when no subject is readable.

    Only the speaker ("I", "we"), the speaker's relatives ("my mom", "my husband Tom") and
    people the speaker named as relatives in this turn (``named``) are subjects: a clause
    about anything else is a general statement, never a fact.
    """
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
        elif be in ("'ll", "will"):
            rest = "will " + rest  # "I'll be moving to Denver": read by what a plan says
        elif be == "'d":
            return None
        if rest.lower().startswith("have been "):
            rest = "am " + rest[len("have been ") :]
        return speaker, rest, True
    if plural := plural_subject(clause, speaker):  # "my parents live in Florida"
        return *plural, True
    if pet := pet_subject(clause, speaker):  # "our cat Luna was diagnosed with diabetes"
        return pet[0], _third(pet[1]), False
    rel = re.match(rf"^{MY} (?P<rel>{FAMILY_WORDS})(?: (?P<name>[A-Z][a-z]+))?\s+", clause)
    if rel:
        subject = rel["name"] or f"{speaker}'s {FAMILY[rel['rel'].lower()]}"
        return subject, _third(clause[rel.end() :]), False
    name = re.match(rf"^(?P<name>{_NAME})\s+", clause)
    if name and name["name"] in named:
        return name["name"], _third(clause[name.end() :]), False
    return None


def _third(rest: str) -> str:
    """ "is diabetic" reads like "am diabetic" for the shared patterns."""
    return re.sub(r"^(?:is|'s)\s+", "am ", rest)


_NAMED_PETS = re.compile(
    rf"^{MY} (?P<pet>{PET_WORDS})(?: (?:are|is) (?:called|named)|(?:'s|s') names? (?:is|are)) "
    r"(?P<names>[A-Z][a-z]+(?:(?:,| and|, and) [A-Z][a-z]+){0,5})$"
)
# a category is one or two lower-case words, or an abbreviation ("my favorite TV show")
_CATEGORY_WORD = r"(?:[a-z]+|[A-Z]{2,3})"
_CATEGORY = (  # "color", "TV show", "thing to cook"
    rf"{_CATEGORY_WORD}(?: (?!now\b|these\b|nowadays\b){_CATEGORY_WORD})?(?: to [a-z]+)?"
)
_FAVORITE = re.compile(
    rf"^(?:[Mm]y (?:absolute )?(?:favou?rite|fave) (?P<c1>{_CATEGORY})"
    r"(?: now| these days| nowadays)? (?:is|are) "
    r"(?P<o1>.+)|(?P<o2>[\w' -]+?) (?:is|are) my (?:absolute )?(?:favou?rite|fave) "
    rf"(?P<c2>{_CATEGORY}))(?:,? (?:now|these days|nowadays))?$"
)
# whose favorite, when a relative's: "my husband's", "my sister Mia's", "my 3 year old's"
_THEIR_FAVORITE = re.compile(
    rf"^{MY} (?:(?P<rel>{FAMILY_WORDS})(?: (?P<name>[A-Z][a-z]+))?|(?P<age>\d{{1,2}})[- ]year[- ]"
    r"old)'s (?=(?:absolute )?(?:favou?rite|fave) )"
)
# "The budget went up to $8,000": the speaker's budget (or rent), said without "my"
THE_MEASURE = re.compile(
    r"^[Tt]he(?= (?:\w+ )?(?:budget|rent) (?:went|has|increased|decreased|rose|dropped))"
)
_MEASURE = re.compile(
    rf"^(?:[Mm]y|[Oo]ur|{THE_MEASURE.pattern[1:]}) (?:(?:trip|travel|holiday|vacation|monthly|"
    r"yearly|annual|total|wedding|house|renovation) )?"
    r"(?P<m>budget|rent|salary|income|savings|weight|height|age)"
    r"(?: for (?P<for>[\w ]{1,30}?))? (?:is|went (?:up|down) to|(?:has )?(?:increased|"
    r"decreased|risen|rose|dropped|fallen|fell|gone (?:up|down)) to) (?:now )?"
    r"(?:about |around |roughly )?"
    r"(?P<v>[$\u20ac\u00a3]?\d[\w$,. ]{0,30})$"
)


def _my_things(clause: str, speaker: str) -> list[Match]:
    """Clauses about what is the speaker's: pets' names, children's ages, favorites,
    measures."""
    ages = child_ages(clause, speaker) or children_named(clause, speaker)
    if ages:
        return ages
    pets = _NAMED_PETS.match(clause)
    if pets:
        pet = pets["pet"].lower().removesuffix("s")
        names = re.split(r",? and |, ", pets["names"])
        return [Match(speaker, "has_pet", f"{pet} named {n}", "has a") for n in names]
    whose = speaker
    if (theirs := _THEIR_FAVORITE.match(clause)) is not None:  # "My husband's favorite ..."
        rel, age = theirs["rel"], theirs["age"]
        relative = FAMILY[rel.lower()] if rel else f"{age}-year-old"
        whose = theirs["name"] or f"{speaker}'s {relative}"
        clause = "My " + clause[theirs.end() :]
    favorite = _FAVORITE.match(clause)
    if favorite:
        category = (favorite["c1"] or favorite["c2"]).lower().replace(" ", "_")
        obj = object_of(favorite["o1"] or favorite["o2"], max_words=6)
        if obj is not None and favorite["o2"] and re.match(r"(?:The|A|An) [a-z]", obj):
            obj = obj[0].lower() + obj[1:]  # "The beach is my favorite place": the beach
        if obj is not None and not deictic(obj):
            return [Match(whose, f"favorite_{category}", obj, "favorite", confidence=0.7)]
    if whose != speaker:
        return []
    measure = _MEASURE.match(clause) or MEASURE_SET.match(clause)
    if measure:
        value = measure["v"].strip()
        if measure["for"]:
            value = f"{value} for {measure['for'].strip()}"
        return [Match(speaker, measure["m"], value, measure["m"], confidence=0.8)]
    return []


_EVENTS = alternation(EVENT_VERBS)
#: A clause opening on a past event verb ("Just signed up for ...") has the speaker as its
#: subject, though it names nobody.
EVENT_OPENING = re.compile(
    rf"^(?:just\s+)?(?:(?:{_EVENTS}|lost|quit|started|got)\b|starting at [A-Z])", re.I
)
#: Openings of a clause that states something of its speaker without a personal word
#: ("I", "my", "we"): a clause with neither is not read at all (reading costs), so every
#: reader of such a clause has its opening here, once.
SUBJECTLESS: tuple[re.Pattern[str], ...] = (
    EVENT_OPENING,  # "Just signed up for a marathon"
    NAME_GONE,  # "Luna passed away": the speaker's pet, if any
    WEIGHT_NEWS,  # "Down to 89 kg!"
    ANSWER_REQUEST,  # "Please keep your answers short"
    GRADUATED,  # "Finally graduated!"
    GOT,  # "Finally got my green card!"
    THE_MEASURE,  # "The budget went up to $8,000"
)
# What follows a place is rarely part of it: "moved to Porto for a job at X", "live in
# Leeds with my wife", "moved to Lisbon to study". (" to the", " to a" stay: "next to the
# park".)
_PLACE_END = re.compile(
    r"\s+(?:for|with|because|after|when|where|while|to(?!\s+(?:the|a|an|my|our|his|her|their)\b))"
    r"\s",
    re.IGNORECASE,
)
# A move for a job names the employer: "moved to Porto for a (new) job at a biotech startup".
_JOB_PURPOSE = re.compile(
    r"\bfor\s+(?:a\s+|my\s+|the\s+)?(?:new\s+)?(?:job|position|role)\s+(?:at|with)\s+"
    r"(?P<org>[^,!.]+?)$",
    re.IGNORECASE,
)


#: Predicates whose object is a thing one plays or eats, which stops before the clause's
#: purpose, company or schedule (:func:`.clauses.thing_of`). What one likes keeps them: how
#: and with whom is part of what is liked ("hiking with my dog", "to paint in my spare
#: time").
_THINGS = frozenset({"plays", "eats"})
# Verbs of things people like to do, in their plain form: in "I like to read, go for walks
# and travel" the later items are infinitives too ("to go for walks"), while in "I like to
# go hiking, camping and fishing" or "to read biographies and memoirs" they are not.
_DOING = frozenset(
    "attend bake binge bike blog build camp care chat climb collect cook craft cuddle cycle "
    "dance decorate do draw drink eat explore feed fish fix garden get go grow hang help hike "
    "hunt jog knit learn lift listen make meet paint play practice read relax restore ride run "
    "see sew shop sing ski skate sketch sleep spend stay study surf swim take talk teach "
    "tinker train travel try visit volunteer walk watch work write".split()
)


def _infinitives(items: list[str]) -> list[str]:
    """ "to read", "go for walks", "travel": each item after an infinitive that opens on a
    verb of :data:`_DOING` is one too."""
    if not items[0].lower().startswith("to "):
        return items
    return [items[0]] + [
        f"to {item}" if item.split()[0].lower() in _DOING else item for item in items[1:]
    ]


def _state(rest: str, subject: str, first: bool) -> list[Match]:
    """Present-tense states: where one lives and works, what one likes, plays, eats."""
    verb_s = "" if first else "s"
    checks: list[tuple[str, str, str, float]] = [
        (rf"^live{verb_s} (?:in|on (?=(?-i:[A-Z])))(?P<o>.+)", "lives_in", "lives in", 0.8),
        (rf"^work{verb_s} (?:remotely |full[- ]time |part[- ]time |freelance )?(?:at|for) "
         r"(?P<o>.+)", "works_at", "works at", 0.8),
        (rf"^work{verb_s} as (?:an? )?(?P<o>.+)", "works_as", "works as", 0.8),
        (rf"^work{verb_s} (?:the )?(?:night|day|early|late|evening|weekend|double|long) "
         r"shifts? as (?:an? )?(?P<o>.+)", "works_as", "works as", 0.8),
        (r"^(?:am|is) (?:originally )?from (?P<o>.+)", "comes_from", "comes from", 0.7),
        (rf"^live{verb_s} with (?:my |our )?[\w' ]{{1,30}}? in (?P<o>[A-Z].*)", "lives_in",
         "lives in", 0.7),
        *RENAMED_OR_AGED,
        (r"^(?:am|is) (?:a |an )?(?P<o>vegetarian|vegan|pescatarian)\b", "diet", "is", 0.8),
        # "I'm gluten-free": what one does not eat (a diet of its own would replace "vegan")
        (r"^(?:am|is) (?:completely |strictly |mostly )?(?P<o>gluten|dairy|sugar|meat|soy)"
         r"[- ]free$",
         "does_not_eat", "does not eat", 0.8),
        (rf"^work{verb_s} remotely from (?P<o>(?-i:[A-Z]).*)", "lives_in", "lives in", 0.6),
        (r"^(?:went|gone|became|become|turned|switched to being) (?:a |an |fully |full )?"
         r"(?P<o>vegetarian|vegan|pescatarian)\b", "diet", "is", 0.8),
        # "a nurse at St. Mary's"; "a beginner at Rust" is a skill, no job (``_SKILL``)
        (rf"^(?:am|is) (?:an? )(?!{_SKILL})(?P<o>[\w ]+?)(?: \w+ing\b[\w ]*?)? (?:at|for) "
         r"(?P<at>.+)", "works_as", "works as", 0.6),
        (
            rf"^(?:do |does )?(?:love{verb_s}|like{verb_s}|enjoy{verb_s}|adore{verb_s}) "
            r"(?P<o>.+)",
            "likes",
            "likes",
            0.6,
        ),
        (
            r"^(?:am|is|been|have been|has been) (?:into|passionate about|keen on|obsessed with|"
            r"crazy about|all about|(?:really |very |also )?interested in|"
            r"a (?:big |huge )?fan of) (?P<o>.+)",
            "likes",
            "likes",
            0.6,
        ),
        (rf"^(?:am|is) {_A_FAN}(?P<o>[\w -]+?) fan\b", "likes", "likes", 0.6),
        (rf"^play{verb_s} (?:the )?(?P<o>.+)", "plays", "plays", 0.6),
        # "I eat a lot of meat": what one eats, not how much ("I like a lot of music" names
        # no one thing: not read)
        (rf"^eat{verb_s} (?:a lot of |lots of |plenty of |tons of )?(?P<o>.+)", "eats", "eats",
         0.6),
        (rf"^(?:hate{verb_s}|(?:don't|doesn't|do not) (?:really )?(?:like|enjoy)|can't stand) "
         r"(?P<o>.+)", "dislikes", "dislikes", 0.6),
        (rf"^(?:prefer{verb_s}|(?:much |really )?prefer{verb_s}) (?P<o>.+)", "prefers", "prefers",
         0.7),
        (r"^(?:got|have gotten|has gotten) (?:accepted )?(?:into|to) (?P<o>(?-i:[A-Z]{2,5})|"
         r"(?:the )?(?-i:(?:[A-Z][\w.'&-]* ){1,4}(?:University|College|School|Institute)|"
         r"(?:University|College|Institute) of(?: [A-Z][\w.'-]*){1,4})|"
         r"(?:med|law|grad|nursing|business|medical|art|culinary) school|college|university|"
         r"Harvard|Stanford|Yale|Princeton|Oxford|Cambridge|Berkeley|Columbia|Cornell)$",
         "admitted_to", "got into", 0.7),  # "my son got into MIT": a school, not a taste
        (r"^(?:got|am getting|have gotten) (?:really )?into (?!(?:trouble|debt|shape|bed|"
         r"(?:a|an|the) (?:fight|argument|accident|car accident|habit|car|mess|routine))\b)"
         r"(?P<o>.+)", "likes", "likes", 0.6),
        *MOVES,
        *states(verb_s),
        (rf"^(?:start{verb_s}|begin{verb_s}) (?P<o>.+)", "starts", "starts", 0.6),
    ]  # fmt: skip
    for pattern, predicate, surface, confidence in checks:
        m = re.match(pattern, rest, re.IGNORECASE)
        if m is None:
            continue
        if predicate == "died":  # of someone else: "I died laughing" is no news
            if first and "'s " not in subject:  # (relatives in the plural read as "I")
                return []
            return [Match(subject, predicate, None, surface, confidence=confidence)]
        many = predicate in ("likes", "dislikes", "prefers", "plays")
        items = listed(m["o"], 6) if many else []
        if many and not items and " and " in m["o"] and "," not in m["o"]:
            items = items_of(m["o"], 3)
        if len(items) > 1:  # ("plays the piano and the violin": each without "the")
            if predicate == "plays":  # "guitar and sing": singing is no instrument
                items = [i.removeprefix("the ") for i in items if i not in _NOT_PLAYED]
            return [
                Match(subject, predicate, item, surface, confidence=confidence)
                for item in _infinitives(items)
            ]
        if predicate in ("lives_in", "comes_from"):
            found = _place(m["o"], subject, predicate, surface, confidence)
            before = m.groupdict().get("from") or m.groupdict().get("from2")
            place = object_of(before) if found and before else None
            if place and re.match(r"(?:the )?[A-Z]", place):  # a place's name, not "home"
                found.append(Match(subject, "moved_from", place, "moved from", confidence=0.6))
            return found
        being = BEING.match(m["o"]) if many else None
        obj = object_of(m["o"]) if being is None else object_of(being["o"])
        if obj is None:
            return []
        if being is not None:
            obj = f"being {obj}"  # "I hate being still": a state one likes or not
        if predicate in _THINGS:  # "plays tennis with my brother": tennis
            obj = thing_of(obj)
        if predicate == "likes" and obj.lower().split()[0] in ("all", "every"):
            obj = " ".join(obj.split()[1:]) or obj
        if predicate in ("likes", "dislikes") and deictic(obj):
            return []  # "I love their work": whose, what, is in another turn
        if predicate == "works_as":  # "security guard at the harbour": the job, and where
            split = _JOB_AT.match(obj)
            job, org = (split["job"], object_of(split["org"])) if split else (obj, None)
            return job_facts(subject, job, org, confidence=confidence)
        future = predicate == "starts"
        return [Match(subject, predicate, obj, surface, future=future, confidence=confidence)]
    return []


_JOB_AT = re.compile(r"^(?P<job>(?:[\w-]+ ){0,3}[\w-]+) (?:at|for) (?P<org>.+)$")


def _place(raw: str, subject: str, predicate: str, surface: str, confidence: float) -> list[Match]:
    """Where one lives or comes from, without what the clause adds after the place (why,
    with whom: a fact that would go stale when that changes), and the employer a move for
    a job names."""
    cut = _PLACE_END.search(raw)
    obj = object_of(raw[: cut.start()] if cut else raw)
    if obj is None:
        return []
    out = [Match(subject, predicate, obj, surface, confidence=confidence)]
    job = _JOB_PURPOSE.search(raw) if cut else None
    if job is not None and (org := object_of(job["org"])) is not None:
        out.append(Match(subject, "works_at", org, "works at", confidence=0.6))
    return out


def _event(rest: str, subject: str) -> list[Match]:
    """Past events: "went to X", "adopted a dog", "started a new job as X"."""
    changed = job_change(rest, subject)
    if changed:
        return changed
    m = re.match(rf"^(?P<v>{_EVENTS})\s+(?P<o>.+)$", rest, re.IGNORECASE)
    if m is None:
        went = re.match(r"^went\s+(?P<o>\w+ing)\b", rest, re.IGNORECASE)
        if went and went["o"].lower() not in ("nothing", "something", "thing"):
            return [Match(subject, "did", went["o"].lower(), "went", confidence=0.6)]
        return []
    verb = m["v"].lower()
    obj = object_of(m["o"])
    if obj is None:
        return []
    obj = without_company(obj)  # "went to the gym with my brother": the gym
    obj = re.sub(r"\s+(?:in the end|after all|eventually)$", "", obj)
    predicate = EVENT_VERBS[verb]
    return [
        Match(subject, predicate, obj, verb, confidence=0.6),
        *what_follows(predicate, obj, subject),
    ]


_WISH_AFTER = re.compile(
    r",?\s+(?:and|but)\s+(?:I\s+)?(?:really\s+|also\s+)?(?:want|hope|wish|would like|'d like)"
    r"\b.*$",
    re.IGNORECASE,
)


def match_clause(
    clause: str,
    speaker: str,
    *,
    named: frozenset[str] = frozenset(),
    dated: bool = False,
    job_changed: bool = False,
) -> list[Match]:
    """Every triple a clause states (the date expressions are already cut out).

    ``named``: the people the speaker named as relatives earlier in the turn; ``dated``:
    whether the clause carried a date (a progressive with a date is a plan);
    ``job_changed``: an earlier clause of the turn said the speaker changed jobs (so "I'm at
    Spotify now" names the employer). A clause
    is read once more without what follows its first comma when that is an aside ("I'm a
    chemistry teacher in Ohio, looking for lab ideas"), and that reading wins when the
    whole states nothing or fewer kinds of fact.
    """
    if (told := each_of_two(clause)) is not None:  # "My wife and I both work at Google"
        return [m for part in told for m in match_clause(part, speaker, named=named, dated=dated)]
    found = _match_whole(clause, speaker, named, dated, job_changed)
    head, comma, aside = clause.partition(", ")
    if comma and aside[:1].islower() and len(head.split()) >= 3:
        without = _match_whole(head, speaker, named, dated, job_changed)
        # the aside may also have hidden part of what was read ("I'm a developer at a
        # startup in Berlin, mostly Go": the employer and the place, not only the job)
        if not found or _predicates(found) < _predicates(without):
            return without
        # "I started a new job at X, day shifts now": the job, not a thing started
        if _predicates(found) <= {"started", "starts"} and _predicates(without) - {"started"}:
            return without
    return found


def _predicates(found: list[Match]) -> set[str]:
    return {m.predicate for m in found}


def _match_whole(
    clause: str, speaker: str, named: frozenset[str], dated: bool, job_changed: bool
) -> list[Match]:
    gone = pet_gone(clause, speaker) or name_gone(clause, speaker, named)
    if gone:
        return gone  # not also "has a dog named Rex" from the same words
    found = relations(clause, speaker) + home_in(clause, speaker)
    named_now = match_name(clause, speaker)
    if named_now:
        return found + named_now
    # "I love dogs too": agreeing with the other speaker still says it of oneself
    clause = _ECHO.sub("", clause)
    aimed = (
        aspiration(clause, speaker)
        or former(clause, speaker)
        or target_weight(clause, speaker)
        or (rather(clause, speaker) + trying(clause, speaker) if not dated else [])
        or go_to(clause, speaker)
    )
    if aimed:  # "I want to be a doctor", "I used to be a nurse": before wishes are skipped
        return found + aimed
    requested = answer_style(clause, speaker)
    if requested:  # "Please keep your answers short": said to "you", and the user's own
        return found + requested
    # "I bought the headphones you recommended": what was done, the advice aside
    clause = _YOUR_ADVICE.sub("", clause)
    # "I've been a paralegal for six years and want to move into compliance": the wish is
    # skipped, not what was said before it
    clause = _WISH_AFTER.sub("", clause)
    if _SKIP.search(clause):
        return found
    owned = (
        _my_things(clause, speaker)
        or young_children(clause, speaker)
        or housemate(clause, speaker)
        or disagrees(clause, speaker)
        or possessions(clause, speaker)
        or expecting(clause, speaker)
        or born(clause, speaker)
        or weight_news(clause, speaker)
        or body_state(clause, speaker)
        or milestone(clause, speaker, dated)
        or project(clause, speaker)
    )
    if owned:
        return found + owned
    # a clause opening on a past event verb has the speaker as its subject
    if EVENT_OPENING.match(clause):
        read: tuple[str, str, bool] | None = (
            speaker,
            re.sub(r"^just\s+", "", clause, flags=re.I),
            True,
        )
    else:
        read = _subject(clause, speaker, named)
    if read is None:
        return found
    subject, rest, first = read
    rest = re.sub(rf"^{_ADVERBS}", "", rest, flags=re.IGNORECASE)
    if rest.lower().startswith(("am ", "have ", "was ")):
        head, _, tail = rest.partition(" ")
        if not tail.lower().startswith("all about"):  # "all" is no adverb there
            tail = re.sub(rf"^{_ADVERBS}", "", tail, flags=re.IGNORECASE)
        rest = f"{head} {tail}"
    if (no_fan := _NOT_A_FAN.match(rest)) is not None:  # "I'm not a fan of horror movies"
        obj = object_of(no_fan["o"])
        if obj is None or obj.lower() in _PRONOUNS:
            return found
        return [*found, Match(subject, "dislikes", obj, "dislikes")]
    if rest.lower().startswith("am not ") and not (
        NO_LONGER_DIET.match(rest) or _NOT_NOW.match(rest)
    ):
        return found  # "I'm not a morning person": what one is not is rarely worth noting
    changed = switched_job(rest, subject) or switched(rest, subject) or sold(rest, subject)
    if job_changed and not changed:
        changed = new_employer(rest, subject)
    if changed:
        return [*found, *changed]
    matches: list[Match] = []
    for n, part in enumerate(shared_subject(rest)):
        part = NOW.sub("", part)  # "I'm in college right now": as true without it
        read_part = match_profile(part, subject, dated=dated)
        if not read_part:
            if part.lower().startswith("have "):
                part = part.partition(" ")[2]  # "I've started" reads as "started"
            read_part = ended(part, subject) or _state(part, subject, first)
            read_part = read_part or _event(part, subject) or identity(part, subject)
        if not read_part and n and first:  # "I'm 42 and just got diagnosed with ...": read
            found += _match_whole(f"I {part}", speaker, named, dated, job_changed)  # alone
        matches.extend(read_part)
    return found + [
        Match(
            m.subject,
            m.predicate,
            None if m.object is None else possessive(m.object, speaker),
            m.surface,
            m.negated,
            m.future,
            m.confidence,
        )
        for m in matches
    ]
