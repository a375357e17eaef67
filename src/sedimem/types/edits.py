"""Changes to stored records by id, and the per-tenant cardinality of predicates.

Each ``*Changes`` model names the fields an edit may change, with the bounds of the record
itself; a field left out (or ``null``) stays as it is. REST bodies and MCP arguments are
derived from these models, so a limit is stated once.
"""

from __future__ import annotations

from typing import Any

from pydantic import AwareDatetime, ConfigDict, Field

from sedimem.limits import MAX_DECLARED_PREDICATES, MAX_PREDICATES_PER_CALL
from sedimem.types._base import Model
from sedimem.types.fields import field_of
from sedimem.types.longterm import Cardinality, Episode, Fact, Outcome, Procedure
from sedimem.types.shape import Metadata
from sedimem.types.text import Label, LongText, ObjectText, Text

__all__ = [
    "MAX_DECLARED_PREDICATES",
    "MAX_PREDICATES_PER_CALL",
    "EpisodeChanges",
    "FactChanges",
    "PredicateCardinalities",
    "PredicateDeclaration",
    "ProcedureChanges",
]

#: What ``null`` (or leaving a field out) means in every edit.
KEEP = " Left out or null: unchanged."


def _changed(model: type[Model], name: str) -> Any:
    """The record's field, optional in an edit (null or absent: unchanged)."""
    source = model.model_fields[name]
    return field_of(model, name, default=None, description=f"{source.description}{KEEP}")


class _Changes(Model):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    def given(self) -> dict[str, Any]:
        """The fields to change (set and not null), as the record takes them."""
        return {name: getattr(self, name) for name in self.model_fields_set
                if getattr(self, name) is not None}  # fmt: skip


class EpisodeChanges(_Changes):
    """What may change in a stored episode (search text is re-indexed when it does)."""

    task_type: Label | None = _changed(Episode, "task_type")
    description: Text | None = _changed(Episode, "description")
    actions: list[Text] | None = _changed(Episode, "actions")
    outcome: Outcome | None = _changed(Episode, "outcome")
    outcome_details: LongText | None = _changed(Episode, "outcome_details")
    context_summary: LongText | None = _changed(Episode, "context_summary")
    lessons_learned: list[Text] | None = _changed(Episode, "lessons_learned")
    importance: float | None = _changed(Episode, "importance")
    metadata: Metadata | None = _changed(Episode, "metadata")


class FactChanges(_Changes):
    """A correction of a fact. The corrected fact is recorded as a new version (new id) and
    the old one retired, so what was believed before stays askable (``known_at``).
    Subject and predicate are its identity and cannot change: invalidate it and learn a new
    fact instead."""

    statement: Text | None = _changed(Fact, "statement")
    object: ObjectText | None = _changed(Fact, "object")
    confidence: float | None = _changed(Fact, "confidence")
    valid_from: AwareDatetime | None = _changed(Fact, "valid_from")
    valid_to: AwareDatetime | None = _changed(Fact, "valid_to")
    metadata: Metadata | None = _changed(Fact, "metadata")


class ProcedureChanges(_Changes):
    """What may change in a procedure: new steps make its next version."""

    trigger: Text | None = _changed(Procedure, "trigger")
    steps: list[Text] | None = _changed(Procedure, "steps")
    metadata: Metadata | None = _changed(Procedure, "metadata")


PredicateName = Label


class PredicateDeclaration(Model):
    """Declare how many values predicates hold for one tenant (``one``: a new value
    supersedes the current one; ``many``: values accumulate, also overriding a default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    predicates: list[PredicateName] = Field(
        min_length=1,
        max_length=MAX_PREDICATES_PER_CALL,
        description=f"1..{MAX_PREDICATES_PER_CALL} predicates, e.g. 'prefers_seat'.",
        examples=[["prefers_seat", "lives_in"]],
    )
    cardinality: Cardinality = Field(
        default="one",
        description="`one`: a new value supersedes the current one; `many`: values accumulate.",
    )


class PredicateCardinalities(Model):
    """How a tenant's predicates behave: the configured defaults, the tenant's own
    declarations (which win), and the resulting single-valued set."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    defaults: list[str] = Field(description="Single-valued by configuration.")
    declared: dict[str, Cardinality] = Field(description="Declared for the tenant.")
    single_valued: list[str] = Field(description="Single-valued for the tenant, in all.")
