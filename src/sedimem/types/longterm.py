"""Records of long-term memory: episodes, bi-temporal facts, procedures."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AwareDatetime,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from sedimem.ids import new_id
from sedimem.scope import Scope
from sedimem.types._base import Model
from sedimem.types.text import NO_NUL, Label, Plain, Text

__all__ = [
    "Cardinality",
    "Episode",
    "Fact",
    "FactValue",
    "MAX_ID_CHARS",
    "Label",
    "LearnResult",
    "Outcome",
    "Plain",
    "Procedure",
    "Text",
    "utc_now",
]

Importance = Annotated[float, Field(ge=0.0, le=1.0)]
#: A fact's value (its object).
FactValue = Annotated[str, StringConstraints(max_length=10_000, pattern=NO_NUL)]
#: The longest record id (ours are UUIDv7 text; imported records may bring their own).
MAX_ID_CHARS = 64
#: How many values a predicate holds at a time: "one" (a new value supersedes the old one)
#: or "many" (values accumulate).
Cardinality = Literal["one", "many"]


def utc_now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


class Outcome(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    PARTIAL = "partial"


class _Record(Model):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(default_factory=new_id, min_length=1, max_length=MAX_ID_CHARS, pattern=NO_NUL)
    scope: Scope = Field(default_factory=Scope)
    metadata: dict[str, Any] = Field(default_factory=dict)


class Episode(_Record):
    """One unit of experience: what was tried, how it ended, what was learned."""

    task_type: Label = "general"
    description: Text
    actions: list[Text] = Field(default_factory=list)
    outcome: Outcome = Outcome.SUCCESS
    outcome_details: Plain = ""
    context_summary: Plain = ""
    lessons_learned: list[Text] = Field(default_factory=list)
    importance: Importance = 0.5
    duration_seconds: float | None = Field(default=None, ge=0)
    tokens_used: int | None = Field(default=None, ge=0)
    input_text: Plain | None = None
    output_text: Plain | None = None
    occurred_at: AwareDatetime = Field(default_factory=utc_now)

    @model_validator(mode="after")
    def _normalise(self) -> Self:
        object.__setattr__(self, "occurred_at", _utc(self.occurred_at))
        return self

    def search_text(self) -> str:
        """What keyword and vector search see of the episode."""
        parts = [self.description, self.input_text, self.output_text, self.context_summary]
        parts += self.lessons_learned
        return "\n".join(p for p in parts if p)


class Fact(_Record):
    """A statement, optionally subject / predicate / object, true from ``valid_from``
    until ``valid_to`` in the world, and believed from ``recorded_at`` until
    ``invalidated_at`` by the system."""

    statement: Text
    subject: Label | None = None
    predicate: Label | None = Field(default=None, validate_default=True)
    object: FactValue | None = None
    confidence: Importance = 1.0
    source_episode_ids: list[Plain] = Field(default_factory=list)
    reinforcement_count: int = Field(default=1, ge=1)
    valid_from: AwareDatetime = Field(default_factory=utc_now)
    valid_to: AwareDatetime | None = None
    recorded_at: AwareDatetime = Field(default_factory=utc_now)
    invalidated_at: AwareDatetime | None = None
    cardinality: Cardinality | None = Field(
        default=None,
        description="How many values this fact's predicate holds for its subject, overriding "
        "the predicate's configured default for this write: 'one' supersedes the current "
        "value, 'many' adds to it. Needs subject and predicate.",
    )

    @field_validator("valid_to")
    @classmethod
    def _valid_to_after_valid_from(
        cls, value: datetime | None, info: ValidationInfo
    ) -> datetime | None:
        start = info.data.get("valid_from")
        if value is not None and start is not None and value < start:
            raise ValueError("must not be before valid_from")
        return value

    @field_validator("invalidated_at")
    @classmethod
    def _invalidated_after_recorded(
        cls, value: datetime | None, info: ValidationInfo
    ) -> datetime | None:
        start = info.data.get("recorded_at")
        if value is not None and start is not None and value < start:
            raise ValueError("must not be before recorded_at")
        return value

    @field_validator("predicate")
    @classmethod
    def _predicate_needs_subject(cls, value: str | None, info: ValidationInfo) -> str | None:
        if (value is None) != (info.data.get("subject") is None):
            raise ValueError("subject and predicate go together: give both or neither")
        return value

    @field_validator("cardinality")
    @classmethod
    def _cardinality_needs_predicate(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("predicate") is None:
            raise ValueError("applies to structured facts only: give subject and predicate")
        return value

    @model_validator(mode="after")
    def _normalise(self) -> Self:
        for name in ("valid_from", "valid_to", "recorded_at", "invalidated_at"):
            object.__setattr__(self, name, _utc(getattr(self, name)))
        return self

    @property
    def is_current(self) -> bool:
        return self.invalidated_at is None


class Procedure(_Record):
    """A named, versioned list of steps, ranked by how often it worked."""

    name: Label
    trigger: Text
    steps: list[Text] = Field(min_length=1)
    version: int = Field(default=1, ge=1)
    # provenance: the episodes a derived procedure was distilled from (empty when written
    # by hand); erasure follows it (see sedimem.gdpr)
    source_episode_ids: list[str] = Field(default_factory=list)
    success_count: int = Field(default=0, ge=0)
    failure_count: int = Field(default=0, ge=0)
    last_used_at: AwareDatetime | None = None
    created_at: AwareDatetime = Field(default_factory=utc_now)
    updated_at: AwareDatetime = Field(default_factory=utc_now)

    @property
    def success_rate(self) -> float:
        """Laplace-smoothed: an untried procedure scores 0.5, not 0 or 1."""
        return (self.success_count + 1) / (self.success_count + self.failure_count + 2)

    def search_text(self) -> str:
        return "\n".join([self.name, self.trigger, *self.steps])


class LearnResult(Model):
    """What learning a fact did.

    ``inserted`` a new fact, ``reinforced`` one already believed (``fact`` is it, counted
    again), or ``superseded`` the current value(s) of a single-valued predicate: their ids are
    in ``superseded`` (retired, kept as history) and ``closed`` holds the versions recorded in
    their place with ``valid_to`` set. ``possible_conflicts`` lists the current facts of the
    same subject and predicate with another object when the predicate is multi-valued by
    default only (neither the fact nor the tenant declared its cardinality): both are kept,
    and the caller decides whether one replaces the other.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    action: Literal["inserted", "reinforced", "superseded"]
    fact: Fact
    superseded: list[str] = Field(
        default_factory=list, description="Ids of the facts this one retired."
    )
    closed: list[Fact] = Field(
        default_factory=list, description="Closed versions recorded for superseded values."
    )
    possible_conflicts: list[Fact] = Field(
        default_factory=list,
        description="Current facts of the same subject and predicate with another object, "
        "on a predicate not declared single-valued.",
    )
