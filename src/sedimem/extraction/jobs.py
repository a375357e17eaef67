"""What a sentence about one's job files: the occupation (``works_as``), the employer
(``works_at``) and where it is (``lives_in``), each when given and not vague; and what
looks like a job and is not ("I'm her main caregiver", "I'm seeing a therapist", "I'm a
dog mom")."""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, bad_object

__all__ = ["job_facts"]

_NO_EMPLOYER = re.compile(r"^(?:the|this|that|my) (?:field|industry|business|sector|area)$")
_WHOSE = re.compile(r"^(?:her|his|their|my|our|your|its)\b", re.IGNORECASE)
# "seeing a therapist", "working with a recruiter": a doing, not a job ("nursing assistant"
# is one)
_DOING = re.compile(r"^\w+ing (?:a|an|the|my|some|with|for|on|at|to|in)\b", re.IGNORECASE)
# "a dog mom", "a soccer dad": who one is, no job
_KIND_OF_PARENT = re.compile(r"^(?:\w+ ){1,2}(?:mom|dad|mum|mother|father|parent)$", re.IGNORECASE)
_SCHOOL_YEAR = re.compile(r"^(?:freshman|sophomore|junior|senior)(?: student)?$", re.I)
# "I've been a fan for years", "I'm a regular there": how one stands to a thing, no job
_NO_JOB = re.compile(
    r"^(?:\w+ )?(?:fan|fanatic|member|customer|client|patient|believer|regular)$", re.I
)


def job_facts(
    subject: str,
    occupation: str | None,
    org: str | None,
    place: str | None = None,
    *,
    confidence: float = 0.8,
) -> list[Match]:
    """What one's job says: the occupation (``works_as``), the employer (``works_at``) and
    where it is (``lives_in``, less sure), each when given and not vague."""
    out: list[Match] = []
    if occupation:
        occupation = re.sub(r"^(?:an?|the)\s+", "", occupation.strip(), flags=re.I)
        # "a bit of an eccentric hair stylist": the hedge is no part of the job
        occupation = re.sub(r"^(?:bit|kind|sort) of an?\s+", "", occupation, flags=re.I)
        # "I'm her main caregiver", "I'm seeing a therapist for my depression": whose it
        # is, or a doing, not a job: nothing of the clause is a job fact
        if _WHOSE.match(occupation) or _DOING.match(occupation) or _NO_JOB.match(occupation):
            return []
        if _SCHOOL_YEAR.match(occupation):  # "a sophomore at NYU": a student, no job
            school = [Match.of(subject, "attends", org.strip(), 0.7)] if org else []
            return [Match.of(subject, "status", f"a {occupation.lower()}", 0.7), *school]
        if _KIND_OF_PARENT.match(occupation) and not org:
            return [Match.of(subject, "status", f"a {occupation}", 0.6)]
        if not bad_object(occupation):
            out.append(Match.of(subject, "works_as", occupation, confidence))
    if org:  # "at a coffee shop while I finish school": the employer ends before "while"
        org = re.split(r"\s+(?:while|because|since|until|when|so)\b", org, maxsplit=1)[0]
    if org and not bad_object(org) and not _NO_EMPLOYER.match(org):
        out.append(Match.of(subject, "works_at", org.strip(), confidence))
    if place:
        out.append(Match.of(subject, "lives_in", place.strip(), 0.6))
    return out
