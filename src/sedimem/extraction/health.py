"""What one says of one's health: allergies ("I have a peanut allergy"), conditions and the
medication that names one ("I take medication for my blood pressure"), injuries ("I broke
my arm"), a sore body part ("my knee has been sore"), and recovering from an operation."""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, bad_object, items_of
from sedimem.extraction.vocabulary import ACRONYMS, CONDITIONS, alternation

__all__ = ["BODY_STATE", "body_state", "health"]

_COND = alternation(CONDITIONS)
# "I'm diabetic": the condition's name
_AS_NOUN = {
    "diabetic": "diabetes", "asthmatic": "asthma", "epileptic": "epilepsy",
    "lactose intolerant": "lactose intolerance", "gluten intolerant": "gluten intolerance",
    "dyslexic": "dyslexia", "autistic": "autism", "pregnant": "a pregnancy",
    "colorblind": "color blindness", "color blind": "color blindness", "deaf": "deafness",
}  # fmt: skip

# "I'm recovering from knee surgery": a condition of now (it ends; a later turn may say so)
_RECOVERING = re.compile(
    r"^(?:am|is) (?:still |slowly |currently )?recovering from (?:an? |my |his |her |the )?"
    r"(?P<o>(?:[\w-]+ ){0,2}(?:surgery|operation|injury|fracture|concussion|stroke|"
    r"heart attack|burnout|covid|pneumonia|broken (?:arm|leg|wrist|ankle|foot|hand|rib)))\b",
    re.IGNORECASE,
)


_BODY = (
    r"(?P<part>arms?|legs?|ankles?|knees?|wrists?|hands?|feet|foot|toes?|fingers?|back|neck|"
    r"shoulders?|hips?|elbows?|ribs?|collarbone|hamstrings?|acl|achilles|meniscus)"
)
_HURT = {
    "broke": "broken", "fractured": "fractured", "twisted": "twisted", "sprained": "sprained",
    "tore": "torn", "injured": "injured", "hurt": "hurt", "dislocated": "dislocated",
    "pulled": "pulled",
}  # fmt: skip
_INJURY = re.compile(
    rf"^(?:just |recently )?(?P<v>{'|'.join(_HURT)}) my {_BODY}\b(?P<tail>.*)$", re.IGNORECASE
)
#: "My knee has been sore since...", "my back still hurts": a body part sore for a while,
#: said of oneself ("my feet hurt after the hike" passes, and is not read)
BODY_STATE = re.compile(
    rf"^[Mm]y {_BODY} (?:(?:has been|'s been|have been|'ve been|has felt|keeps|keep|is still|"
    r"are still) (?:really |so |a bit |still |very )?(?P<s>sore|swollen|stiff|hurting|aching|"
    r"painful|acting up)|still (?:hurts?|aches?))\b",
    re.IGNORECASE,
)
_SORE = {"swollen": "swollen", "stiff": "stiff"}


def _a(state: str, part: str) -> str:
    """ "a broken arm", "an injured knee", "broken ribs", "sore feet"."""
    part = "ACL" if part.lower() == "acl" else part.lower()
    if part == "feet" or (part.endswith("s") and part not in ("achilles", "meniscus")):
        return f"{state} {part}"
    return f"{'an' if state[0] in 'aeiou' else 'a'} {state} {part}"


def body_state(clause: str, subject: str) -> list[Match]:
    """ "My knee has been sore since I twisted it": ``has_condition`` "a sore knee"."""
    m = BODY_STATE.match(clause)
    if m is None:
        return []
    state = _SORE.get((m["s"] or "").lower(), "sore")
    return [Match.of(subject, "has_condition", _a(state, m["part"]), 0.7)]


# "a peanut allergy" is an allergy to peanuts; "medication for my blood pressure" treats
# high blood pressure
_ALLERGENS = {"peanut": "peanuts", "nut": "nuts", "tree nut": "tree nuts", "egg": "eggs"}
_TREATED = {"blood pressure": "high blood pressure", "cholesterol": "high cholesterol"}


def health(rest: str, subject: str) -> list[Match]:
    allergic = re.match(
        r"^(?:am|is) (?:also |very |severely |really )?allergic to (?P<o>.+)$", rest, re.I
    )
    if allergic:
        return [Match.of(subject, "allergic_to", item, 0.8) for item in items_of(allergic["o"], 3)]
    # "I have a peanut allergy", "I have a severe shellfish allergy"
    allergy = re.match(
        r"^(?:have|has) (?:an? )?(?:severe |mild |bad |serious )?(?P<o>[a-z]+(?: [a-z]+)?) "
        r"allergy$",
        rest,
    )
    if allergy and not bad_object(allergy["o"]):
        allergen = allergy["o"]
        return [Match.of(subject, "allergic_to", _ALLERGENS.get(allergen, allergen), 0.8)]
    # "I'm on medication for anxiety", "I take medication for my blood pressure"
    treated = re.match(
        r"^(?:am on|take|takes|am taking) (?:some |daily )?(?:medication|medicine|meds|pills) "
        r"for (?:my |his |her )?(?P<o>[\w -]{2,30})$",
        rest,
    )
    if treated and not bad_object(treated["o"]):
        condition = treated["o"].lower()
        return [Match.of(subject, "has_condition", _TREATED.get(condition, condition), 0.7)]
    state = re.match(
        rf"^(?:am|is) (?:also |a )?(?P<o>(?:\w+ )?(?:{_COND}))"
        r"(?: (?:again|with (?:our|my|her|his|their) (?:first|second|third|\w+) (?:child|baby)"
        r"|with twins))?$",  # "pregnant with our second child"
        rest,
        re.I,
    )
    if state:
        condition = state["o"].lower()
        return [Match.of(subject, "has_condition", _AS_NOUN.get(condition, condition), 0.7)]
    injury = _INJURY.match(rest)
    if injury:  # "I broke my arm last month": a broken arm (since then)
        hurt = _a(_HURT[injury["v"].lower()], injury["part"])
        return [Match.of(subject, "has_condition", hurt, 0.7)]
    recovering = _RECOVERING.match(rest)
    if recovering:
        return [Match.of(subject, "recovering_from", recovering["o"].lower(), 0.7)]
    # "I have asthma", "my son has ADHD and dyslexia": each condition of a list its own
    listed = re.match(r"^(?:have|has) (?P<o>.+)$", rest)
    items = items_of(listed["o"], 4) if listed else []
    if len(items) > 1 and all(_CONDITION.fullmatch(item) for item in items):
        return [Match.of(subject, "has_condition", _condition(item), 0.7) for item in items]
    has = re.match(
        rf"^(?:have|has) (?:an? |had an? )?(?P<o>(?:(?!and\b)[\w-]+ ){{0,2}}(?:{_COND}))\b",
        rest,
        re.I,
    )
    if has and not bad_object(has["o"]):
        return [Match.of(subject, "has_condition", _condition(has["o"]), 0.7)]
    return []


_CONDITION = re.compile(rf"(?:an? )?(?:[\w-]+ ){{0,2}}(?:{_COND})", re.I)


def _condition(said: str) -> str:
    """A condition as filed: lower case but for acronyms ("ADHD")."""
    condition = re.sub(r"^an? ", "", said.lower())
    return ACRONYMS.get(condition, condition)
