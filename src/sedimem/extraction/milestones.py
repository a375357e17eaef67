"""Milestones of a user's calendar: an appointment or a deadline set for a day, and a
graduation told without its school.

- "I have a dentist appointment on Friday", "I've got a job interview next Tuesday", "I
  have an exam on May 3" -> ``has_appointment`` ("a dentist appointment"), dated on that
  day; only with the day (the clause named a date, cut before it is read): "I have an
  appointment" alone says nothing worth keeping;
- "My flight to Tokyo is on March 12th" -> ``has_booking`` ("a flight to Tokyo"), that day;
- "My thesis is due on May 3", "my tax return is due next week" -> ``due`` ("thesis"),
  and "My passport expires in June 2027" -> ``expires`` ("passport"), dated alike;
- "I graduated!", "Finally graduated!" (no school named) end being a student; the school,
  when named, is read with the event ("graduated from TU Delft");
- "I got my driver's license", "Finally got my green card" -> ``holds`` ("a driver's
  license"), dated when it was got: a licence, a permit, a degree one now has; "I have a
  PhD in chemistry", "I hold an MBA" -> ``holds`` too.
"""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match

__all__ = ["GOT", "GRADUATED", "milestone"]

_APPOINTMENT = re.compile(
    r"^I(?:'ve| have)?(?: got)? (?:a|an|my) (?P<o>(?:[\w'-]+ ){0,2}?(?:appointment|interview|"
    r"exam|check-?up|surgery|operation|flight|hearing|viva|defen[cs]e|deadline))"
    r"(?: with (?P<with>(?:my |the |a |an )?[\w'-]+(?: [\w'-]+)?))?"
    r"(?: (?:at|with) (?P<at>(?-i:[A-Z])[\w&'.-]*(?: (?-i:[A-Z])[\w&'.-]*){0,2}))?$",
    re.IGNORECASE,
)
#: "My flight to Tokyo is on March 12th" (the date cut): a journey booked for that day
_JOURNEY = re.compile(
    r"^[Mm]y (?P<o>flight|train|bus|ferry|cruise) (?P<dir>to|from|home from) "
    r"(?P<to>[A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}) (?:is|leaves|departs|lands)$"
)
_EXPIRES = re.compile(
    r"^[Mm]y (?P<o>(?:[\w'-]+ ){0,2}?(?:passport|visa|license|licence|ID|ID card|lease|contract|"
    r"membership|subscription|insurance|warranty|permit|green card))"
    r" (?:expires|runs out|ends|is expiring|will expire)$"
)
_DUE = re.compile(
    r"^[Mm]y (?P<o>(?:[\w-]+ ){0,2}?(?:thesis|dissertation|essay|report|paper|assignment|"
    r"project|application|tax return|taxes|presentation|homework|proposal|visa renewal))"
    r"(?: is| are|'s) (?:due|to be submitted|to be handed in)$"
)
#: "Finally graduated!", "I graduated": a graduation that names no school
GRADUATED = re.compile(
    r"^(?:I(?:'ve| have)? )?(?:(?:just|finally|officially) )*graduated$", re.IGNORECASE
)


#: "I got my driver's license", "Finally got my green card!": what one now holds (a word
#: list: "I got my hair cut", "got my coffee" are nothing one holds)
GOT = re.compile(
    r"^(?:I(?:'ve| have)? )?(?:(?:just|finally|officially) )*(?:got|received|earned) my "
    r"(?P<o>(?:driver'?s|driving|pilot'?s|real estate|teaching|nursing|fishing) licen[cs]e|"
    r"green card|work permit|residence permit|citizenship|black belt|PhD|master'?s degree|"
    r"bachelor'?s degree|degree|diploma|CPA|MBA)$",
    re.IGNORECASE,
)
_NO_ARTICLE = ("citizenship",)
#: "I have a PhD in chemistry", "I hold a master's in economics": a degree one holds
_HAS_DEGREE = re.compile(
    r"^I(?: have| hold|'ve got| have got) (?:a|an) (?P<o>(?:PhD|Ph\.D\.|doctorate|master'?s|"
    r"bachelor'?s|MBA|MD|JD|law degree|medical degree|degree)(?: degree)?"
    r"(?: in (?-i:[a-zA-Z])[a-z]+(?: [a-z]+){0,3})?)$",
    re.IGNORECASE,
)


def milestone(clause: str, speaker: str, dated: bool) -> list[Match]:
    """What a clause sets for a day (``dated``: it named one) or the end of studies."""
    if GRADUATED.match(clause):
        return [Match(speaker, "works_as", "student", "works as", negated=True, confidence=0.6)]
    degree = _HAS_DEGREE.match(clause)
    if degree:
        what = degree["o"]
        article = "an" if what.upper().startswith(("MBA", "MD")) else "a"  # "an MBA"
        return [Match(speaker, "holds", f"{article} {what}", "holds", confidence=0.7)]
    got = GOT.match(clause)
    if got:
        what = got["o"]
        acronym = what.isupper()  # "CPA", "MBA": said by their letters ("an MBA")
        if not any(c.isupper() for c in what[1:]):  # "PhD", "CPA" keep their capitals
            what = what.lower()
        if what not in _NO_ARTICLE:
            vowel = what[0] in ("AEFHILMNORSX" if acronym else "aeiou")
            what = f"{'an' if vowel else 'a'} {what}"
        return [Match(speaker, "holds", what, "holds", confidence=0.7)]
    if not dated:
        return []
    appointment = _APPOINTMENT.match(clause)
    if appointment:
        what = appointment["o"].lower()
        if appointment["with"]:
            what += f" with {re.sub(r'^my ', 'the ', appointment['with'])}"  # the doctor
        if appointment["at"]:
            what += f" at {appointment['at']}"  # "a job interview at Google"
        article = "an" if what[0] in "aeiou" else "a"
        return [Match(speaker, "has_appointment", f"{article} {what}", "has", confidence=0.7)]
    journey = _JOURNEY.match(clause)
    if journey:
        booked = f"a {journey['o']} {journey['dir']} {journey['to']}"
        return [Match(speaker, "has_booking", booked, "has", confidence=0.7)]
    due = _DUE.match(clause)
    if due:
        return [Match(speaker, "due", due["o"].lower(), "is due", confidence=0.7)]
    expires = _EXPIRES.match(clause)
    if expires:
        what = expires["o"] if expires["o"].startswith("ID") else expires["o"].lower()
        return [Match(speaker, "expires", what, "expires", confidence=0.7)]
    return []
