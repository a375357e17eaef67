"""PostgreSQL's english lexemes guessed on the client: checked against the server's own."""

from __future__ import annotations

import psycopg
import pytest
from psycopg import sql

from sedimem.storage.longterm.postgres.stems import CHECK_CTE, Guesser, tsvector_text

pytestmark = pytest.mark.postgres

# stopwords, plurals and tenses, capitals, numbers, letters with digits, accents, and the
# pieces an apostrophe leaves ("Caroline's" -> "Caroline", "s")
WORDS = [
    "What", "did", "Caroline", "s", "research", "Running", "ran", "generously", "2023",
    "3pm", "Melanie", "café", "Zürich", "painted", "sunsets", "LGBTQ", "adoption",
    "agencies", "t", "don", "studies", "happily", "x",
]  # fmt: skip


def server_lexemes(url: str, words: list[str]) -> list[tuple[str, ...]]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT tsvector_to_array(to_tsvector('english'::regconfig, w)) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS u(w, n) ORDER BY n",
            [words],
        ).fetchall()
    return [tuple(row[0]) for row in rows]


def checked(url: str, words: list[str], guesses: list[tuple[str, ...]]) -> bool:
    statement = sql.SQL("WITH {} SELECT ok FROM checked").format(CHECK_CTE)
    with psycopg.connect(url) as conn:
        row = conn.execute(statement, [words, [tsvector_text(g) for g in guesses]]).fetchone()
    assert row is not None
    return bool(row[0])


def test_guesses_are_the_servers_lexemes(postgres_url: str) -> None:
    assert Guesser().lexemes(WORDS) == server_lexemes(postgres_url, WORDS)


def test_the_check_agrees_with_right_guesses_only(postgres_url: str) -> None:
    guesses = Guesser().lexemes(WORDS)
    assert checked(postgres_url, WORDS, guesses)
    # PostgreSQL's older Snowball: "organization" is "organ" there, "organiz" here
    assert not checked(
        postgres_url, [*WORDS, "organization"], Guesser().lexemes([*WORDS, "organization"])
    )
    assert checked(postgres_url, ["organization"], [("organ",)])
    assert not checked(postgres_url, ["the"], [("the",)])  # a stopword has no lexeme
    assert checked(postgres_url, ["the"], [()])


def test_lexemes_are_quoted_as_tsvector_input(postgres_url: str) -> None:
    lexemes = ["it's", "back\\slash", "two words", "a:1"]
    with psycopg.connect(postgres_url) as conn:
        row = conn.execute(
            "SELECT tsvector_to_array(%s::tsvector)", [tsvector_text(lexemes)]
        ).fetchone()
    assert row is not None
    assert sorted(row[0]) == sorted(lexemes)
