"""Search terms as OR tsqueries, grouped into tiers from the rarest lexemes to the commonest.

``plainto_tsquery`` ANDs its words, which finds almost nothing for a question; here every
word of every term is stemmed by PostgreSQL itself (``to_tsvector('english', word)``, so
stopwords drop out and both sides stem alike), and the lexemes are ORed in a tsquery whose
text quotes each lexeme: user text never reaches the tsquery syntax.

An OR query costs in proportion to the rows it matches (each is fetched from the heap and
ranked), and ``ts_rank`` has no notion of term rarity. So the lexemes are split into
*tiers* by the planner's statistics of the ``tsv`` column (``pg_stats.most_common_elems``:
the fraction of rows holding each common lexeme, refreshed by ANALYZE):

- tier 0 holds the rarest lexemes while the rows they are estimated to match stay within a
  budget, and within 2 % of the table (past a few percent the planner reads the whole
  table instead of the index); lexemes absent from the statistics are rare and always in
  it, and so is at least one lexeme. Its matches are all ranked.
- each next tier adds the next lexemes up to four times the previous budget; a tier is only
  searched while the tiers before it matched fewer than ``k`` rows, and then only a bounded
  sample of its matches fills the remaining places (see :mod:`.search`).

Without statistics (a table never analysed) every lexeme lands in tier 0, whose scan is
capped; the plan says so (the search then keeps the planner from choosing its indexes by
guesswork, see :mod:`.search`), and so is the caller, that it may run ANALYZE.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from psycopg import AsyncConnection

from sedimem.storage.longterm.postgres.stems import Guesser

__all__ = ["Guess", "KeywordPlan", "KeywordPlanner", "tsquery_text", "words_of"]

#: A word of a search term, as PostgreSQL's parser splits text (so "NEAR(fox, 2)" searches
#: for "near" OR "fox" OR "2", never for the syntax around them).
_WORD = re.compile(r"[^\W_]+")

#: Each tier's estimated rows may reach this many times the previous tier's.
_GROWTH = 4
#: At most this many tiers (the last one takes every lexeme left).
_MAX_TIERS = 4
#: Tier 0 is estimated to match at most this share of the table ...
_MAX_SHARE = 0.02
#: ... or this many rows, whichever is more.
_MIN_BUDGET = 100.0

_STEMS = (
    "SELECT w, tsvector_to_array(to_tsvector('english'::regconfig, w)) FROM unnest(%s::text[]) AS w"
)
# pg_class always has the row; pg_stats only once the table has been analysed with rows in it
_STATISTICS = (
    "SELECT s.attname IS NOT NULL, s.most_common_elems::text::text[], s.most_common_elem_freqs, "
    "c.reltuples "
    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "LEFT JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname "
    "AND s.attname = 'tsv' WHERE c.oid = to_regclass('sedimem_lt_records')"
)


def words_of(terms: Iterable[str]) -> list[str]:
    """The distinct words of ``terms``, in order."""
    return list(dict.fromkeys(w for term in terms for w in _WORD.findall(term)))


def tsquery_text(lexemes: Iterable[str]) -> str:
    """``'a' | 'b' | ...``: each lexeme quoted as tsquery input wants (\\ and ' escaped)."""
    quoted = ("'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'" for lexeme in lexemes)
    return " | ".join(quoted)


@dataclass(frozen=True, slots=True)
class KeywordPlan:
    """Lexemes in tiers, rarest first; ``analysed``: planned with the table's statistics."""

    tiers: list[list[str]]
    analysed: bool


@dataclass(frozen=True, slots=True)
class Guess:
    """The lexemes of some words: cached stems, and guesses for the ``words`` not seen yet
    (``guessed``, each word's lexemes), which the search statement checks (see :mod:`.stems`)."""

    lexemes: list[str]
    words: list[str]
    guessed: list[tuple[str, ...]]


@dataclass
class _Statistics:
    analysed: bool = False
    frequencies: dict[str, float] = field(default_factory=dict)
    rows: float = 0.0
    loaded_at: float = float("-inf")


class KeywordPlanner:
    """Stems words (cached: stemming never changes) and splits lexemes into tiers.

    ``on_missing_statistics`` is called when the planner has no statistics of the table
    (each time they are read: every ``statistics_ttl`` seconds).
    """

    def __init__(
        self,
        budget_rows: int,
        *,
        statistics_ttl: float = 60.0,
        cache_size: int = 50_000,
        on_missing_statistics: Callable[[], None] | None = None,
    ) -> None:
        self._budget = budget_rows
        self._ttl = statistics_ttl
        self._cache_size = cache_size
        self._on_missing = on_missing_statistics
        self._stems: dict[str, tuple[str, ...]] = {}
        self._statistics = _Statistics()
        self._guesser = Guesser()

    @property
    def budget(self) -> int:
        return self._budget

    async def lexemes(self, conn: AsyncConnection[Any], words: Sequence[str]) -> list[str]:
        """The distinct lexemes of ``words`` (stopwords give none)."""
        missing = [w for w in words if w not in self._stems]
        if missing:
            if len(self._stems) + len(missing) > self._cache_size:
                self._stems.clear()
            cursor = await conn.execute(_STEMS, [missing])
            for word, stems in await cursor.fetchall():
                self._stems[word] = tuple(stems)
        return list(dict.fromkeys(s for w in words for s in self._stems.get(w, ())))

    def guess(self, words: Sequence[str]) -> Guess:
        """The lexemes of ``words``: cached stems, guessed for the words not seen yet."""
        missing = [w for w in words if w not in self._stems]
        guessed = self._guesser.lexemes(missing)
        known = dict(zip(missing, guessed, strict=True))
        stems = (self._stems.get(w) or known.get(w, ()) for w in words)
        return Guess(list(dict.fromkeys(s for lexemes in stems for s in lexemes)), missing, guessed)

    def learn(self, guess: Guess) -> None:
        """Cache ``guess``'s stems: the server found them right."""
        if len(self._stems) + len(guess.words) > self._cache_size:
            self._stems.clear()
        self._stems.update(zip(guess.words, guess.guessed, strict=True))

    async def plan(self, conn: AsyncConnection[Any], lexemes: list[str]) -> KeywordPlan:
        """``lexemes`` in tiers, rarest first (see the module's doc); none is left out."""
        if not lexemes:
            return KeywordPlan([], analysed=True)
        statistics = await self._current_statistics(conn)
        return KeywordPlan(self._tiers(statistics, lexemes), statistics.analysed)

    async def analysed(self, conn: AsyncConnection[Any]) -> bool:
        """Whether the table has planner statistics (as last read: cached like the tiers')."""
        return (await self._current_statistics(conn)).analysed

    async def tiers(self, conn: AsyncConnection[Any], lexemes: list[str]) -> list[list[str]]:
        """The tiers of :meth:`plan`."""
        return (await self.plan(conn, lexemes)).tiers

    def _tiers(self, statistics: _Statistics, lexemes: list[str]) -> list[list[str]]:
        if len(lexemes) < 2:
            return [lexemes]
        frequencies = statistics.frequencies
        # absent from the statistics: rarer than any lexeme in them
        estimated = {x: frequencies.get(x, 0.0) * statistics.rows for x in lexemes}
        tiers: list[list[str]] = [[]]
        # (a share of a small table: past a few percent of the rows the planner scans the
        # whole table instead of the index, evaluating the tsquery on every row)
        budget = float(self._budget)
        if statistics.rows > 0:
            budget = min(budget, max(_MIN_BUDGET, _MAX_SHARE * statistics.rows))
        total = 0.0
        for lexeme in sorted(lexemes, key=lambda x: estimated[x]):
            total += estimated[lexeme]
            if tiers[-1] and total > budget and len(tiers) < _MAX_TIERS:
                tiers.append([])
                while total > budget:
                    budget *= _GROWTH
            tiers[-1].append(lexeme)
        return tiers

    def forget_words(self) -> None:
        """Drop the cached stems and statistics (erasure: no word of erased text stays)."""
        self._stems = {}
        self.forget_statistics()

    def forget_statistics(self) -> None:
        """Read the statistics again on the next search (after an ANALYZE)."""
        self._statistics = _Statistics()

    async def _current_statistics(self, conn: AsyncConnection[Any]) -> _Statistics:
        now = time.monotonic()
        if now - self._statistics.loaded_at < self._ttl:
            return self._statistics
        cursor = await conn.execute(_STATISTICS)
        row = await cursor.fetchone()
        statistics = _Statistics(loaded_at=now)
        if row is not None:
            analysed, elements, frequencies, rows = row
            # (no statistics also when the table was analysed while empty: its filters'
            # selectivity is then a guess as well, and ANALYZE of a few rows is cheap)
            statistics.analysed = bool(analysed)
            statistics.rows = max(0.0, float(rows))  # reltuples: -1 until first counted
            if elements is not None and frequencies is not None:
                statistics.frequencies = dict(
                    zip(elements, frequencies[: len(elements)], strict=True)
                )
        if not statistics.analysed and self._on_missing is not None:
            self._on_missing()
        self._statistics = statistics
        return statistics
