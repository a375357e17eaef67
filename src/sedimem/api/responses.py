"""Response bodies the records of :mod:`sedimem.types` do not already describe."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field

from sedimem.blocks import BLOCK
from sedimem.consolidation.models import JobReport
from sedimem.keys import ApiKey, IssuedKey
from sedimem.longterm.records import EPISODE, FACT, PROCEDURE
from sedimem.scope import Scope
from sedimem.types.blocks import Block
from sedimem.types.longterm import Episode, Fact, LearnResult, Procedure
from sedimem.types.search import Hit
from sedimem.types.working import CheckpointInfo, KeyEntry, ScratchpadEntry

__all__ = [
    "BlockList",
    "CheckpointList",
    "Created",
    "FactList",
    "Forked",
    "Health",
    "ImportCounts",
    "KeyEntries",
    "KeyList",
    "KvEntry",
    "KvItems",
    "Learned",
    "NewKey",
    "ProcedureMatches",
    "Recalled",
    "RunList",
    "Scratchpad",
    "SessionList",
]


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Created(_Out):
    id: str


class FactList(_Out):
    items: list[Fact]


#: What ``POST /v1/facts`` (and a correction) did: inserted, reinforced or superseded.
Learned = LearnResult


class ProcedureMatches(_Out):
    hits: list[Hit[Procedure]]


class Recalled(_Out):
    """Hits per tier, best first (scores compare within a tier, not across tiers)."""

    episodes: list[Hit[Episode]] = Field(default_factory=list)
    facts: list[Hit[Fact]] = Field(default_factory=list)
    procedures: list[Hit[Procedure]] = Field(default_factory=list)


class KvEntry(_Out):
    key: str
    value: Any = Field(description="The stored JSON value.")


class KvItems(_Out):
    items: dict[str, Any]


class KeyEntries(_Out):
    items: list[KeyEntry]


class SessionList(_Out):
    """Live sessions (with working state), each by its full scope."""

    items: list[Scope]


class RunList(_Out):
    """Consolidation runs, newest first."""

    items: list[JobReport]


class Scratchpad(_Out):
    entries: list[ScratchpadEntry]


class CheckpointList(_Out):
    items: list[CheckpointInfo]


class Forked(_Out):
    session: str


class BlockList(_Out):
    items: list[Block]


class KeyList(_Out):
    items: list[ApiKey]


class NewKey(_Out):
    """A new API key: ``secret`` is shown this once and stored only as a hash."""

    id: str
    secret: str
    key: ApiKey

    @classmethod
    def of(cls, issued: IssuedKey) -> Self:
        return cls(id=issued.key.id, secret=issued.secret, key=issued.key)


class ImportCounts(_Out):
    """Records imported, per kind."""

    episodes: int = 0
    facts: int = 0
    procedures: int = 0
    blocks: int = 0

    @classmethod
    def of(cls, counts: Mapping[str, int]) -> Self:
        """From ``Memory.import_``'s counts, keyed by record kind (``episode``...)."""
        return cls(
            episodes=counts.get(EPISODE, 0),
            facts=counts.get(FACT, 0),
            procedures=counts.get(PROCEDURE, 0),
            blocks=counts.get(BLOCK, 0),
        )


class Health(_Out):
    status: Literal["ok"] = "ok"
