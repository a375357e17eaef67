"""Records of long-term memory: episodes, bi-temporal facts, procedures."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Literal, Self

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
from sedimem.limits import (
    MAX_ACTIONS,
    MAX_DURATION_SECONDS,
    MAX_ID_CHARS,
    MAX_JSON_DEPTH,
    MAX_METADATA_BYTES,
    MAX_STEPS,
    MAX_TOKENS_USED,
)
from sedimem.scope import Scope
from sedimem.types._base import Model
from sedimem.types.shape import Metadata
from sedimem.types.text import NO_NUL, Label, LongText, ObjectText, Plain, Text

__all__ = [
    "Cardinality",
    "Episode",
    "Fact",
    "FactValue",
    "Importance",
    "Label",
    "LearnResult",
    "MAX_ID_CHARS",
    "Outcome",
    "Plain",
    "Procedure",
    "RecordId",
    "SINCE",
    "TOLD",
    "Text",
    "utc_now",
]

#: A share from 0 (none) to 1 (all): importance, confidence.
Importance = Annotated[float, Field(ge=0.0, le=1.0)]
#: A record's id (the server gives one to a new record).
RecordId = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS, pattern=NO_NUL)]
#: A fact's value (its object).
FactValue = ObjectText
#: How many values a predicate holds at a time: "one" (a new value supersedes the old one)
#: or "many" (values accumulate).
Cardinality = Literal["one", "many"]
#: ``Fact.metadata[SINCE] == TOLD``: its ``valid_from`` is when it was said (the sentence
#: named no date of its own), so an end dated before that still ends it.
SINCE, TOLD = "since", "told"
#: ``Fact.metadata[ABOUT] == OTHER``: the fact is of someone the user named (a relative, a
#: friend, a pet: "Raj works at HubSpot" after "my husband Raj"), not of the user.
ABOUT, OTHER = "about", "other"

_METADATA = (
    "Free-form JSON object kept with the record (not searched; nested at most "
    f"{MAX_JSON_DEPTH} levels, at most {MAX_METADATA_BYTES} bytes)."
)


def utc_now() -> datetime:
    return datetime.now(UTC)


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC)


class Outcome(StrEnum):
    """How an episode ended: success, failure or partial; ``none`` for an episode that is
    no attempt at anything (a chat turn, a note), which reflection's statistics leave out."""

    SUCCESS = "success"
    FAILURE = "failure"
    PARTIAL = "partial"
    NONE = "none"


class _Record(Model):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: RecordId = Field(
        default_factory=new_id, description="The record's id (given by sedimem when written)."
    )
    scope: Scope = Field(
        default_factory=Scope,
        description="Where the record lives: its tenant and the scope fields it was written "
        "with (`session` is where it came from, not who may read it).",
    )
    metadata: Metadata = Field(default_factory=dict, description=_METADATA)


class Episode(_Record):
    """One unit of experience: what was tried, how it ended, what was learned."""

    task_type: Label = Field(
        default="general",
        description="The kind of task, to filter and compare by (e.g. `deploy`, `support`).",
        examples=["deploy"],
    )
    description: Text = Field(
        description="What the task was and what happened: the text searched first.",
        examples=["Deployed the billing service to staging"],
    )
    actions: list[Text] = Field(
        default_factory=list,
        max_length=MAX_ACTIONS,
        description="The steps taken, in order.",
        examples=[["ran migrations", "restarted the workers"]],
    )
    outcome: Outcome = Field(default=Outcome.SUCCESS, description="How it ended.")
    outcome_details: LongText = Field(
        default="", description="Why it ended so (an error, what was left undone)."
    )
    context_summary: LongText = Field(
        default="", description="The circumstances worth remembering with it."
    )
    lessons_learned: list[Text] = Field(
        default_factory=list,
        max_length=MAX_ACTIONS,
        description="What to do (or avoid) next time; searched with the description.",
        examples=[["run migrations before restarting the workers"]],
    )
    importance: Importance = Field(
        default=0.5,
        description="How much it matters, 0..1: weighs in ranking and in decay.",
        examples=[0.7],
    )
    duration_seconds: float | None = Field(
        default=None, ge=0, le=MAX_DURATION_SECONDS, description="How long it took, in seconds."
    )
    tokens_used: int | None = Field(
        default=None, ge=0, le=MAX_TOKENS_USED, description="Model tokens it used."
    )
    input_text: LongText | None = Field(
        default=None, description="For a conversational turn: what the user said."
    )
    output_text: LongText | None = Field(
        default=None, description="For a conversational turn: what the assistant answered."
    )
    occurred_at: AwareDatetime = Field(
        default_factory=utc_now,
        description="When it happened (RFC 3339 with an offset; default: when recorded).",
    )

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

    statement: Text = Field(
        description="The fact in words: what search finds.", examples=["Ana lives in Lisbon"]
    )
    subject: Label | None = Field(
        default=None,
        description="Whom or what it is about (give it with `predicate`).",
        examples=["Ana"],
    )
    predicate: Label | None = Field(
        default=None,
        validate_default=True,
        description="Which property of the subject it states (give it with `subject`).",
        examples=["lives_in"],
    )
    object: ObjectText | None = Field(
        default=None, description="The property's value.", examples=["Lisbon"]
    )
    confidence: Importance = Field(default=1.0, description="How sure the source is, 0..1.")
    source_episode_ids: list[RecordId] = Field(
        default_factory=list,
        description="The episodes it was learned from (its provenance: erasing them erases "
        "or re-derives it).",
    )
    reinforcement_count: int = Field(
        default=1, ge=1, description="How many times it was learned (1 when first learned)."
    )
    valid_from: AwareDatetime = Field(
        default_factory=utc_now,
        description="When it became true in the world (default: when learned).",
    )
    valid_to: AwareDatetime | None = Field(
        default=None, description="When it stopped being true in the world (unset: still true)."
    )
    recorded_at: AwareDatetime = Field(
        default_factory=utc_now, description="When sedimem learned it."
    )
    invalidated_at: AwareDatetime | None = Field(
        default=None,
        description="When sedimem stopped believing it (superseded, corrected or "
        "invalidated); unset: believed now.",
    )
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

    name: Label = Field(
        description="The procedure's name; recording the same name for the same owner makes "
        "its next version.",
        examples=["deploy a service"],
    )
    trigger: Text = Field(
        description="When to use it: the text a task is matched against.",
        examples=["a service must be deployed to staging"],
    )
    steps: list[Text] = Field(
        min_length=1,
        max_length=MAX_STEPS,
        description="What to do, in order.",
        examples=[["run the migrations", "deploy", "check /healthz"]],
    )
    version: int = Field(default=1, ge=1, description="1, then one more for each new version.")
    # provenance: the episodes a derived procedure was distilled from (empty when written
    # by hand); erasure follows it (see sedimem.gdpr)
    source_episode_ids: list[str] = Field(
        default_factory=list,
        description="The episodes it was distilled from (empty when written by hand).",
    )
    success_count: int = Field(default=0, ge=0, description="Uses that worked.")
    failure_count: int = Field(default=0, ge=0, description="Uses that failed.")
    last_used_at: AwareDatetime | None = Field(
        default=None, description="When a use was last counted."
    )
    created_at: AwareDatetime = Field(
        default_factory=utc_now, description="When its first version was recorded."
    )
    updated_at: AwareDatetime = Field(default_factory=utc_now, description="When it last changed.")

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

    action: Literal["inserted", "reinforced", "superseded"] = Field(
        description="`inserted` a new fact, `reinforced` one already believed, or "
        "`superseded` the current value(s) of a single-valued predicate."
    )
    fact: Fact = Field(description="The fact as stored now.")
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
