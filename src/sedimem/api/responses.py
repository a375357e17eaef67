"""Response bodies the records of :mod:`sedimem.types` do not already describe."""

from __future__ import annotations

import os
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
    "Read",
    "Recalled",
    "RunList",
    "Scratchpad",
    "SessionList",
]


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Created(_Out):
    """What was created."""

    id: str = Field(description="The new record's (or checkpoint's) id.")


class FactList(_Out):
    """Facts, oldest first."""

    items: list[Fact] = Field(description="The facts.")


#: What ``POST /v1/facts`` (and a correction) did: inserted, reinforced or superseded.
Learned = LearnResult


class ProcedureMatches(_Out):
    """Procedures for a task, best first."""

    hits: list[Hit[Procedure]] = Field(description="The matching procedures, best first.")


class Read(_Out):
    """One memory whole, named by its id or its handle (what a context shows)."""

    kind: Literal["episode", "fact", "procedure"] = Field(description="What the record is.")
    id: str = Field(description="Its whole id (edits and deletes take this one).")
    record: Episode | Fact | Procedure = Field(description="The record as stored.")


class Recalled(_Out):
    """Hits per tier, best first (scores compare within a tier, not across tiers)."""

    episodes: list[Hit[Episode]] = Field(
        default_factory=list, description="Episode hits (when `episodes` was searched)."
    )
    facts: list[Hit[Fact]] = Field(
        default_factory=list, description="Fact hits (when `facts` was searched)."
    )
    procedures: list[Hit[Procedure]] = Field(
        default_factory=list, description="Procedure hits (when `procedures` was searched)."
    )


class KvEntry(_Out):
    """A key and its value."""

    key: str = Field(description="The key.")
    value: Any = Field(description="The stored JSON value.")


class KvItems(_Out):
    """Every user key of the session."""

    items: dict[str, Any] = Field(description="Key -> JSON value.")


class KeyEntries(_Out):
    """Every user key of the session, with the time each has left."""

    items: list[KeyEntry] = Field(description="The keys, with their values and TTLs.")


class SessionList(_Out):
    """Live sessions (with working state), each by its full scope."""

    items: list[Scope] = Field(description="Each live session's full scope.")


class RunList(_Out):
    """Consolidation runs, newest first."""

    items: list[JobReport] = Field(description="The runs' job reports, newest first.")


class Scratchpad(_Out):
    """The session's scratchpad."""

    entries: list[ScratchpadEntry] = Field(description="Its entries, oldest first.")


class CheckpointList(_Out):
    """The session's checkpoints."""

    items: list[CheckpointInfo] = Field(description="The checkpoints, oldest first.")


class Forked(_Out):
    """The session a fork started."""

    session: str = Field(description="The new session's id.")


class BlockList(_Out):
    """Pinned blocks, in pinned order."""

    items: list[Block] = Field(description="The blocks, in the order a context shows them.")


class KeyList(_Out):
    """API keys (never their secrets)."""

    items: list[ApiKey] = Field(description="The keys.")


class NewKey(_Out):
    """A new API key: ``secret`` is shown this once and stored only as a hash."""

    id: str = Field(description="The key's id.")
    secret: str = Field(
        description="The bearer token (`Authorization: Bearer ...`): shown this once only."
    )
    key: ApiKey = Field(description="What the key stands for.")

    @classmethod
    def of(cls, issued: IssuedKey) -> Self:
        return cls(id=issued.key.id, secret=issued.secret, key=issued.key)


class ImportCounts(_Out):
    """Records imported, per kind."""

    episodes: int = Field(default=0, description="Episodes imported.")
    facts: int = Field(default=0, description="Facts imported.")
    procedures: int = Field(default=0, description="Procedures imported.")
    blocks: int = Field(default=0, description="Pinned blocks imported.")

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
    """The process answers."""

    status: Literal["ok"] = Field(default="ok", description="Always `ok`.")
    pid: int = Field(
        default_factory=os.getpid,
        description="The id of the process that answered (tells `serve --workers N` apart).",
    )
