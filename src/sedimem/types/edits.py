"""Changes to stored records by id, and the per-tenant cardinality of predicates.

Each ``*Changes`` model names the fields an edit may change, with the bounds of the record
itself; a field left out (or ``null``) stays as it is. REST bodies and MCP arguments are
derived from these models, so a limit is stated once.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AwareDatetime, ConfigDict, Field, StringConstraints

from sedimem.types._base import Model
from sedimem.types.longterm import Cardinality, FactValue, Importance, Outcome
from sedimem.types.text import NO_NUL, Label, Text

__all__ = [
    "MAX_DECLARED_PREDICATES",
    "MAX_PREDICATES_PER_CALL",
    "EpisodeChanges",
    "FactChanges",
    "PredicateCardinalities",
    "PredicateDeclaration",
    "ProcedureChanges",
]

#: Most predicates one declaration may name.
MAX_PREDICATES_PER_CALL = 100
#: Most predicates a tenant may declare in all (its declarations are read on every write).
MAX_DECLARED_PREDICATES = 1000


class _Changes(Model):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    def given(self) -> dict[str, Any]:
        """The fields to change (set and not null), as the record takes them."""
        return {name: getattr(self, name) for name in self.model_fields_set
                if getattr(self, name) is not None}  # fmt: skip


class EpisodeChanges(_Changes):
    """What may change in a stored episode (search text is re-indexed when it does)."""

    task_type: Label | None = None
    description: Text | None = None
    actions: list[Text] | None = Field(default=None, max_length=10_000)
    outcome: Outcome | None = None
    outcome_details: (
        Annotated[str, StringConstraints(max_length=100_000, pattern=NO_NUL)] | None
    ) = None
    context_summary: (
        Annotated[str, StringConstraints(max_length=100_000, pattern=NO_NUL)] | None
    ) = None
    lessons_learned: list[Text] | None = Field(default=None, max_length=10_000)
    importance: Importance | None = None
    metadata: dict[str, Any] | None = None


class FactChanges(_Changes):
    """A correction of a fact. The corrected fact is recorded as a new version (new id) and
    the old one retired, so what was believed before stays askable (``known_at``).
    Subject and predicate are its identity and cannot change: invalidate it and learn a new
    fact instead."""

    statement: Text | None = None
    object: FactValue | None = None
    confidence: Importance | None = None
    valid_from: AwareDatetime | None = None
    valid_to: AwareDatetime | None = None
    metadata: dict[str, Any] | None = None


class ProcedureChanges(_Changes):
    """What may change in a procedure: new steps make its next version."""

    trigger: Text | None = None
    steps: list[Text] | None = Field(default=None, min_length=1, max_length=1000)
    metadata: dict[str, Any] | None = None


PredicateName = Label


class PredicateDeclaration(Model):
    """Declare how many values predicates hold for one tenant (``one``: a new value
    supersedes the current one; ``many``: values accumulate, also overriding a default)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    predicates: list[PredicateName] = Field(
        min_length=1,
        max_length=MAX_PREDICATES_PER_CALL,
        description=f"1..{MAX_PREDICATES_PER_CALL} predicates, e.g. 'prefers_seat'.",
    )
    cardinality: Cardinality = "one"


class PredicateCardinalities(Model):
    """How a tenant's predicates behave: the configured defaults, the tenant's own
    declarations (which win), and the resulting single-valued set."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    defaults: list[str] = Field(description="Single-valued by configuration.")
    declared: dict[str, Cardinality] = Field(description="Declared for the tenant.")
    single_valued: list[str] = Field(description="Single-valued for the tenant, in all.")
