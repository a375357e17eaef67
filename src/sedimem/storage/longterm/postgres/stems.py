"""PostgreSQL's ``english`` lexemes of a word, guessed on the client, and the SQL that checks
the guesses inside the search statement.

Stemming a question's words on the server (``to_tsvector('english', word)``) cost a round
trip before every search with a word the process had not seen yet: four recalls in five for
never-repeated questions. The ``english`` configuration lowercases a word, drops it when it
is on the stopword list below (PostgreSQL's ``english.stop``), stems letters with Snowball's
English stemmer and keeps a word with digits as it is (``simple``). PyStemmer runs the same
stemmer, so the guess is the server's lexeme for all but a few words: of LoCoMo's 6,452
distinct words, 12 differ (PostgreSQL ships an older Snowball: "organization" gives
``organ`` there, ``organiz`` here; "evening" ``even``, not ``evening``).

A guess is never trusted: the search statement compares each guessed word's lexemes with
the server's own (:data:`CHECK_CTE`) and answers whether all agree; when one does not, the
store stems the words on the server and searches again, so results never depend on a guess.
A checked guess is cached like a server's stem.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import Stemmer  # type: ignore[import-not-found,unused-ignore]
from psycopg import sql

__all__ = ["CHECK_CTE", "Guesser", "tsvector_text"]

#: PostgreSQL's ``tsearch_data/english.stop`` (the same in every release since 8.3).
ENGLISH_STOPWORDS = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves what which
    who whom this that these those am is are was were be been being have has had having do
    does did doing a an the and but if or because as until while of at by for with about
    against between into through during before after above below to from up down in out on
    off over under again further then once here there when where why how all any both each
    few more most other some such no nor not only own same so than too very s t can will
    just don should now""".split()
)

#: ``checked``: one row, whether every word of the first array stems (``english``, as the
#: ``tsv`` column does) to exactly the lexemes of the same place in the second (tsvector
#: text). Its parameters: the words, then the guesses.
CHECK_CTE = sql.SQL(
    "checked AS MATERIALIZED (SELECT coalesce(bool_and("
    "strip(to_tsvector('english'::regconfig, w)) = g::tsvector), true) AS ok "
    "FROM unnest(%s::text[], %s::text[]) AS guessed(w, g))"
)


def tsvector_text(lexemes: Iterable[str]) -> str:
    """``'a' 'b'``: each lexeme quoted as tsvector input wants (\\ and ' escaped)."""
    return " ".join("'" + x.replace("\\", "\\\\").replace("'", "''") + "'" for x in lexemes)


class Guesser:
    """Guesses the ``english`` configuration's lexemes of single words (``[^\\W_]+``, as
    :func:`~.keywords.words_of` splits them). Not thread-safe (the stemmer is not)."""

    def __init__(self) -> None:
        # no cache of its own: the planner caches checked stems, and forgets them on erasure
        self._stemmer = Stemmer.Stemmer("english", 0)

    def lexemes(self, words: Sequence[str]) -> list[tuple[str, ...]]:
        """Each word's guessed lexemes (none for a stopword)."""
        lowered = [w.lower() for w in words]
        stems = self._stemmer.stemWords(lowered)
        guesses: list[tuple[str, ...]] = []
        for word, stem in zip(lowered, stems, strict=True):
            if any(c.isdigit() for c in word):
                guesses.append((word,))  # a number or letters with digits: as it is
            elif word in ENGLISH_STOPWORDS:
                guesses.append(())
            else:
                guesses.append((stem,))
        return guesses
