"""Pinned blocks: named text always placed first in an assembled context."""

from __future__ import annotations

from typing import Annotated

from pydantic import AwareDatetime, ConfigDict, Field, StringConstraints

from sedimem.ids import new_id
from sedimem.scope import Scope
from sedimem.types._base import Model
from sedimem.types.longterm import utc_now
from sedimem.types.text import NO_NUL

__all__ = ["MAX_BLOCK_CHARS", "Block", "BlockContent", "BlockName", "BlockPosition"]

MAX_BLOCK_CHARS = 20_000
#: A block's name: 1..128 characters, no control characters.
BlockName = Annotated[
    str, StringConstraints(min_length=1, max_length=128, pattern=r"^[^\x00-\x1f]+$")
]
BlockContent = Annotated[str, StringConstraints(max_length=MAX_BLOCK_CHARS, pattern=NO_NUL)]
#: Where a block goes among its owner's blocks (lower first).
BlockPosition = Annotated[int, Field(ge=0, le=1_000_000)]


class Block(Model):
    """A named block (persona, user profile, standing instructions) of one owner scope."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(default_factory=new_id)
    scope: Scope
    name: BlockName
    content: BlockContent = ""
    position: BlockPosition = 0
    updated_at: AwareDatetime = Field(default_factory=utc_now)
