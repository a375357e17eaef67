"""How sections and items look in an assembled context.

Markdown: one ``## Title`` heading per non-empty section, a blank line, one ``- `` bullet per
item (``- **label**: text``; continuation lines indented by two spaces), sections separated
by a blank line. Messages: one ``{"role": "system"}`` message per non-empty section whose
content is that section's markdown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from sedimem.context.models import TIERS, ContextFormat, ContextMessage, Tier

__all__ = [
    "TITLES",
    "TRUNCATION_MARK",
    "render_bullet",
    "render_heading",
    "render_line",
    "render_markdown",
    "render_messages",
]

TITLES: Mapping[Tier, str] = {
    "blocks": "Pinned blocks",
    "working": "Working state",
    "procedures": "Relevant procedures",
    "facts": "Known facts",
    "episodes": "Past episodes",
}

TRUNCATION_MARK = "…"
"""Appended to a pinned block's text when it was cut to fit."""

_SEPARATOR = "\n"
_NEWLINE = re.compile(r"\r\n|\r|\n")
_CONTINUED = "\n  "  # a continuation line, indented under its bullet


def render_heading(tier: Tier, fmt: ContextFormat) -> str:
    """A section's heading as it is counted: with the separator before it in markdown."""
    heading = f"## {TITLES[tier]}\n\n"
    return _SEPARATOR + heading if fmt == "markdown" else heading


def render_bullet(label: str | None) -> str:
    """What an item's line starts with: ``- **label**: `` (or ``- `` without a label)."""
    name = " ".join(label.split()) if label else ""
    return f"- **{name}**: " if name else "- "


def render_line(text: str, label: str | None) -> str:
    """One item as a bullet line, ending with a newline."""
    return f"{render_bullet(label)}{_NEWLINE.sub(_CONTINUED, text)}\n"


def _section(tier: Tier, lines: Sequence[str]) -> str:
    return f"## {TITLES[tier]}\n\n" + "".join(lines)


def render_markdown(sections: Mapping[Tier, Sequence[str]]) -> str:
    """The non-empty sections, in tier order, as one markdown text ("" when all are empty)."""
    parts = [_section(tier, sections[tier]) for tier in TIERS if sections.get(tier)]
    return _SEPARATOR.join(parts)


def render_messages(sections: Mapping[Tier, Sequence[str]]) -> list[ContextMessage]:
    """One system message per non-empty section, in tier order."""
    return [
        {"role": "system", "content": _section(tier, sections[tier])}
        for tier in TIERS
        if sections.get(tier)
    ]
