"""Facts from one chat turn: who it is about, when, and what it states.

:func:`extract_statements` reads a turn's text clause by clause (:mod:`.clauses`,
:mod:`.patterns`, :mod:`.profile`): first person ("I", "my", "we") is the ``speaker`` (see
:mod:`.subjects` for who that is); each fact is dated from the date expressions in its
clause (resolved against the turn's time; none: the turn's time). An assistant turn
(``role="assistant"``) has no speaker whose first person is filed: only the narrow records
of what the user did or decided ("I've booked your table") are read, about ``addressee``.

It returns :class:`Statement` values: a :class:`~sedimem.types.longterm.Fact` plus

- ``ends``: the clause ends a current fact ("I no longer eat meat", "I lost my job as a
  banker"): the fact's triple names what ends and ``valid_from`` when it ended; an object of
  ``None`` ends whatever value the predicate has. A caller closes the matching current fact
  (``valid_to`` = this ``valid_from``) instead of learning it;
- ``cardinality``: ``"one"`` when a new value of the predicate supersedes the old one,
  ``"many"`` when values accumulate (:mod:`.vocabulary`); the fact carries it too, so
  ``learn`` follows the vocabulary whatever the tenant's defaults say;
- ``sentence``: the sentence it was read from (what an evaluation checks).

The statement text is phrased from the triple (:func:`.vocabulary.phrase`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sedimem.errors import ValidationError
from sedimem.extraction.assistant import match_assistant
from sedimem.extraction.casual import as_written
from sedimem.extraction.changes import JOB_CHANGED
from sedimem.extraction.clauses import Clause, Match, split_clauses, stated_object
from sedimem.extraction.dates import DateMention, find_dates
from sedimem.extraction.family import pet_named
from sedimem.extraction.patterns import SUBJECTLESS, match_clause
from sedimem.extraction.vocabulary import (
    FAMILY,
    FAMILY_WORDS,
    Cardinality,
    cardinality_of,
    phrase,
)
from sedimem.scope import Scope
from sedimem.types.longterm import ABOUT, OTHER, SINCE, TOLD, Fact

__all__ = ["RELATION_PREDICATES", "Statement", "extract_statements"]

_FUTURE_HINTS = (
    "next ", "will ", "'ll ", "tomorrow", "starts", "begins", "start ", "am ", "'m ",
    "appointment", "interview", "exam", " due", "expire", " ends ", "runs out",  # the coming day
    "starting", "joining",  # "Starting at Klarna in May": the coming May
    "flight", "train to", " is on ",  # "My flight to Tokyo is on March 12th"
)  # fmt: skip
#: The predicates naming who someone is to the speaker ("spouse" of "my husband Arjun")
RELATION_PREDICATES = frozenset(FAMILY.values())
# "we're moving to Manchester in April": a plan, the coming April ("those photos are from
# May" is no plan: only a progressive points forward)
_PLANNED = re.compile(r"\b(?:are|'re) \w+ing\b", re.IGNORECASE)
_PERSONAL = re.compile(r"\b(?:I|I'\w+|my|My|we|We|our|Our|your|me|mine)\b")
_NAMED_WORD = re.compile(r"\b[A-Z][a-z]+\b")
_PRONOUN = re.compile(r"^(?P<p>[Ss]he|[Hh]e)(?='s |\s)")
# a relative named by kind only ("my husband", "my sister's party"), whom "he" or "she" may
# be; one followed by a name ("my husband Arjun") is known by the name
_HE = "husband|son|brother|father|dad|boyfriend|grandfather|grandpa|uncle|nephew|fiance"
_SHE = "wife|daughter|sister|mother|mom|mum|girlfriend|grandmother|grandma|aunt|niece|fiancee"
_UNNAMED = re.compile(rf"\b[Mm]y (?P<rel>{_HE}|{_SHE}|partner)\b(?!,? [A-Z][a-z]+\b)(?:'s)?")
_PET_NAMED = re.compile(r" named ([A-Z][a-z]+)$")
_GENDER = {**dict.fromkeys(_HE.split("|"), "he"), **dict.fromkeys(_SHE.split("|"), "she")}
# a clause without one of these words holds no date expression (find_dates is the costly
# part of reading a clause, so it runs only where a date can be)
_DATE_WORD = re.compile(
    r"\d|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|"
    r"yesterday|today|tonight|tomorrow|morning|night|ago|back|last|this|next|past|since|other day|"
    r"a few|several|couple|one|two|three|four|five|six|seven|eight|nine|ten|an? (?:day|week|"
    r"month|year))",
    re.IGNORECASE,
)
# "my birthday is June 5th": the date is the fact itself (cut out of the clause before the
# rules read it, so read here, from what is left and the date that was cut)
_BIRTHDAY = re.compile(
    rf"^(?:[Mm]y|[Oo]ur) (?:(?P<rel>{FAMILY_WORDS})(?: (?P<name>[A-Z][a-z]+))?'s )?"
    r"(?P<what>birthday|(?:wedding )?anniversary)(?:'s| is| falls)(?: on)?(?:,.*)?$"
)  # "my mom's birthday is June 5th", ", by the way"; "our anniversary is October 12"
_BORN = re.compile(r"^I was born$")  # its date cut: "I was born in 1990"
_SINCE = re.compile(r"\b(?:since|every|each)\b", re.IGNORECASE)
#: a turn longer than this is read only in its first part (a fact is stated early, and
#: extraction must stay cheap on a 32,000-character paste)
MAX_READ_CHARS = 8000


@dataclass(frozen=True, slots=True)
class Statement:
    """One fact a turn states, or ends (``ends``), with its predicate's cardinality."""

    fact: Fact
    ends: bool
    cardinality: Cardinality
    sentence: str = ""


# how near a date is: part of the date, cut with it ("Oslo around two years ago" is no place)
_APPROXIMATELY = re.compile(
    r"\b(?:about|around|almost|nearly|roughly|approximately|over|just|only|like|some|"
    r"more than|less than|at least)\s+$",
    re.IGNORECASE,
)


def _cut(clause: str, mentions: Sequence[DateMention]) -> str:
    for mention in sorted(mentions, key=lambda d: d.start, reverse=True):
        near = _APPROXIMATELY.search(clause, 0, mention.start)
        start = near.start() if near is not None else mention.start
        clause = clause[:start] + clause[mention.end :]
    return " ".join(clause.replace(" ,", ",").split()).strip(" ,")


def _birthday(speaker: str, mention: DateMention, said: re.Match[str]) -> list[Match]:
    """The day of a birthday, without a year: it comes back every year. Whose: the
    speaker's, or the relative's the clause names ("my sister Jo's", "my mom's")."""
    if mention.granularity != "day":
        return []  # "in March", "this year": not a day to remember
    day = f"{mention.when:%B} {mention.when.day}"
    whose = speaker
    if said["name"]:
        whose = said["name"]
    elif said["rel"]:
        whose = f"{speaker}'s {FAMILY[said['rel'].lower()]}"  # as any clause about "my mom"
    what = "birthday" if said["what"] == "birthday" else "anniversary"
    return [Match(whose, what, day, f"{what} is", confidence=0.7, dated=False)]


def _born(speaker: str, mention: DateMention) -> list[Match]:
    """ "I was born in 1990", "on March 3, 1990": the year (and the birthday, given a day)."""
    found = [Match(speaker, "born_in", str(mention.when.year), "was born in", dated=False)]
    if mention.granularity == "day":
        day = f"{mention.when:%B} {mention.when.day}"
        found.append(Match(speaker, "birthday", day, "birthday is", confidence=0.7, dated=False))
    return found


def _resolved(clause: str, who: str) -> str:
    """ "so he's pescatarian now" after "Arjun started eating fish again": "he" or "she"
    opening a clause is the one known person its sentence named before, or the one relative
    it spoke of by kind ("my husband, he's into golf"; "she" is no husband) (the caller
    knows there was one; none or two, and nobody is guessed)."""
    m = _PRONOUN.match(clause)
    if m is None:
        return clause
    kind = _GENDER.get(who.removeprefix("my "), m["p"].lower()) if who.startswith("my ") else ""
    if kind and kind != m["p"].lower():
        return clause  # "my wife ..., he's ...": someone else
    rest = clause[m.end() :]
    if rest.startswith("'s "):
        tail = rest[3:]
        return f"{who} {'has' if tail.startswith(('been ', 'got ')) else 'is'} {tail}"
    return who + rest


# "I was born in Brazil but grew up in Texas": the second clause is the speaker's too
_BUT = re.compile(r"(?:^|\s)but\s+$")
# ... unless it opens on a subject of its own ("..., but my favorite band is Rush")
_OWN_SUBJECT = re.compile(
    r"^(?:my|our|your|his|her|their|its|the|a|an|this|that|these|those|there|it|he|she|"
    r"they|we|you|some|no|not|so|then|now|also)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"^I(?:'m|'ve|'d)?\s")


def _after_but(clause: Clause, previous: str) -> str:
    """The clause's text with the speaker as its subject when it follows "but" after a
    clause of the speaker's (``previous``) and names none of its own ("... but grew up in
    Texas")."""
    text = clause.text
    if not (text[:1].islower() and _FIRST_PERSON.match(previous)):
        return text
    if _OWN_SUBJECT.match(text):
        return text
    return f"I {text}" if _BUT.search(clause.before) else text


def _one_person(text: str, named: set[str]) -> set[str]:
    """The one person ``text`` speaks of (a name known in the turn, or "my <relative>"),
    whom "he" or "she" opening the next sentence may be; none when it names two."""
    people = {w for w in _NAMED_WORD.findall(text) if w in named}
    for m in _UNNAMED.finditer(text):
        if m.group(0).endswith("'s"):
            return set()  # "my wife's sister is visiting": she may be either
        people.add(f"my {m['rel'].lower()}")
    return people if len(people) == 1 else set()


def _key(match: Match) -> tuple[str, str, str, bool]:
    return (
        " ".join(match.subject.lower().split()),
        match.predicate,
        " ".join((match.object or "").lower().split()),
        match.negated,
    )


def extract_statements(
    text: str,
    speaker: str | None,
    at: datetime,
    *,
    role: str = "user",
    addressee: str | None = None,
    scope: Scope | None = None,
    source_episode_ids: Sequence[str] = (),
    people: Iterable[str] = (),
) -> list[Statement]:
    """The facts ``text`` states at ``at`` (aware), in order, no duplicates.

    ``role="user"`` (or any speaking person): first person is ``speaker`` (without one,
    first-person clauses are skipped: nobody to file them under). ``role="assistant"``:
    only records about ``addressee`` (see the module docstring). Other roles: nothing.
    ``people``: the names of the speaker's relatives known before this turn (an earlier
    turn said "my husband Arjun"): a clause about one of them states a fact of theirs.
    """
    if at.tzinfo is None:
        raise ValidationError("at", "must carry a time zone", allowed="an aware datetime")
    assistant = role == "assistant"
    if role not in ("user", "assistant") or (assistant and not addressee):
        return []
    out: list[Statement] = []
    seen: set[tuple[str, str, str, bool]] = set()
    named: set[str] = set(people)
    job_changed = False  # "I changed jobs, I'm at Spotify now": the next clause's employer
    text = text[:MAX_READ_CHARS] if assistant else pet_named(as_written(text[:MAX_READ_CHARS]))
    sentence: object = None
    mentioned: set[str] = set()  # the known people the sentence named so far
    previous = ""  # the clause before, in the same sentence
    for clause in split_clauses(text, lists=not assistant):
        if clause.sentence is not sentence:
            sentence, mentioned, previous = clause.sentence, set(), ""
            if not assistant and _PRONOUN.match(clause.text):  # "my wife? She loves ..."
                mentioned = _one_person(clause.previous_sentence, named)
        said = _after_but(clause, previous)
        previous = said
        if len(mentioned) == 1 and not assistant:
            said = _resolved(said, next(iter(mentioned)))
        mentioned.update(w for w in _NAMED_WORD.findall(said) if w in named)
        mentioned.update(f"my {m['rel'].lower()}" for m in _UNNAMED.finditer(said))
        # only a clause in first person (or, in an assistant turn, about "your" things), or
        # about someone named earlier in the turn, can state a fact: the rest costs nothing
        personal = _PERSONAL.search(said) or any(opening.match(said) for opening in SUBJECTLESS)
        if not (personal or (named and _NAMED_WORD.search(said))):
            continue
        lowered = said.lower()
        future = any(h in lowered for h in _FUTURE_HINTS) or _PLANNED.search(said) is not None
        dated = _DATE_WORD.search(said) is not None
        mentions = find_dates(said, at, future=future) if dated else []
        bare = _cut(said, mentions)
        if not bare:
            continue
        if assistant:
            assert addressee is not None
            matches = match_assistant(bare, addressee)
        elif len(mentions) == 1 and (birthday := _BIRTHDAY.match(bare)):
            matches = _birthday(speaker or "\x00", mentions[0], birthday)
        elif len(mentions) == 1 and _BORN.match(bare):
            matches = _born(speaker or "\x00", mentions[0])
        else:
            matches = match_clause(
                bare,
                speaker or "\x00",
                named=frozenset(named),
                dated=bool(mentions),
                job_changed=job_changed,
            )
            # "I changed jobs", "I no longer work at Google": "I'm at Meta now" is the new one
            job_changed = (
                job_changed
                or JOB_CHANGED.match(bare) is not None
                or any(m.predicate == "works_at" and m.negated for m in matches)
            )
        # "I bike to work today", "I wake up at 6am tomorrow": a day's plan, no habit ("since
        # January", "every Sunday" are no single day)
        one_day = any(d.granularity == "day" for d in mentions) and not _SINCE.search(said)
        for match in matches:
            if "\x00" in match.subject or "\x00" in (match.object or ""):
                continue
            if one_day and match.predicate == "habit" and not match.negated:
                continue
            if match.object is not None:
                obj = stated_object(match.object)
                if obj is None:
                    continue
                if obj != match.object:
                    match = replace(match, object=obj)
            if match.predicate in RELATION_PREDICATES and match.object:
                named.add(match.object)
                mentioned.add(match.object)  # "my husband Arjun is a chef, he's ..."
                # "my sister's name is Clara and she's 29": one person, now known by name
                mentioned -= {f"my {w}" for w, rel in FAMILY.items() if rel == match.predicate}
            elif match.predicate == "has_pet" and (pet := _PET_NAMED.search(match.object or "")):
                named.add(pet[1])  # "my dog Max ..., he's a 7 year old lab": Max is 7
                mentioned.add(pet[1])
            valid_from = min((d.when for d in mentions), default=at) if match.dated else at
            key = _key(match)
            if key in seen:
                continue
            seen.add(key)
            cardinality = cardinality_of(match.predicate)
            fact = Fact(
                statement=phrase(match.subject, match.predicate, match.object, ended=match.negated),
                subject=match.subject,
                predicate=match.predicate,
                object=match.object,
                confidence=match.confidence,
                valid_from=valid_from,
                scope=scope or Scope(),
                source_episode_ids=list(source_episode_ids),
                metadata=(
                    {"ends": True}
                    if match.negated
                    else {}
                    if match.dated and mentions
                    else {SINCE: TOLD}
                )
                # a fact of someone the speaker named ("Raj works at HubSpot") is theirs
                | ({ABOUT: OTHER} if match.subject in named and match.subject != speaker else {}),
                cardinality=cardinality,
            )
            out.append(Statement(fact, match.negated, cardinality, clause.sentence.text))
    return out
