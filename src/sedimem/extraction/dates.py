"""Dates in a chat turn, resolved against the turn's own time.

Hand-written on purpose: the extractor must find *where* a date expression sits in a clause
(to cut it out of the object) and which way it points depends on the clause's tense ("I moved
in May" vs "she starts school in September"). ``dateparser`` parses a whole string, returns
nothing for "last May" or "a few years ago", and its first parse costs ~0.6 s;
``python-dateutil`` has no relative expressions. The expressions people use in chat are few,
and each is one line below.

A :class:`DateMention` keeps the span, the resolved day (the start of the period named: "last
year" is 1 January of the previous year) and its granularity. Seasons are the northern
meteorological ones (spring from 1 March, summer 1 June, autumn 1 September, winter 1
December): "last summer" is the last one that has ended, "this spring" the one under way or,
by the clause's tense, the latest or the coming one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal

__all__ = ["MONTH", "MONTHS", "DateMention", "Granularity", "find_dates"]

Granularity = Literal["day", "week", "month", "season", "year"]

#: Month names and their usual abbreviations, lower case, to the month's number.
MONTHS = {
    name: index
    for index, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}  # fmt: skip
_WEEKDAYS = {
    name: index
    for index, names in enumerate(
        [
            ("monday", "mon"), ("tuesday", "tue", "tues"), ("wednesday", "wed"),
            ("thursday", "thu", "thurs"), ("friday", "fri"), ("saturday", "sat"),
            ("sunday", "sun"),
        ]
    )
    for name in names
}  # fmt: skip
_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "a couple of": 2, "couple of": 2, "two": 2, "three": 3,
    "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "a few": 3, "few": 3, "several": 3,
}  # fmt: skip
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
#: The month each season starts in; each lasts three months.
_SEASONS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12}

#: A month's name or abbreviation (group ``month``), perhaps with a dot ("Sept.").
MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_WEEKDAY = r"(?P<weekday>" + "|".join(sorted(_WEEKDAYS, key=len, reverse=True)) + r")\.?"
_COUNT = r"(?P<count>\d{1,2}|" + "|".join(sorted(_NUMBERS, key=len, reverse=True)) + ")"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_SEASON = r"(?P<season>spring|summer|autumn|fall|winter)"

# Order matters: the longest, most specific forms first (a span is taken once).
_FORMS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(r"\b" + pattern + r"\b", re.IGNORECASE))
    for kind, pattern in [
        ("dmy", rf"(?:on )?(?:the )?{_DAY} (?:of )?{MONTH},? {_YEAR}"),
        ("mdy", rf"(?:on )?{MONTH} {_DAY},? {_YEAR}"),
        ("md", rf"(?:on )?{MONTH} {_DAY}(?!\d)"),
        ("my", rf"(?:in |since )?{MONTH},? {_YEAR}"),
        ("sy", rf"(?:(?:in|during|over) )?(?:the )?{_SEASON},? (?:of )?{_YEAR}"),
        ("ago", rf"{_COUNT} (?P<unit>day|week|month|year)s? (?:ago|back)"),
        ("rel", r"(?P<which>last|this|next|past) (?P<unit>week|month|year|weekend)"),
        ("wd", rf"(?P<which>last|this|next|on) {_WEEKDAY}"),
        ("season", rf"(?P<which>last|this|next|past) {_SEASON}"),
        ("mon", rf"(?P<which>last|this|next|in|since) {MONTH}(?! \d)"),
        ("year", rf"(?:in|since|back in) {_YEAR}"),
        (
            "word",
            r"(?P<word>yesterday|today|tonight|tomorrow|this morning|last night|"
            r"the other day)",
        ),
    ]
]


@dataclass(frozen=True, slots=True)
class DateMention:
    """A date expression at ``start:end`` of the text, resolved to the day it starts."""

    start: int
    end: int
    text: str
    when: datetime
    granularity: Granularity


def _at(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _month_start(year: int, month: int) -> date:
    return date(year, month, 1)


def _shift_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _safe_day(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _season(which: str, month: int, today: date, future: bool) -> date:
    """The first day of the season starting in ``month`` that ``which`` names (see the
    module docstring)."""
    starts = [date(today.year + shift, month, 1) for shift in (-2, -1, 0, 1)]
    begun = [d for d in starts if d <= today]  # the latest first
    if which in ("last", "past"):
        return max(d for d in begun if _shift_months(d, 3) <= today)
    if which == "next":
        return min(d for d in starts if d > today)
    current = begun[-1]
    if _shift_months(current, 3) > today or not future:
        return current  # under way, or (said in the past tense) the latest
    return min(d for d in starts if d > today)


def _resolve(
    kind: str, m: re.Match[str], today: date, future: bool
) -> tuple[date, Granularity] | None:
    groups = m.groupdict()
    if kind in ("dmy", "mdy"):
        day = _safe_day(int(groups["year"]), MONTHS[groups["month"].lower()], int(groups["day"]))
        return None if day is None else (day, "day")
    if kind == "md":
        month, number = MONTHS[groups["month"].lower()], int(groups["day"])
        year = today.year
        candidate = _safe_day(year, month, number)
        if candidate is None:
            return None
        if future and candidate < today:
            candidate = _safe_day(year + 1, month, number)
        elif not future and candidate > today:
            candidate = _safe_day(year - 1, month, number)
        return None if candidate is None else (candidate, "day")
    if kind == "my":
        return _month_start(int(groups["year"]), MONTHS[groups["month"].lower()]), "month"
    if kind == "year":
        return date(int(groups["year"]), 1, 1), "year"
    if kind == "sy":
        return date(int(groups["year"]), _SEASONS[groups["season"].lower()], 1), "season"
    if kind == "season":
        month = _SEASONS[groups["season"].lower()]
        return _season(groups["which"].lower(), month, today, future), "season"
    if kind == "ago":
        raw = groups["count"].lower()
        count = int(raw) if raw.isdigit() else _NUMBERS[raw]
        unit = groups["unit"].lower()
        if unit == "year":
            return date(today.year - count, 1, 1), "year"
        if unit == "month":
            return _shift_months(today, -count), "month"
        return today - timedelta(days=count * _UNIT_DAYS[unit]), "day" if unit == "day" else "week"
    if kind == "rel":
        which, unit = groups["which"].lower(), groups["unit"].lower()
        step = {"last": -1, "past": -1, "this": 0, "next": 1}[which]
        if unit == "year":
            return date(today.year + step, 1, 1), "year"
        if unit == "month":
            return _shift_months(today, step), "month"
        monday = today - timedelta(days=today.weekday())
        start = monday + timedelta(weeks=step)
        if unit == "weekend":
            return start + timedelta(days=5), "day"
        return start, "week"
    if kind == "wd":
        which, target = groups["which"].lower(), _WEEKDAYS[groups["weekday"].lower()]
        if which == "next" or (which in ("on", "this") and future):
            ahead = (target - today.weekday()) % 7 or 7
            return today + timedelta(days=ahead), "day"
        back = (today.weekday() - target) % 7 or 7
        return today - timedelta(days=back), "day"
    if kind == "mon":
        which, month = groups["which"].lower(), MONTHS[groups["month"].lower()]
        if which == "last":
            year = today.year if month < today.month else today.year - 1
        elif which == "next":
            year = today.year if month > today.month else today.year + 1
        elif which == "since" or not future:
            year = today.year if month <= today.month else today.year - 1
        else:
            year = today.year if month >= today.month else today.year + 1
        return _month_start(year, month), "month"
    word = groups["word"].lower()
    if word in ("yesterday", "last night"):
        return today - timedelta(days=1), "day"
    if word == "the other day":
        return today - timedelta(days=2), "week"
    if word == "tomorrow":
        return today + timedelta(days=1), "day"
    return today, "day"


def find_dates(text: str, now: datetime, *, future: bool = False) -> list[DateMention]:
    """Every date expression in ``text``, in order, resolved against ``now``.

    ``future`` says which way an undirected expression ("in May", "on Friday") points: the
    clause's tense decides it (the caller knows the tense).
    """
    today = now.astimezone(UTC).date()
    taken: list[tuple[int, int]] = []
    found: list[DateMention] = []
    for kind, pattern in _FORMS:
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            # "may" is also a verb: a bare month name needs a capital or a preposition
            if kind == "mon" and m["month"].lower() == "may" and not m["month"][0].isupper():
                continue
            resolved = _resolve(kind, m, today, future)
            if resolved is None:
                continue
            taken.append((m.start(), m.end()))
            found.append(DateMention(m.start(), m.end(), m.group(0), _at(resolved[0]), resolved[1]))
    return sorted(found, key=lambda d: d.start)
