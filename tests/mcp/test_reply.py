"""The text answers of results the tool tests do not reach through a real call."""

from __future__ import annotations

from sedimem.mcp.tools.conversation import ingest_text
from sedimem.mcp.tools.remember import _note_text
from sedimem.types.conversation import IngestResult, ModelUsage
from sedimem.types.longterm import Fact


def test_an_ingest_with_conflicts_usage_and_a_failure_says_so() -> None:
    conflict = Fact(statement="Ana likes tea", subject="Ana", predicate="likes", object="tea")
    result = IngestResult(
        status="failed",
        stored=["e1"],
        superseded=["f0"],
        possible_conflicts=[conflict],
        usage=ModelUsage(requests=2, prompt_tokens=120, completion_tokens=30, invalid_replies=2),
        error="the reply was not JSON",
    )
    assert ingest_text(result).splitlines() == [
        "stored 1 turns, 0 already stored",
        "facts superseded: f0",
        f"possible conflicts (both kept): {conflict.id}",
        "model: 2 requests, 120+30 tokens",
        "fact extraction failed (the turns are stored): the reply was not JSON",
    ]


def test_a_note_that_replaced_a_value_or_failed_extraction_says_so() -> None:
    result = IngestResult(stored=["e1"], superseded=["f0"], error="timed out")
    assert _note_text(result, {}).splitlines() == [
        "stored note episode e1",
        "replaced (kept as history): f0",
        "fact extraction failed (the note is stored): timed out",
    ]
