"""Text analysis: the in-memory index and the FTS5 table see the same tokens."""

from __future__ import annotations

from sedimem.retrieval.index.analyzer import Analyzer
from sedimem.storage.longterm.sqlite.fts import fold_tokens, fts_or_query


def test_documents_and_queries_are_analysed_alike() -> None:
    analyzer = Analyzer()
    assert fold_tokens("Café, NAÏVE snake_case 42") == ["cafe", "naive", "snake", "case", "42"]
    assert analyzer.terms("Running runs") == ["run", "run"]
    assert analyzer.query_terms(["Running", "runs", "", "*"]) == ["run"]
    assert fts_or_query(['"fox" AND', "NEAR(x"]) == '"fox" OR "and" OR "near" OR "x"'
    assert fts_or_query(["*", ""]) is None
