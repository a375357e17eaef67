"""Reading a question: its words, whom it names, whether it asks for advice or about time."""

from datetime import UTC, datetime, timedelta

import pytest

from sedimem.assembly.question import read_question
from sedimem.retrieval.index.analyzer import Analyzer


@pytest.fixture
def analyzer() -> Analyzer:
    return Analyzer()


def test_content_words_and_stems(analyzer: Analyzer) -> None:
    q = read_question("What did Caroline research about adoption agencies?", analyzer)
    assert q.words == {"caroline", "research", "adoption", "agencies"}
    assert "agenc" in q.stems  # stemmed as keyword search stems them
    assert q.named("Caroline")
    assert q.named("Caroline Smith")  # any word of a speaker's name
    assert not q.named("Melanie")


@pytest.mark.parametrize(
    ("text", "advice"),
    [
        ("What did you recommend for my knee?", True),
        ("Which hotel was suggested for Oslo?", True),
        ("Any tips on sourdough?", True),
        ("Where does the user live now?", False),
        ("What is my dog's name?", False),
        ("Which restaurant did you list first?", True),
        ("What was the second step of your answer?", True),
        ("Remind me of the hotel you shared for Lisbon", True),
        ("What did I share with my sister?", False),
    ],
)
def test_advice(analyzer: Analyzer, text: str, advice: bool) -> None:
    assert read_question(text, analyzer).advice is advice


@pytest.mark.parametrize(
    ("text", "temporal"),
    [
        ("When did Ana move to Hamburg?", True),
        ("How long ago did I start climbing?", True),
        ("Which did I visit first, Rome or Oslo?", True),
        ("What did I do before the wedding?", True),
        ("What is my dog's name?", False),
    ],
)
def test_time(analyzer: Analyzer, text: str, temporal: bool) -> None:
    assert read_question(text, analyzer).temporal is temporal


@pytest.mark.parametrize(
    ("text", "about"),
    [
        ("What do you know about me?", True),
        ("Who am I?", True),
        ("Tell me about myself.", True),
        ("What do you know about Rome?", False),
        ("Where do I live?", False),
    ],
)
def test_about_the_asker_as_a_whole(analyzer: Analyzer, text: str, about: bool) -> None:
    assert read_question(text, analyzer).about_asker is about


def test_a_question_of_no_content_word(analyzer: Analyzer) -> None:
    for text in ("?", "what is it?", "!!"):
        q = read_question(text, analyzer)
        assert q.stems == ()
        assert not q.named("Ana")


def _day(year: int, month: int, day: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, day, tzinfo=UTC)
    return start, start + timedelta(days=1)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("What did Tim say about his injury on 16 November, 2023?", [_day(2023, 11, 16)]),
        ("Where was the picture shared on December 1,2023 taken?", [_day(2023, 12, 1)]),
        ("What book did I finish on 8th December, 2023?", [_day(2023, 12, 8)]),
        ("What happened on 2023-06-16?", [_day(2023, 6, 16)]),
        ("What did I learn on the 3rd of Sept. 2024?", [_day(2024, 9, 3)]),
        (
            "What did I play in December 2023 and in Feb 2024?",
            [
                (datetime(2023, 12, 1, tzinfo=UTC), datetime(2024, 1, 1, tzinfo=UTC)),
                (datetime(2024, 2, 1, tzinfo=UTC), datetime(2024, 3, 1, tzinfo=UTC)),
            ],
        ),
        # no year, no date; an impossible day is read as its month
        ("What did I say on 16 June?", []),
        ("You may 2 things", []),
        (
            "What about 31 June 2023?",
            [(datetime(2023, 6, 1, tzinfo=UTC), datetime(2023, 7, 1, tzinfo=UTC))],
        ),
    ],
)
def test_dates_it_names(
    analyzer: Analyzer, text: str, named: list[tuple[datetime, datetime]]
) -> None:
    q = read_question(text, analyzer)
    slack = timedelta(hours=14)  # what was said that day in any time zone
    assert list(q.dates) == [(start - slack, end + slack) for start, end in named]
    for start, end in named:
        assert q.names_the_time_of(start + timedelta(hours=12))
        assert q.names_the_time_of(end + timedelta(hours=13))
        assert not q.names_the_time_of(end + timedelta(hours=15))


NOW = datetime(2025, 5, 14, 12, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("What did I say yesterday?", [_day(2025, 5, 13)]),
        ("What did I eat on Friday?", [_day(2025, 5, 9)]),
        ("What did I say on June 16?", [_day(2024, 6, 16)]),  # the last one that has been
        ("What happened two days ago?", [_day(2025, 5, 12)]),
        (
            "What did we talk about last week?",
            [(datetime(2025, 5, 5, tzinfo=UTC), datetime(2025, 5, 12, tzinfo=UTC))],
        ),
        (
            "What did I buy last May?",
            [(datetime(2024, 5, 1, tzinfo=UTC), datetime(2024, 6, 1, tzinfo=UTC))],
        ),
        ("What did I say on 16 June, 2023 and yesterday?", [_day(2023, 6, 16), _day(2025, 5, 13)]),
        # a whole year prefers nothing; no date, no dates
        ("What did I do last year?", []),
        ("What did I do in 2023?", []),
        ("Who is Rex?", []),
    ],
)
def test_dates_it_names_relative_to_now(
    analyzer: Analyzer, text: str, named: list[tuple[datetime, datetime]]
) -> None:
    slack = timedelta(hours=14)
    assert list(read_question(text, analyzer, NOW).dates) == [
        (start - slack, end + slack) for start, end in named
    ]
    # without now, only the dates named with their year
    assert list(read_question(text, analyzer).dates) == [
        (start - slack, end + slack) for start, end in named if start.year == 2023
    ]
