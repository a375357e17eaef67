"""Text as sedimem stores it: no NUL character, ever, on any backend.

PostgreSQL cannot hold U+0000 in a ``text`` value, SQLite's full-text index and many C
tools stop reading at it, so a NUL that one backend accepted would be lost or refused by
the next one (a migration, an import, a search). The rule is therefore stated here once
and every text field of every record uses these types: the records refuse NUL with a
:class:`~sedimem.errors.ValidationError` naming the field, whichever interface built them.

JSON values (``metadata``, working-memory values) may hold NUL: every store keeps them as
JSON text, where it is written ``\\u0000``.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints

from sedimem.errors import ValidationError
from sedimem.limits import MAX_LABEL_CHARS, MAX_OBJECT_CHARS, MAX_TEXT_CHARS

__all__ = [
    "NO_NUL",
    "NUL_ALLOWED",
    "Label",
    "LongText",
    "ObjectText",
    "Plain",
    "Text",
    "check_no_nul",
    "is_nul_error",
]

#: The pattern every stored text matches (published as ``pattern`` in the schemas).
NO_NUL = r"^[^\x00]*$"
#: What a client is told is accepted instead.
NUL_ALLOWED = "text without NUL (U+0000) characters"

#: Text of any length.
Plain = Annotated[str, StringConstraints(pattern=NO_NUL)]
#: The body of a memory: 1..MAX_TEXT_CHARS characters.
Text = Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS, pattern=NO_NUL)]
#: Optional text beside a memory's body (details, a summary, a transcript): may be empty.
LongText = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS, pattern=NO_NUL)]
#: A fact's object: up to MAX_OBJECT_CHARS characters.
ObjectText = Annotated[str, StringConstraints(max_length=MAX_OBJECT_CHARS, pattern=NO_NUL)]
#: A short name (task type, subject, predicate, procedure name): 1..MAX_LABEL_CHARS characters.
Label = Annotated[str, StringConstraints(min_length=1, max_length=MAX_LABEL_CHARS, pattern=NO_NUL)]


def check_no_nul(field: str, value: str) -> str:
    """``value``, or a ValidationError naming ``field`` when it holds NUL."""
    if "\x00" in value:
        raise ValidationError(field, "contains a NUL character", allowed=NUL_ALLOWED)
    return value


def is_nul_error(error_type: str, context: object) -> bool:
    """Whether a pydantic error is the refusal of NUL (to word it for people)."""
    return (
        error_type == "string_pattern_mismatch"
        and isinstance(context, dict)
        and context.get("pattern") == NO_NUL
    )
