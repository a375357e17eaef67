"""What a coding or work assistant hears of the user's work and tools."""

from __future__ import annotations

import pytest

from tests.extraction.said import said


@pytest.mark.parametrize(
    ("text", "statements"),
    [
        ("Our API is written in Go.", ["ana's API is written in Go."]),
        ("Our backend is in Go and our frontend is in TypeScript.",
         ["ana's backend is written in Go.", "ana's frontend is written in TypeScript."]),
        ("Our repo is in GitHub.", []),  # "is in" names a language only
        ("Our app is in beta.", []),
        ("I prefer short answers with code examples please.",
         ["ana prefers short answers with code examples."]),
        ("Our repo uses pnpm.", ["ana's repo uses pnpm."]),
        ("Our main database is Postgres 15.", ["ana's database is Postgres 15."]),
        ("Our CI runs on GitHub Actions.", ["ana's CI runs on GitHub Actions."]),
        ("My project is called Atlas.", ["ana's project's name is Atlas."]),
        ("Our API is slow.", []),  # how it is, not what
        ("My project is a mess.", []),
        ("I'm on macOS Sonoma.", ["ana uses macOS Sonoma."]),
        ("I'm on Main Street.", []),
        ("My Python version is 3.11.", ["ana uses Python 3.11."]),
        ("My laptop is a ThinkPad X1.", ["ana uses a ThinkPad X1 laptop."]),
        ("My car is a Honda Civic.", ["ana drives a Honda Civic."]),
        ("I'm a beginner at Rust.", ["ana is a beginner at Rust."]),  # a skill, no job
        ("I'm a nurse at St. Mary's.", ["ana works as a nurse.", "ana works at St. Mary's."]),
    ],
)  # fmt: skip
def test_what_ones_work_is_made_of(text: str, statements: list[str]) -> None:
    assert said(text) == statements
