"""Time expressions to time spans: absolute, relative to a reference, offsets from a date."""

from datetime import UTC, datetime

import pytest

from sedimem.retrieval.temporal import mentions_time, time_ranges

# Friday 11 August 2023, 15:00 UTC
REF = datetime(2023, 8, 11, 15, tzinfo=UTC).timestamp()


def days(text: str, reference: float = REF) -> list[tuple[str, str]]:
    """Each span as (first day, day after the last), ISO dates."""
    return [
        (
            datetime.fromtimestamp(a, UTC).date().isoformat(),
            datetime.fromtimestamp(b, UTC).date().isoformat(),
        )
        for a, b in time_ranges(text, reference)
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on 3 June, 2023", [("2023-06-03", "2023-06-04")]),
        ("on June 3rd, 2023", [("2023-06-03", "2023-06-04")]),
        ("logged 2023-07-07", [("2023-07-07", "2023-07-08")]),
        ("in July 2023", [("2023-07-01", "2023-08-01")]),
        ("back in 2022", [("2022-01-01", "2023-01-01")]),
        ("in December 2023", [("2023-12-01", "2024-01-01")]),
        ("what did she do last May", [("2023-05-01", "2023-06-01")]),
        ("camping in June", [("2023-06-01", "2023-07-01")]),
        ("in September", [("2022-09-01", "2022-10-01")]),  # the last September before
        ("next month", [("2023-09-01", "2023-10-01")]),
        ("last year", [("2022-01-01", "2023-01-01")]),
        ("I went there yesterday", [("2023-08-10", "2023-08-11")]),
        ("the day before yesterday", [("2023-08-09", "2023-08-10")]),
        ("tonight", [("2023-08-11", "2023-08-12")]),
        ("last weekend", [("2023-08-05", "2023-08-07")]),
        ("last week", [("2023-07-31", "2023-08-07")]),
        ("last Friday", [("2023-08-04", "2023-08-05")]),
        ("three weeks ago", [("2023-07-17", "2023-07-25")]),
        ("a few days ago", [("2023-08-07", "2023-08-10")]),
        ("the week before August 3, 2023", [("2023-07-26", "2023-08-03")]),
        ("two weeks before 11 August, 2023", [("2023-07-27", "2023-08-04")]),
        ("the day after 3 June, 2023", [("2023-06-03", "2023-06-05")]),
    ],
)
def test_spans(text: str, expected: list[tuple[str, str]]) -> None:
    assert days(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I may go there",
        "this may help",
        "room 42 is free",
        "my weekly report",
    ],
)
def test_no_time(text: str) -> None:
    assert time_ranges(text, REF) == []


def test_an_impossible_day_falls_back_to_its_month() -> None:
    assert days("31 February, 2023") == [("2023-02-01", "2023-03-01")]


def test_several_spans_and_mentions() -> None:
    assert len(time_ranges("in 2021, then again on 5 May, 2023", REF)) == 2
    assert mentions_time("we met two years ago")
    assert not mentions_time("we met at the park")
