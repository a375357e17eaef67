"""What one is and where, told plainly, and relatives spoken of in the plural.

- a state one likes or hates being in ("I hate being still", "I love being a mom");
- a home told by what it is on, near or under ("I live on a farm", "I live under the sea"),
  filed as ``lives`` beside ``lives_in`` (a place by name), and a posting ("I'm stationed in
  South Korea");
- the school one attends ("I'm going to hairdresser school", "I attend Auburn University");
- a search that lasts ("I'm looking for a new job"), becoming a parent ("I just became a
  first time father"), a skill ("I know how to ice
  fish"), what one studies ("I study marine biology at the university");
- a home named in passing ("there's a gym near my apartment in Queens": lives in Queens);
- a pet as the subject of a clause ("our cat Luna was diagnosed with diabetes": Luna's);
- relatives in the plural as the subject of a clause ("my parents live in Florida"): what
  is said of them reads as of the speaker ("live", "are retired"), and is filed with
  "<speaker>'s parents" as its subject (phrased in the plural, ``vocabulary.phrase``).
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import VAGUE_BEING, Match
from sedimem.extraction.family import MY
from sedimem.extraction.vocabulary import PET_WORDS, PLURAL_RELATIVES, alternation

__all__ = ["BEING", "NOW", "SCHOOL", "home_in", "pet_subject", "plural_subject", "states"]

#: "right now", "at the moment": a state is as true without them
NOW = re.compile(r"\s+(?:right now|at the moment|currently|these days|nowadays)$", re.I)
#: A school one attends: "hairdresser school", "Auburn University", "the University of Oslo"
SCHOOL = (
    r"(?:(?:the )?(?:(?-i:[A-Z][\w.'&-]*) (?:of )?){0,4}(?:(?!back\b|to\b|the\b)[\w-]+ ){0,2}"
    r"(?:school|college|university|academy|institute)"
    # "Lincoln Elementary", "Roosevelt High": a school by its name alone
    r"|(?-i:(?:[A-Z][\w.'&-]* ){1,3}(?:Elementary|High|Middle|Prep)))"
)
#: "being still", "being outdoors", "being a mom": what one likes being; not "being able to",
#: "being there" (for someone), whose thing is elsewhere
BEING = re.compile(rf"^(?!{VAGUE_BEING})being (?P<o>.+)$", re.IGNORECASE)
# "my parents", "my two brothers": relatives in the plural
_RELATIVES = re.compile(
    r"^(?:[Mm]y|[Oo]ur) (?:(?:two|three|four|\d) )?"
    rf"(?P<rel>{alternation(PLURAL_RELATIVES)})(?=\s)\s+"
)


def states(verb_s: str) -> list[tuple[str, str, str, float]]:
    """The rules of this module as ``(pattern, predicate, surface, confidence)``, for a
    clause whose verbs take ``verb_s`` ("" in the first person, "s" in the third)."""
    return [
        (r"^(?:passed away|died|(?:am|is) (?:deceased|dead|no longer alive))\b", "died",
         "passed away", 0.7),
        # "I live on a farm", "I live near the beach": where, told by what it is near or on
        (rf"^live{verb_s} (?P<o>(?:(?:near|under|beside|close to|next to|outside)"
         r" (?:a |an |the )?|by the |on (?:a |an |the )(?=(?:[\w-]+ )?(?:farm|ranch|island|boat|"
         r"houseboat|coast|lake|river|mountain|hill|beach|campus|base|reservation|estate|"
         r"street|road|avenue)\b))(?-i:[a-z])[\w -]*)$", "lives", "lives", 0.7),
        (r"^(?:am|is) (?:currently |now )?stationed (?:in|at) (?P<o>.+)", "lives_in",
         "lives in", 0.7),
        (rf"^(?:am (?:currently )?going to|go to|goes to|am (?:currently )?attending|"
         rf"attend{verb_s}) (?P<o>{SCHOOL})$", "attends", "attends", 0.7),
        # "I'm looking for a new job": a search that lasts (not "for a gift", "for my keys")
        (r"^am (?:currently |actively |still )?(?:looking|searching|hunting) for (?P<o>(?:a |an )?"
         r"(?:new |full[- ]time |part[- ]time |remote |better )?(?:job|work|position|apartment|"
         r"flat|house|home|place to live|roommate|flatmate))$", "looking_for", "is looking for",
         0.6),
        # "I know how to ice fish": a skill
        (rf"^know{verb_s} how to (?P<o>.+)", "knows_how_to", "knows how to", 0.6),
        # "I study marine biology (at the university)": what, not where
        (r"^stud(?:y|ies) (?!(?:at|in|for|with|on|hard|a lot|late|abroad|online)\b)"
         r"(?P<o>[\w -]+?)(?: (?:at|in) .+)?$", "learning", "is learning", 0.6),
        (r"^(?:just |recently )?(?:became|have become|has become) (?P<o>(?:a |an )(?:first[- ]"
         r"time |proud |new )?(?:father|mother|dad|mom|mum|parent|grandfather|grandmother|"
         r"grandpa|grandma|grandparent|aunt|uncle))\b", "status", "is", 0.7),
    ]  # fmt: skip


# "our cat Luna was diagnosed with diabetes", "my dog loves the beach": a pet as a subject
_PET = re.compile(
    rf"^(?:[Mm]y|[Oo]ur) (?P<pet>{PET_WORDS})(?: (?P<name>[A-Z][a-z]+))?\s+"
    r"(?=(?:is|was|has|loves|likes|hates|eats|gets|got)\b)"
)


def pet_subject(clause: str, speaker: str) -> tuple[str, str] | None:
    """``(subject, rest)`` of a clause about the speaker's pet: its name when the clause
    gives it, else "<speaker>'s <pet>"; the rest as a relative's is read."""
    pet = _PET.match(clause)
    if pet is None:
        return None
    return pet["name"] or f"{speaker}'s {pet['pet'].lower()}", clause[pet.end() :]


def plural_subject(clause: str, speaker: str) -> tuple[str, str] | None:
    """``(subject, rest)`` of a clause about relatives in the plural, the rest read as of
    the speaker ("are retired" -> "am retired"); None for any other clause, and for their
    ages ("my kids are 5 and 8", read by ``family.child_ages``)."""
    group = _RELATIVES.match(clause)
    if group is None:
        return None
    rest = clause[group.end() :]
    if re.match(r"^(?:are|'re) (?:aged |ages )?\d", rest):
        return None
    rest = re.sub(r"^(?:are|'re)\s+(?:both\s+|all\s+)?", "am ", rest)
    return f"{speaker}'s {group['rel'].lower()}", rest


# "my apartment in Queens", "our house in Leeds": not a holiday home, not "in the city"
_HOME_IN = re.compile(
    rf"\b{MY} (?!(?:vacation|holiday|summer|beach|second|old|former|parents') )"
    r"(?:[\w-]+ )?(?:apartment|flat|house|home|condo|place) in "
    r"(?P<place>(?-i:[A-Z])[\w'.-]*(?: (?-i:[A-Z])[\w'.-]*){0,2})"
)


# "I live in my flat in Leeds" is read as a home already; one sold or left is no home now
_NOT_HOME = re.compile(
    r"\b(?:liv(?:e|es|ed|ing) in|sold|sell(?:ing)?|rent(?:ed|ing)? out|list(?:ed|ing)|left|"
    r"mov(?:ed|ing) out of)\b",
    re.IGNORECASE,
)


def home_in(clause: str, speaker: str) -> list[Match]:
    """Where the speaker's home is, when a clause names it in passing ("there's a gym
    near my apartment in Queens"; "I live in my flat in Leeds" is read as a home)."""
    m = _HOME_IN.search(clause)
    if m is None or _NOT_HOME.search(clause):
        return []
    return [Match(speaker, "lives_in", m["place"], "lives in", confidence=0.6)]
