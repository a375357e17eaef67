"""Request bodies: what a client may send, with the limits the OpenAPI schema publishes.

Every body is validated in strict mode (:mod:`sedimem.api.values`: ``true`` is not an
integer, ``"5"`` not a number) and refuses unknown fields (``tenant`` above all: it comes
from the API key), NaN and infinities. Text fields take the records' own types
(``sedimem.types``: no NUL, the same lengths) so that a client reads the limits in the
schema; the records validate again when they are built.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from sedimem.api.narrowing import OwnerFields, ScopeFields
from sedimem.api.values import Instant, OutcomeName, StatusName
from sedimem.consolidation import JOBS
from sedimem.context.models import ContextFormat, Tier
from sedimem.longterm.search import Mode
from sedimem.scope import Identifier, Scope
from sedimem.types.blocks import MAX_BLOCK_CHARS
from sedimem.types.edits import (
    MAX_PREDICATES_PER_CALL,
    EpisodeChanges,
    FactChanges,
    ProcedureChanges,
)
from sedimem.types.longterm import Cardinality, Episode, Fact, Outcome, Procedure
from sedimem.types.text import NO_NUL, Label, Text
from sedimem.types.working import TaskState, TaskStatus

__all__ = [
    "EARLIEST",
    "LATEST",
    "BlockAppend",
    "BlockPut",
    "CheckpointCreate",
    "ConsolidateRequest",
    "ContextRequest",
    "EpisodeIn",
    "EpisodePatch",
    "FactIn",
    "FactPatch",
    "ForgetRequest",
    "ForkRequest",
    "Instant",
    "JobName",
    "KeyRequest",
    "KvPut",
    "MatchRequest",
    "OutcomeRequest",
    "PauseRequest",
    "PredicatesIn",
    "ProcedureIn",
    "ProcedurePatch",
    "RecallRequest",
    "RecallTier",
    "ReflectRequest",
    "ResumeRequest",
    "ScratchpadAppend",
    "SpawnRequest",
    "TaskPatch",
    "TaskPut",
    "TerminateRequest",
    "time_range",
]

#: The ends of an open time range (a filter naming only its start or only its end).
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)


# Text without NUL (the rule of every stored text), up to so many characters.
LongText = Annotated[str, StringConstraints(max_length=100_000, pattern=NO_NUL)]
ObjectText = Annotated[str, StringConstraints(max_length=10_000, pattern=NO_NUL)]
BlockText = Annotated[str, StringConstraints(max_length=MAX_BLOCK_CHARS, pattern=NO_NUL)]
Description = Annotated[str, StringConstraints(max_length=1024, pattern=NO_NUL)]
KeyLabel = Annotated[str, StringConstraints(max_length=200, pattern=NO_NUL)]
Separator = Annotated[str, StringConstraints(max_length=16, pattern=NO_NUL)]

QueryText = Annotated[str, StringConstraints(min_length=1, max_length=10_000, pattern=NO_NUL)]
Json = dict[str, Any]
Count = Annotated[int, Field(ge=0, le=1_000_000_000)]
_SCOPE_NAMES = frozenset({"project", "user", "agent_type", "agent", "session"})


def time_range(since: datetime | None, until: datetime | None) -> tuple[datetime, datetime] | None:
    """``(since, until)`` with an open end filled in; ``None`` when neither is given."""
    if since is None and until is None:
        return None
    return (since or EARLIEST, until or LATEST)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


def _record_fields(body: BaseModel) -> dict[str, Any]:
    """The body's own fields (not its scope narrowing), leaving unset ones to the record."""
    return {name: value for name, value in body if name not in _SCOPE_NAMES and value is not None}


# -- long-term records ---------------------------------------------------------------------


class EpisodeIn(ScopeFields):
    """One unit of experience (the server gives it its id)."""

    task_type: Label = "general"
    description: Text
    actions: list[Text] = Field(default_factory=list, max_length=10_000)
    outcome: OutcomeName = Outcome.SUCCESS
    outcome_details: LongText = ""
    context_summary: LongText = ""
    lessons_learned: list[Text] = Field(default_factory=list, max_length=10_000)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    duration_seconds: float | None = Field(default=None, ge=0, le=1e10)
    tokens_used: int | None = Field(default=None, ge=0, le=10**15)
    input_text: LongText | None = None
    output_text: LongText | None = None
    occurred_at: Instant | None = None
    metadata: Json = Field(default_factory=dict)

    def to_record(self, scope: Scope) -> Episode:
        return Episode(scope=scope, **_record_fields(self))


class FactIn(ScopeFields):
    """A statement, optionally subject / predicate / object, true from ``valid_from``."""

    statement: Text
    subject: Label | None = None
    predicate: Label | None = None
    object: ObjectText | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source_episode_ids: list[Annotated[Label, Field(max_length=64)]] = Field(
        default_factory=list, max_length=10_000
    )
    valid_from: Instant | None = None
    valid_to: Instant | None = None
    cardinality: Cardinality | None = Field(
        default=None,
        description="'one': this value supersedes the current one of its subject and "
        "predicate; 'many': it adds to them. Default: the predicate's, as configured and "
        "declared for the tenant. Needs subject and predicate.",
    )
    metadata: Json = Field(default_factory=dict)

    def to_record(self, scope: Scope) -> Fact:
        return Fact(scope=scope, **_record_fields(self))


class ProcedureIn(ScopeFields):
    """Named steps; a procedure of the same name and owner becomes its next version."""

    name: Label
    trigger: Text
    steps: list[Text] = Field(min_length=1, max_length=1000)
    metadata: Json = Field(default_factory=dict)

    def to_record(self, scope: Scope) -> Procedure:
        return Procedure(scope=scope, **_record_fields(self))


# -- changes by id (the fields of sedimem.types.edits, strict on the wire) ------------------


class _Changes(_Body):
    def changes(self) -> dict[str, Any]:
        """The fields given (and not null): what the service's changes type takes."""
        return {n: getattr(self, n) for n in self.model_fields_set if getattr(self, n) is not None}


class EpisodePatch(_Changes):
    """The episode's fields to change; those left out stay (see ``EpisodeChanges``)."""

    task_type: Label | None = None
    description: Text | None = None
    actions: list[Text] | None = Field(default=None, max_length=10_000)
    outcome: OutcomeName | None = None
    outcome_details: LongText | None = None
    context_summary: LongText | None = None
    lessons_learned: list[Text] | None = Field(default=None, max_length=10_000)
    importance: float | None = Field(default=None, ge=0.0, le=1.0)
    metadata: Json | None = None

    def to_changes(self) -> EpisodeChanges:
        return EpisodeChanges(**self.changes())


class FactPatch(_Changes):
    """A correction (see ``FactChanges``): recorded as a new version of the fact."""

    statement: Text | None = None
    object: ObjectText | None = None
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)
    valid_from: Instant | None = None
    valid_to: Instant | None = None
    metadata: Json | None = None

    def to_changes(self) -> FactChanges:
        return FactChanges(**self.changes())


class ProcedurePatch(_Changes):
    """A procedure's changes (see ``ProcedureChanges``): new steps make its next version."""

    trigger: Text | None = None
    steps: list[Text] | None = Field(default=None, min_length=1, max_length=1000)
    metadata: Json | None = None

    def to_changes(self) -> ProcedureChanges:
        return ProcedureChanges(**self.changes())


class PredicatesIn(_Body):
    """Predicates declared single-valued (``one``) or multi-valued (``many``) for the tenant."""

    predicates: list[Label] = Field(min_length=1, max_length=MAX_PREDICATES_PER_CALL)
    cardinality: Cardinality = "one"


#: "Only this session": a read from a session scope sees every session of its owner.
_FROM_SESSION = "Only memories recorded in this session (`session` does not narrow a read)."


class MatchRequest(ScopeFields):
    task_description: QueryText
    k: int = Field(default=5, ge=1, le=1000)
    mode: Mode = "hybrid"
    from_session: Identifier | None = Field(default=None, description=_FROM_SESSION)


class OutcomeRequest(_Body):
    success: bool


# -- search and context --------------------------------------------------------------------

RecallTier = Literal["episodes", "facts", "procedures"]


def _every_tier() -> list[RecallTier]:
    return ["episodes", "facts", "procedures"]


class RecallRequest(ScopeFields):
    """A query over the tiers named; the filters of a tier apply to that tier only."""

    query: QueryText
    k: int = Field(default=10, ge=1, le=1000, description="Hits per tier.")
    tiers: list[RecallTier] = Field(default_factory=_every_tier, min_length=1, max_length=3)
    mode: Mode = "hybrid"
    outcome: OutcomeName | None = Field(default=None, description="Episodes only.")
    task_type: Label | None = Field(default=None, description="Episodes only.")
    since: Instant | None = Field(default=None, description="Episodes that occurred from then.")
    until: Instant | None = Field(default=None, description="Episodes that occurred until then.")
    min_importance: float | None = Field(default=None, ge=0.0, le=1.0)
    valid_at: Instant | None = Field(default=None, description="Facts true then (default now).")
    known_at: Instant | None = Field(default=None, description="Facts as believed then.")
    subject: Label | None = Field(default=None, description="Facts only.")
    predicate: Label | None = Field(default=None, description="Facts only.")
    include_history: bool = Field(default=False, description="Facts of any world time.")
    from_session: Identifier | None = Field(default=None, description=_FROM_SESSION)


class ContextRequest(ScopeFields):
    query: QueryText
    budget_tokens: int = Field(ge=1, le=1_000_000)
    quotas: dict[Tier, Annotated[float, Field(ge=0.0, le=1e6)]] | None = None
    format: ContextFormat = "markdown"

    def shares(self) -> dict[str, float] | None:
        """The quotas as ``assemble`` takes them (tier name -> share)."""
        return None if self.quotas is None else {str(t): s for t, s in self.quotas.items()}


# -- working memory and lifecycle ------------------------------------------------------------


class KvPut(OwnerFields):
    value: Any = Field(description="Any JSON value.")
    ttl_seconds: float | None = Field(default=None, gt=0, le=365 * 24 * 3600)


class TaskPut(OwnerFields):
    task_id: Label
    status: StatusName = TaskStatus.PENDING
    current_step: Count = 0
    total_steps: Count | None = None
    progress_percent: float = Field(default=0.0, ge=0.0, le=100.0)
    metadata: Json = Field(default_factory=dict)

    def to_state(self) -> TaskState:
        return TaskState(**_record_fields(self))


class TaskPatch(OwnerFields):
    current_step: Count | None = None
    progress_percent: float | None = Field(default=None, ge=0.0, le=100.0)
    status: StatusName | None = None


class ScratchpadAppend(OwnerFields):
    text: Annotated[str, StringConstraints(min_length=1, pattern=NO_NUL)]


class CheckpointCreate(OwnerFields):
    description: Description = ""


class ForkRequest(OwnerFields):
    new_session: Identifier


class SpawnRequest(OwnerFields):
    initial_state: Json | None = None
    metadata: Json | None = None
    task_id: Label | None = None
    total_steps: Count | None = None


class PauseRequest(OwnerFields):
    description: Description = ""


class ResumeRequest(OwnerFields):
    checkpoint_id: Annotated[Label, Field(max_length=64)] | None = Field(
        default=None, description="Default: the latest."
    )


class TerminateRequest(OwnerFields):
    outcome: OutcomeName
    task_description: Text | None = None
    lessons_learned: list[Text] = Field(default_factory=list, max_length=1000)
    consolidate: bool = Field(default=True, description="Record the session as an episode.")
    cleanup: bool = Field(default=True, description="Remove the session's working state.")
    tokens_used: int | None = Field(default=None, ge=0, le=10**15)
    task_type: Label = "session"


# -- pinned blocks -----------------------------------------------------------------------------


class BlockPut(OwnerFields):
    content: BlockText
    position: int | None = Field(default=None, ge=0, le=1_000_000)


class BlockAppend(OwnerFields):
    text: BlockText
    separator: Separator = "\n"


# -- tenant-wide operations --------------------------------------------------------------------


class ReflectRequest(ScopeFields):
    since: Instant | None = None
    until: Instant | None = None
    task_types: list[Label] | None = Field(default=None, max_length=100)
    baseline_days: float = Field(default=30.0, gt=0.0, le=36_500.0)


if TYPE_CHECKING:
    JobName = str
else:  # the consolidator's own job names, so the published enum follows them
    JobName = Literal[JOBS]


class ConsolidateRequest(_Body):
    dry_run: bool = False
    jobs: list[JobName] | None = Field(
        default=None, min_length=1, max_length=len(JOBS), description="Default: every job."
    )


class ForgetRequest(_Body):
    """What to erase: every condition given must hold (at least one is needed)."""

    user: Identifier | None = None
    session: Identifier | None = None
    before: Instant | None = None


class KeyRequest(_Body):
    tenant: Identifier
    project: Identifier | None = None
    user: Identifier | None = None
    agent: Identifier | None = None
    label: KeyLabel | None = None
    read_only: bool = Field(
        default=False, description="A key that reads (and searches) but never writes or erases."
    )
