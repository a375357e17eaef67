"""Time expressions in English text, as time ranges: what a query or a memory talks about.

``time_ranges(text, reference)`` finds the spans a text names, relative to ``reference``
(for a query: now; for a memory: the time it was recorded), as ``(start, end)`` epoch
seconds, end exclusive:

- absolute dates: "7 July, 2023", "July 7, 2023", "2023-07-07", "July 2023", "in 2022";
- a month or weekday alone: "in June" (the last June up to the reference), "on Friday"
  (the last Friday before it);
- relative days: "yesterday", "today", "tonight", "the day before yesterday";
- "last / this / next" week, weekend, month, year, or a month name ("last May");
- amounts: "three days ago", "2 weeks ago", "a few months ago", "a couple of years ago";
- offsets from a date: "the week before August 3, 2023", "two weeks before ...", "the day
  after ...".

It is deliberately small: a scan with a handful of regular expressions (tens of
microseconds per sentence), English only, and it never guesses from a bare number. A
general date library (``dateparser``) covers more languages and forms but loads locale data
and costs milliseconds per call, more than a recall may spend on it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

__all__ = ["TimeRange", "mentions_time", "time_ranges"]

#: (start, end) in epoch seconds, end exclusive.
TimeRange = tuple[float, float]

_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_WEEKDAYS = {
    name: i
    for i, name in enumerate(
        ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    )
}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple of": 2,
    "few": 3,
    "a couple of": 2,
    "a few": 3,
    "several": 3,
}
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}

_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_AMOUNT = r"(?P<n>\d+|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + r")"
_UNIT = r"(?P<unit>day|week|month|year)s?"

# Most specific first: a span taken by one pattern is not read again by a later one.
_ABSOLUTE = [
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"),
    re.compile(rf"\b{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"),
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<mnum>[01]\d)-(?P<day>[0-3]\d)\b"),
    re.compile(rf"\b{_MONTH},?\s+(?:of\s+)?{_YEAR}\b"),
    re.compile(rf"\b(?:in|of|during|since|from|by)\s+{_YEAR}\b"),
]
_OFFSET = re.compile(
    rf"\b(?:the\s+)?(?:(?P<n>\d+|{'|'.join(sorted(_NUMBERS, key=len, reverse=True))})\s+)?"
    r"(?P<unit>day|week|month|year|weekend)s?\s+(?P<dir>before|after|prior to)\s+$"
)
_AGO = re.compile(rf"\b{_AMOUNT}\s+{_UNIT}\s+ago\b")
_RELATIVE = re.compile(
    r"\b(?:(?P<dby>the\s+day\s+before\s+yesterday)|(?P<yesterday>yesterday)|"
    r"(?P<today>today|tonight|this\s+morning|this\s+evening)|(?P<tomorrow>tomorrow)|"
    rf"(?P<which>last|this|next|past)\s+(?:(?P<unit>week|weekend|month|year)|{_MONTH[:-3]}"
    r"|(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)))\b"
)
_BARE = re.compile(
    rf"\b(?:in|on|during|last|this|since)\s+(?:{_MONTH[:-3]}|"
    r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
)
_YEAR_ANYWHERE = re.compile(r"(?:19|20)\d\d")
_RELATIVE_WORDS = ("yesterday", "today", "tonight", "tomorrow", "last", "this", "next", "past")


def _amount(word: str | None) -> int:
    if not word:
        return 1
    return int(word) if word.isdigit() else _NUMBERS[word]


def _day(d: datetime) -> datetime:
    return d.replace(hour=0, minute=0, second=0, microsecond=0)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1, tzinfo=UTC)
    end = datetime(year + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return start, end


def _span(a: datetime, b: datetime) -> TimeRange:
    return (a.timestamp(), b.timestamp())


def _absolute(m: re.Match[str]) -> tuple[datetime, datetime] | None:
    parts = m.groupdict()
    year = int(parts["year"])
    month = _MONTHS[parts["month"]] if parts.get("month") else None
    if parts.get("mnum"):
        month = int(parts["mnum"])
    try:
        if parts.get("day") and month is not None:
            start = datetime(year, month, int(parts["day"]), tzinfo=UTC)
            return start, start + timedelta(days=1)
        if month is not None:
            return _month_span(year, month)
        return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    except ValueError:  # "31 February": no such day
        return None


def _offset(prefix: str, span: tuple[datetime, datetime]) -> tuple[datetime, datetime] | None:
    """ "two weeks before <date>": the span that far before (or after) the date."""
    m = _OFFSET.search(prefix)
    if m is None:
        return None
    unit = m["unit"]
    days = 2 if unit == "weekend" else _UNITS[unit] * _amount(m["n"])
    width = timedelta(days=2 if unit == "weekend" else _UNITS[unit])
    if m["dir"] == "after":
        start = span[0] + timedelta(days=days) - width
        return start, start + width + timedelta(days=1)
    end = span[0] - timedelta(days=days) + width
    return end - width - timedelta(days=1), end


def _last_month(reference: datetime, month: int, which: str | None) -> tuple[datetime, datetime]:
    year = reference.year
    if which == "next":
        year += month <= reference.month
    elif which != "this" and month > reference.month:
        year -= 1  # "in June", "last June": the latest June up to the reference
    elif which == "last" and month == reference.month:
        year -= 1
    return _month_span(year, month)


def _relative(m: re.Match[str], reference: datetime) -> tuple[datetime, datetime] | None:
    today = _day(reference)
    one = timedelta(days=1)
    if m["dby"]:
        return today - 2 * one, today - one
    if m["yesterday"]:
        return today - one, today
    if m["today"]:
        return today, today + one
    if m["tomorrow"]:
        return today + one, today + 2 * one
    which = "last" if m["which"] == "past" else m["which"]
    step = {"last": -1, "this": 0, "next": 1}[which]
    if m["month"]:
        if m["month"] == "may" and which == "this":
            return None  # "this may help": the verb, not the month
        return _last_month(reference, _MONTHS[m["month"]], which)
    if m["weekday"]:
        delta = (today.weekday() - _WEEKDAYS[m["weekday"]]) % 7 or 7
        day = today - timedelta(days=delta) + timedelta(days=7 * (step + 1) if step >= 0 else 0)
        return day, day + one
    unit = m["unit"]
    if unit in ("week", "weekend"):
        monday = today - timedelta(days=today.weekday()) + timedelta(days=7 * step)
        if unit == "weekend":
            return monday + 5 * one, monday + 7 * one
        return monday, monday + 7 * one
    if unit == "month":
        month = reference.month + step
        year = reference.year + (month - 1) // 12
        return _month_span(year, (month - 1) % 12 + 1)
    year = reference.year + step
    return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)


def _ago(m: re.Match[str], reference: datetime) -> tuple[datetime, datetime]:
    unit = _UNITS[m["unit"]]
    centre = _day(reference) - timedelta(days=unit * _amount(m["n"]))
    # "three weeks ago" is rarely exact: half a unit either side (at least a day)
    half = timedelta(days=max(1.0, unit / 2))
    return centre - half, centre + half + timedelta(days=1)


def time_ranges(text: str, reference: float) -> list[TimeRange]:
    """The time spans ``text`` names, relative to ``reference`` (epoch seconds)."""
    lowered = text.lower()
    if not _HINT.search(lowered):
        return []
    ref = datetime.fromtimestamp(reference, UTC)
    found: list[TimeRange] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= a or m.start() >= b for a, b in taken)

    # Guards by substring (a C scan each) spare the patterns that cannot match.
    absolute = _ABSOLUTE if _YEAR_ANYWHERE.search(lowered) else []
    for pattern in absolute:
        for m in pattern.finditer(lowered):
            if not free(m):
                continue
            span = _absolute(m)
            if span is None:
                continue
            taken.append((m.start(), m.end()))
            span = _offset(lowered[max(0, m.start() - 40) : m.start()], span) or span
            found.append(_span(*span))
    for m in _AGO.finditer(lowered) if "ago" in lowered else ():
        if free(m):
            taken.append((m.start(), m.end()))
            found.append(_span(*_ago(m, ref)))
    relative = any(word in lowered for word in _RELATIVE_WORDS)
    for m in _RELATIVE.finditer(lowered) if relative else ():
        if free(m):
            span = _relative(m, ref)
            if span is not None:
                taken.append((m.start(), m.end()))
                found.append(_span(*span))
    for m in _BARE.finditer(lowered):
        if not free(m):
            continue
        if m["month"] == "may" and m.group(0).startswith("this"):
            continue
        taken.append((m.start(), m.end()))
        if m["month"]:
            found.append(_span(*_last_month(ref, _MONTHS[m["month"]], None)))
        else:
            delta = (ref.weekday() - _WEEKDAYS[m["weekday"]]) % 7 or 7
            day = _day(ref) - timedelta(days=delta)
            found.append(_span(day, day + timedelta(days=1)))
    return found


# Every pattern above needs a digit or one of these words: one scan rules most texts out.
_HINT = re.compile(
    r"\d|yesterday|today|tonight|tomorrow|ago\b|week|month|year|"
    + "|".join(sorted(_MONTHS, key=len, reverse=True))
    + r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
)


def mentions_time(text: str) -> bool:
    """Whether ``text`` names a time at all (a date, a relative day, an amount ago...)."""
    return bool(time_ranges(text, 0.0))
