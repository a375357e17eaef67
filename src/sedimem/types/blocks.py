"""Pinned blocks: named text always placed first in an assembled context."""

from __future__ import annotations

from typing import Annotated

from pydantic import AwareDatetime, ConfigDict, Field, StringConstraints

from sedimem.ids import new_id
from sedimem.limits import MAX_BLOCK_CHARS, MAX_BLOCK_NAME_CHARS, MAX_BLOCK_POSITION
from sedimem.scope import Scope
from sedimem.types._base import Model
from sedimem.types.longterm import utc_now
from sedimem.types.text import NO_NUL

__all__ = ["MAX_BLOCK_CHARS", "Block", "BlockContent", "BlockName", "BlockPosition"]

#: A block's name: printable, 1..MAX_BLOCK_NAME_CHARS characters.
BlockName = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_BLOCK_NAME_CHARS, pattern=r"^[^\x00-\x1f]+$"),
]
#: A block's text.
BlockContent = Annotated[str, StringConstraints(max_length=MAX_BLOCK_CHARS, pattern=NO_NUL)]
#: Where a block stands in the pinned order (lower first).
BlockPosition = Annotated[int, Field(ge=0, le=MAX_BLOCK_POSITION)]


class Block(Model):
    """A named block (persona, user profile, standing instructions) of one owner scope."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(default_factory=new_id, description="The block's id.")
    scope: Scope = Field(description="Its owner: the user or agent scope it is pinned for.")
    name: BlockName = Field(
        description="Its name, unique per owner (e.g. `persona`, `user_profile`).",
        examples=["persona"],
    )
    content: BlockContent = Field(
        default="",
        description=f"Its text (at most {MAX_BLOCK_CHARS} characters).",
        examples=["You are a concise travel assistant."],
    )
    position: BlockPosition = Field(
        default=0, description="Where it stands in the pinned order (lower first)."
    )
    updated_at: AwareDatetime = Field(default_factory=utc_now, description="When it last changed.")
