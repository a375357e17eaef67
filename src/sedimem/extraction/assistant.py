"""What an assistant's turn records about the user: what it did or decided for them ("I've
booked your table for two at Luigi's"), the only facts an assistant turn gives."""

from __future__ import annotations

import re

from sedimem.extraction.clauses import Match, object_of

__all__ = ["match_assistant"]

_BOOKED = re.compile(
    r"^I(?:'ve| have)? (?:just |now |also )?(?P<v>booked|reserved|scheduled|ordered|"
    r"set up|renewed|registered|signed you up for|added)"
    r" (?:a |an |the )?(?:your |you (?:a |an )?)(?P<o>.+)$",
    re.IGNORECASE,
)


def match_assistant(clause: str, user: str) -> list[Match]:
    """What an assistant turn records that the user did or decided ("I've booked your table
    for two at Luigi's"): the only facts an assistant turn gives, all about the user."""
    m = _BOOKED.match(clause)
    if m is None:
        return []
    obj = object_of(m["o"], max_words=10)
    if obj is None:
        return []
    return [Match(user, "has_booking", f"{m['v'].lower()} {obj}", "has a booking")]
