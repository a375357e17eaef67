"""How much and how many, said of oneself: age, height and weight ("I'm 34", "I'm 5'9\"",
"I weigh 82 kg", "Down to 89 kg!"), and running counts the next count replaces ("I've
counted 32 bird species so far", "I'm up to 15 books now")."""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, bad_object

__all__ = ["WEIGHT_NEWS", "measure", "tally", "weight_news"]


def measure(rest: str, subject: str) -> list[Match]:
    age = re.match(
        r"^(?:am|is) (?:an? )?(?P<v>\d{1,2})(?:[- ]years?[- ]old\b.*| yo\b.*|,.*| and\b.*)?$", rest
    )
    if age and 5 <= int(age["v"]) <= 110:
        return [Match.of(subject, "age", age["v"], 0.8)]
    height = re.match(
        r"^(?:am|is) (?:about |around )?(?P<v>\d'\s?\d{1,2}\"?|\d{3} ?cm|[12][.,]\d{1,2} ?m|"
        r"[4-7] (?:feet|foot|ft)(?: \d{1,2}(?: inches)?)?)(?: tall)?$",
        rest,
    )
    if height:
        return [Match.of(subject, "height", height["v"], 0.8)]
    weight = _WEIGHT.match(rest)
    if weight:
        return [Match.of(subject, "weight", weight["v"], 0.8)]
    return []


_KILOS = r"(?P<v>\d{2,3}(?:[.,]\d)? ?(?:kg|kgs|kilos|lbs|pounds))"
_WEIGHT = re.compile(
    r"^(?:(?:weigh|weighs) (?:about |around )?|(?:am|is) (?:now )?(?:(?:down|up) to |at )?)"
    rf"{_KILOS}(?: now)?$"
)
#: "Down to 89 kg!", said of oneself without a subject (a progress report)
WEIGHT_NEWS = re.compile(rf"^(?:(?:now|finally|just) )?(?:down|up) to {_KILOS}(?: now)?$", re.I)


def weight_news(clause: str, subject: str) -> list[Match]:
    """ "Down to 89 kg!": the speaker's weight now."""
    m = WEIGHT_NEWS.match(clause)
    return [] if m is None else [Match.of(subject, "weight", m["v"], 0.8)]


# "I've counted 32 bird species so far", "I've read 12 books this year": a running count,
# which the next count replaces.
_TALLY = re.compile(
    r"^(?:(?:have |has |'ve )?(?:now |already |just )?(?:counted|seen|spotted|logged|identified|"
    r"read|visited|finished|completed|collected|planted|written|climbed)|(?:am|is|are) up to) "
    r"(?:about |over |almost |nearly |exactly |around )?(?P<n>\d{1,6}(?:,\d{3})*) "
    r"(?P<thing>[a-z][a-z -]{1,30}?)"
    r"(?: (?:so far|in total|total|altogether|now|already|to date))?$",
    re.IGNORECASE,
)


def tally(rest: str, subject: str) -> list[Match]:
    m = _TALLY.match(rest)
    if m is None:
        return []
    thing = re.sub(r"\s+", " ", m["thing"].lower()).strip()
    if bad_object(thing) or len(thing.split()) > 3:
        return []
    return [Match.of(subject, "tally_" + thing.replace(" ", "_"), m["n"].replace(",", ""), 0.7)]
