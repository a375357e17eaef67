"""What a question asks, read once per ``assemble``: its words, whom it names, what kind.

The words decide which memories match (:mod:`sedimem.assembly.relevance`); the kind
decides who is heard first and how items are ordered:

- a question about **advice** (what was recommended, suggested, said by the assistant)
  prefers the assistant's turns; any other question prefers what people said themselves;
- a question that **names a speaker** ("What did Caroline research?") prefers that
  speaker's own turns over others' turns that merely address them;
- a question about **the asker as a whole** ("What do you know about me?") is answered by
  what is known of them: more of their facts are searched, and each is shown;
- a question about **time or order** ("when", "how long ago", "first", "before") gets
  its dated items in time order;
- a question that **names a date** with its year ("on 16 June, 2023", "in August 2023",
  "2023-06-16") prefers what happened then: episodes of that day or month are searched
  for as well, and rank higher. So does one that names a time relative to now
  ("yesterday", "last week", "two days ago", "on Friday", "last May", "on June 16"), when
  the assembly knows now: the extractor's date reading (:mod:`sedimem.extraction.dates`)
  resolves it; a whole year ("last year", "in 2023") is too wide to prefer anything.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sedimem.extraction.dates import MONTH, MONTHS, Granularity, find_dates
from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.retrieval.terms import STOPWORDS

__all__ = ["Question", "read_question"]

_WORD = re.compile(r"\w+", re.UNICODE)
_ADVICE = re.compile(
    r"\b(?:recommend\w*|suggest\w*|advi[sc]e\w*|tip|tips|you\s+(?:said|told|mentioned|"
    r"gave|proposed|provided|listed|shared|described|explained|wrote|named|offered)|your\s+"
    r"(?:answer|response|reply|list|explanation)|assistant|did\s+you)\b",
    re.IGNORECASE,
)
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
#: A date the question names with its year: a day ("16 June, 2023", "June 16th 2023",
#: "2023-06-16") or a month ("August 2023"). A date without a year is not read.
_DATES = [
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{MONTH},?\s*{_YEAR}\b", re.IGNORECASE),
    re.compile(rf"\b{MONTH}\s+{_DAY},?\s*{_YEAR}\b", re.IGNORECASE),
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b{MONTH},?\s+{_YEAR}\b", re.IGNORECASE),
]
#: How far a named day or month reaches beyond its UTC bounds: what was said that day in
#: any time zone.
_SLACK = timedelta(hours=14)
_ABOUT_ASKER = re.compile(
    r"\b(?:about\s+(?:me|myself)|who\s+am\s+i|describe\s+me|know\s+me)\b", re.IGNORECASE
)
_TIME = re.compile(
    r"^\s*when\b|\bwhat\s+(?:time|date|day|year|month)\b|\bhow\s+long\b|\bwhich\s+"
    r"(?:day|year|month|date)\b|\b(?:first|last|before|after|earlier|later|latest|"
    r"recently|order|since|until|ago)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Question:
    """A question as the assembly reads it."""

    text: str
    words: frozenset[str]
    """Its lower-case content words (stop words left out)."""
    stems: tuple[str, ...]
    """Its content words, stemmed as keyword search stems them, in order."""
    advice: bool
    """Asks what the assistant recommended or said."""
    temporal: bool
    """Asks when, how long ago, or in which order."""
    dates: tuple[tuple[datetime, datetime], ...] = ()
    """The days and months it names, as ``[start, end)`` (a few hours wider, for zones)."""
    about_asker: bool = False
    """Asks about the asker as a whole ("What do you know about me?", "Who am I?")."""

    def names_the_time_of(self, moment: datetime) -> bool:
        """Whether ``moment`` falls on a day or in a month the question names."""
        return any(start <= moment < end for start, end in self.dates)

    def named(self, speaker: str) -> bool:
        """Whether the question names ``speaker`` (by any word of the name)."""
        return any(part in self.words for part in _WORD.findall(speaker.lower()))


#: The stop list less the words that say what is asked: "What do I own?" asks for what the
#: asker owns (``owns`` facts), though keyword search drops "own" as it drops "my own".
_STOPWORDS = STOPWORDS - {"own"}


def read_question(text: str, analyzer: Analyzer, now: datetime | None = None) -> Question:
    """Read ``text`` (already checked as a query); ``now`` (aware): what its relative
    dates count from (``None``: only dates with their year are read)."""
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOPWORDS]
    stems = tuple(dict.fromkeys(s for w in words for s in analyzer.terms(w)))
    return Question(
        text=text,
        words=frozenset(words),
        stems=stems,
        advice=_ADVICE.search(text) is not None,
        temporal=_TIME.search(text) is not None,
        dates=_named_dates(text) if now is None else _dates(text, now),
        about_asker=_ABOUT_ASKER.search(text) is not None,
    )


def _dates(text: str, now: datetime) -> tuple[tuple[datetime, datetime], ...]:
    """The dates ``text`` names with their year, then those it names relative to ``now``
    (each once, whole years left out)."""
    found = dict.fromkeys(_named_dates(text))
    for mention in find_dates(text, now):
        if mention.granularity != "year":
            found.setdefault(_span(mention.when, mention.granularity))
    return tuple(found)


def _span(start: datetime, granularity: Granularity) -> tuple[datetime, datetime]:
    """The day, week, month or season (not a year) that opens at ``start``, widened by
    :data:`_SLACK` on both sides."""
    if granularity == "day":
        end = start + timedelta(days=1)
    elif granularity == "week":
        end = start + timedelta(days=7)
    else:  # a month, or a season of three, from the first of its month
        end = start
        for _ in range(3 if granularity == "season" else 1):
            end = (end + timedelta(days=32)).replace(day=1)
    return start - _SLACK, end + _SLACK


def _named_dates(text: str) -> tuple[tuple[datetime, datetime], ...]:
    """The days and months ``text`` names with their year (impossible dates left out)."""
    found: dict[tuple[datetime, datetime], None] = {}
    taken: list[range] = []  # a day's match holds a month's: "16 June, 2023" is not June
    for pattern in _DATES:
        for m in pattern.finditer(text):
            if any(m.start() in span for span in taken):
                continue
            month = m["month"].lower().rstrip(".")
            number = int(month) if month.isdigit() else MONTHS[month]
            day = "day" in pattern.groupindex
            try:
                start = datetime(int(m["year"]), number, int(m["day"]) if day else 1, tzinfo=UTC)
            except ValueError:  # "31 June", month 13
                continue
            taken.append(range(m.start(), m.end()))
            found[_span(start, "day" if day else "month")] = None
    return tuple(found)
