"""What one turn files: the statements it yields, the helper the extraction tests share."""

from __future__ import annotations

from datetime import UTC, datetime

from sedimem.extraction import extract_statements

#: When every turn of these tests is said
AT = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


def said(text: str, role: str = "user", speaker: str = "ana") -> list[str]:
    """The statements ``text`` files, said by ``speaker`` (``role="user"``) or to them."""
    return [
        s.fact.statement
        for s in extract_statements(text, speaker, AT, role=role, addressee=speaker)
    ]


def user_turn(content: str, at: datetime) -> dict[str, object]:
    """A user's chat turn as ``Memory.ingest`` takes it."""
    return {"role": "user", "content": content, "timestamp": at}
