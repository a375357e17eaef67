"""Search terms as an OR tsquery, with very common lexemes pruned while rarer ones suffice.

``plainto_tsquery`` ANDs its words, which finds almost nothing for a question; here every
word of every term is stemmed by PostgreSQL itself (``to_tsvector('english', word)``, so
stopwords drop out and both sides stem alike), and the lexemes are ORed in a tsquery whose
text quotes each lexeme: user text never reaches the tsquery syntax.

An OR query costs in proportion to the rows it matches (each is fetched and ranked). So,
from the planner's statistics of the ``tsv`` column (``pg_stats.most_common_elems``: the
fraction of rows holding each common lexeme, refreshed by ANALYZE), lexemes are kept from
the rarest up while the rows they are estimated to match stay within a budget; rarer
lexemes (absent from the statistics) are always kept, and so is at least one. ``ts_rank``
has no notion of term rarity, so this also keeps a frequent word from outvoting a rare
one. A search whose pruned query fills fewer than ``k`` places runs again unpruned.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from psycopg import AsyncConnection

__all__ = ["KeywordPlanner", "tsquery_text", "words_of"]

#: A word of a search term, as PostgreSQL's parser splits text (so "NEAR(fox, 2)" searches
#: for "near" OR "fox" OR "2", never for the syntax around them).
_WORD = re.compile(r"[^\W_]+")

_STEMS = (
    "SELECT w, tsvector_to_array(to_tsvector('english'::regconfig, w)) FROM unnest(%s::text[]) AS w"
)
_STATISTICS = (
    "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples "
    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname "
    "AND s.attname = 'tsv' WHERE c.oid = to_regclass('memstrata_lt_records')"
)


def words_of(terms: Iterable[str]) -> list[str]:
    """The distinct words of ``terms``, in order."""
    return list(dict.fromkeys(w for term in terms for w in _WORD.findall(term)))


def tsquery_text(lexemes: Iterable[str]) -> str:
    """``'a' | 'b' | ...``: each lexeme quoted as tsquery input wants (\\ and ' escaped)."""
    quoted = ("'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'" for lexeme in lexemes)
    return " | ".join(quoted)


@dataclass
class _Statistics:
    frequencies: dict[str, float] = field(default_factory=dict)
    rows: float = 0.0
    loaded_at: float = float("-inf")


class KeywordPlanner:
    """Stems words (cached: stemming never changes) and prunes common lexemes."""

    def __init__(
        self, budget_rows: int, *, statistics_ttl: float = 60.0, cache_size: int = 50_000
    ) -> None:
        self._budget = budget_rows
        self._ttl = statistics_ttl
        self._cache_size = cache_size
        self._stems: dict[str, tuple[str, ...]] = {}
        self._statistics = _Statistics()

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

    async def prune(self, conn: AsyncConnection[Any], lexemes: list[str]) -> list[str]:
        """The lexemes worth searching for (see the module's doc); keeps the given order."""
        if len(lexemes) < 2:
            return lexemes
        statistics = await self._current_statistics(conn)
        common = sorted(
            (statistics.frequencies[x], x) for x in lexemes if x in statistics.frequencies
        )
        if not common:
            return lexemes
        kept = {x for x in lexemes if x not in statistics.frequencies}
        estimated = 0.0
        for frequency, lexeme in common:
            estimated += frequency * statistics.rows
            if kept and estimated > self._budget:
                break
            kept.add(lexeme)
        return [x for x in lexemes if x in kept]

    async def _current_statistics(self, conn: AsyncConnection[Any]) -> _Statistics:
        now = time.monotonic()
        if now - self._statistics.loaded_at < self._ttl:
            return self._statistics
        cursor = await conn.execute(_STATISTICS)
        row = await cursor.fetchone()
        statistics = _Statistics(loaded_at=now)
        if row is not None and row[0] is not None and row[1] is not None:
            elements, frequencies, rows = row
            statistics.frequencies = dict(zip(elements, frequencies[: len(elements)], strict=True))
            statistics.rows = max(0.0, float(rows))
        self._statistics = statistics
        return statistics
