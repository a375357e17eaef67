"""Parameters that address a record by id, stated once for every route.

An id in a path (``/v1/episodes/{episode_id}``) or a page cursor in a query carries the
limits of :data:`sedimem.types.longterm.RecordId`: at most ``MAX_ID_CHARS`` characters, no
NUL. Each route names only what its id is.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path, Query

from sedimem.limits import MAX_ID_CHARS
from sedimem.types.text import NO_NUL

__all__ = ["Cursor", "id_path"]


def id_path(description: str) -> Any:
    """A path parameter holding an id (typed ``Any`` as :func:`fastapi.Path` is)."""
    return Path(max_length=MAX_ID_CHARS, pattern=NO_NUL, description=description)


#: The page cursor of a listing: the ``next_cursor`` of the page before (an id).
Cursor = Annotated[
    str | None,
    Query(
        max_length=MAX_ID_CHARS, pattern=NO_NUL, description="`next_cursor` of the previous page."
    ),
]
