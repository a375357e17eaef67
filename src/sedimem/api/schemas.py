"""Request bodies: what a client may send, with the limits the OpenAPI schema publishes.

Every body is validated in strict mode (:mod:`sedimem.api.values`: ``true`` is not an
integer, ``"5"`` not a number) and refuses unknown fields (``tenant`` above all: it comes
from the API key), NaN and infinities. A body's field that a record also has is that
record's field (:func:`~sedimem.types.fields.field_of`: its limits, description and
examples), read in its wire form (an RFC 3339 time, an enum's string); the other fields
take the aliases of :mod:`sedimem.types.fields` and the numbers of :mod:`sedimem.limits`.
No limit is stated here; the records validate again when they are built.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from sedimem.api.narrowing import OwnerFields, ScopeFields
from sedimem.api.values import Instant, OutcomeName, StatusName
from sedimem.consolidation import JOBS
from sedimem.context.models import ContextFormat, Tier
from sedimem.keys import ApiKey, KeyLabel
from sedimem.limits import (
    MAX_BASELINE_DAYS,
    MAX_QUOTA,
    MAX_SEPARATOR_CHARS,
    MAX_SOURCE_IDS,
    MAX_TASK_TYPES,
    MAX_TERMINATE_LESSONS,
)
from sedimem.longterm.search import Mode
from sedimem.scope import Identifier, Scope
from sedimem.types.blocks import Block, BlockContent, BlockPosition
from sedimem.types.edits import (
    EpisodeChanges,
    FactChanges,
    PredicateDeclaration,
    ProcedureChanges,
)
from sedimem.types.fields import (
    REQUIRED,
    BudgetTokens,
    CheckpointDescription,
    Hits,
    QueryText,
    SessionFilter,
    StepCount,
    TtlSeconds,
    field_of,
)
from sedimem.types.longterm import Cardinality, Episode, Fact, Procedure, RecordId
from sedimem.types.shape import Metadata
from sedimem.types.text import NO_NUL, Label, LongText, ObjectText, Text
from sedimem.types.working import TaskState

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


Json = dict[str, Any]
_SCOPE_NAMES = frozenset({"project", "user", "agent_type", "agent", "session"})
#: The search modes, as every search route takes them.
_MODE = "`hybrid` (keywords and meaning fused by rank), `keyword` (BM25) or `vector`."


def _optional(model: type[BaseModel], name: str) -> Any:
    """The record's field, left to the record when not given (``null``: its default)."""
    return field_of(model, name, default=None)


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

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "user": "ana",
                    "task_type": "deploy",
                    "description": "Deployed the billing service to staging",
                    "actions": ["ran migrations", "restarted the workers"],
                    "outcome": "failure",
                    "outcome_details": "the workers started before the migrations finished",
                    "lessons_learned": ["wait for the migrations before restarting"],
                    "importance": 0.8,
                }
            ]
        }
    )

    task_type: Label = field_of(Episode, "task_type")
    description: Text = field_of(Episode, "description")
    actions: list[Text] = field_of(Episode, "actions")
    outcome: OutcomeName = field_of(Episode, "outcome")
    outcome_details: LongText = field_of(Episode, "outcome_details")
    context_summary: LongText = field_of(Episode, "context_summary")
    lessons_learned: list[Text] = field_of(Episode, "lessons_learned")
    importance: float = field_of(Episode, "importance")
    duration_seconds: float | None = field_of(Episode, "duration_seconds")
    tokens_used: int | None = field_of(Episode, "tokens_used")
    input_text: LongText | None = field_of(Episode, "input_text")
    output_text: LongText | None = field_of(Episode, "output_text")
    occurred_at: Instant | None = _optional(Episode, "occurred_at")
    metadata: Metadata = field_of(Episode, "metadata")

    def to_record(self, scope: Scope) -> Episode:
        return Episode(scope=scope, **_record_fields(self))


class FactIn(ScopeFields):
    """A statement, optionally subject / predicate / object, true from ``valid_from``."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "user": "ana",
                    "statement": "Ana lives in Lisbon",
                    "subject": "Ana",
                    "predicate": "lives_in",
                    "object": "Lisbon",
                    "valid_from": "2024-06-01T00:00:00Z",
                }
            ]
        }
    )

    statement: Text = field_of(Fact, "statement")
    subject: Label | None = field_of(Fact, "subject")
    predicate: Label | None = field_of(Fact, "predicate", validate_default=False)
    object: ObjectText | None = field_of(Fact, "object")
    confidence: float = field_of(Fact, "confidence")
    source_episode_ids: list[RecordId] = field_of(
        Fact, "source_episode_ids", max_length=MAX_SOURCE_IDS
    )
    valid_from: Instant | None = _optional(Fact, "valid_from")
    valid_to: Instant | None = field_of(Fact, "valid_to")
    cardinality: Cardinality | None = field_of(Fact, "cardinality")
    metadata: Metadata = field_of(Fact, "metadata")

    def to_record(self, scope: Scope) -> Fact:
        return Fact(scope=scope, **_record_fields(self))


class ProcedureIn(ScopeFields):
    """Named steps; a procedure of the same name and owner becomes its next version."""

    name: Label = field_of(Procedure, "name")
    trigger: Text = field_of(Procedure, "trigger")
    steps: list[Text] = field_of(Procedure, "steps")
    metadata: Metadata = field_of(Procedure, "metadata")

    def to_record(self, scope: Scope) -> Procedure:
        return Procedure(scope=scope, **_record_fields(self))


# -- changes by id (the fields of sedimem.types.edits, strict on the wire) ------------------


class _Changes(_Body):
    def changes(self) -> dict[str, Any]:
        """The fields given (and not null): what the service's changes type takes."""
        return {n: getattr(self, n) for n in self.model_fields_set if getattr(self, n) is not None}


class EpisodePatch(_Changes):
    """The episode's fields to change; those left out stay (see ``EpisodeChanges``)."""

    task_type: Label | None = field_of(EpisodeChanges, "task_type")
    description: Text | None = field_of(EpisodeChanges, "description")
    actions: list[Text] | None = field_of(EpisodeChanges, "actions")
    outcome: OutcomeName | None = field_of(EpisodeChanges, "outcome")
    outcome_details: LongText | None = field_of(EpisodeChanges, "outcome_details")
    context_summary: LongText | None = field_of(EpisodeChanges, "context_summary")
    lessons_learned: list[Text] | None = field_of(EpisodeChanges, "lessons_learned")
    importance: float | None = field_of(EpisodeChanges, "importance")
    metadata: Metadata | None = field_of(EpisodeChanges, "metadata")

    def to_changes(self) -> EpisodeChanges:
        return EpisodeChanges(**self.changes())


class FactPatch(_Changes):
    """A correction (see ``FactChanges``): recorded as a new version of the fact."""

    statement: Text | None = field_of(FactChanges, "statement")
    object: ObjectText | None = field_of(FactChanges, "object")
    confidence: float | None = field_of(FactChanges, "confidence")
    valid_from: Instant | None = field_of(FactChanges, "valid_from")
    valid_to: Instant | None = field_of(FactChanges, "valid_to")
    metadata: Metadata | None = field_of(FactChanges, "metadata")

    def to_changes(self) -> FactChanges:
        return FactChanges(**self.changes())


class ProcedurePatch(_Changes):
    """A procedure's changes (see ``ProcedureChanges``): new steps make its next version."""

    trigger: Text | None = field_of(ProcedureChanges, "trigger")
    steps: list[Text] | None = field_of(ProcedureChanges, "steps")
    metadata: Metadata | None = field_of(ProcedureChanges, "metadata")

    def to_changes(self) -> ProcedureChanges:
        return ProcedureChanges(**self.changes())


class PredicatesIn(_Body):
    """Predicates declared single-valued (``one``) or multi-valued (``many``) for the tenant."""

    predicates: list[Label] = field_of(PredicateDeclaration, "predicates")
    cardinality: Cardinality = field_of(PredicateDeclaration, "cardinality")


class MatchRequest(ScopeFields):
    """A task to find procedures for."""

    task_description: QueryText = Field(
        description="The task at hand, in plain words: matched against the procedures' "
        "triggers, then weighed by how often each worked.",
        examples=["deploy the billing service to staging"],
    )
    k: Hits = 5
    mode: Mode = Field(default="hybrid", description=_MODE)
    from_session: SessionFilter = None


class OutcomeRequest(_Body):
    """How one use of the procedure went."""

    success: bool = Field(description="Whether the use worked (counts a success or a failure).")


# -- search and context --------------------------------------------------------------------

RecallTier = Literal["episodes", "facts", "procedures"]


def _every_tier() -> list[RecallTier]:
    return ["episodes", "facts", "procedures"]


_EPISODES_ONLY = " Episodes only."
_FACTS_ONLY = " Facts only."


class RecallRequest(ScopeFields):
    """A query over the tiers named; the filters of a tier apply to that tier only."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"query": "Where does Ana live?", "user": "ana", "k": 5}]}
    )

    query: QueryText
    k: Hits = Field(default=10, description="Hits per tier, best first.")
    tiers: list[RecallTier] = Field(
        default_factory=_every_tier,
        min_length=1,
        max_length=len(get_args(RecallTier)),
        description="The tiers to search (default: all three).",
    )
    mode: Mode = Field(default="hybrid", description=_MODE)
    outcome: OutcomeName | None = Field(
        default=None, description="Only episodes that ended so." + _EPISODES_ONLY
    )
    task_type: Label | None = Field(
        default=None, description="Only episodes of this task type." + _EPISODES_ONLY
    )
    since: Instant | None = Field(default=None, description="Episodes that occurred from then.")
    until: Instant | None = Field(default=None, description="Episodes that occurred until then.")
    min_importance: float | None = field_of(
        Episode,
        "importance",
        default=None,
        description="Only episodes at least this important (0..1)." + _EPISODES_ONLY,
        examples=None,
    )
    valid_at: Instant | None = Field(default=None, description="Facts true then (default now).")
    known_at: Instant | None = Field(default=None, description="Facts as believed then.")
    subject: Label | None = field_of(
        Fact, "subject", description="Only facts about this subject." + _FACTS_ONLY
    )
    predicate: Label | None = field_of(
        Fact, "predicate", validate_default=False, description="Only this predicate." + _FACTS_ONLY
    )
    include_history: bool = Field(
        default=False,
        description="Facts of any world time, not only those true at `valid_at`." + _FACTS_ONLY,
    )
    from_session: SessionFilter = None


class ContextRequest(ScopeFields):
    """A query whose best memories are packed, per tier, into a token budget."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "query": "Plan Ana's trip to Porto",
                    "user": "ana",
                    "session": "s-42",
                    "budget_tokens": 2000,
                }
            ]
        }
    )

    query: QueryText
    budget_tokens: BudgetTokens
    quotas: dict[Tier, Annotated[float, Field(ge=0.0, le=MAX_QUOTA)]] | None = Field(
        default=None,
        description="Relative shares of the budget per tier (normalised; 0 leaves a tier "
        "out; what a tier leaves unused flows to the others). Default: the configured shares.",
        examples=[{"blocks": 1, "working": 1, "procedures": 1, "facts": 2, "episodes": 2}],
    )
    format: ContextFormat = Field(
        default="markdown",
        description="`markdown`: one text; `messages`: one system message per section.",
    )

    def shares(self) -> dict[str, float] | None:
        """The quotas as ``assemble`` takes them (tier name -> share)."""
        return None if self.quotas is None else {str(t): s for t, s in self.quotas.items()}


# -- working memory and lifecycle ------------------------------------------------------------


class KvPut(OwnerFields):
    """A value for a working-memory key."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"value": {"city": "Porto", "nights": 3}, "ttl_seconds": 3600}]
        }
    )

    value: Any = Field(description="Any JSON value.")
    ttl_seconds: TtlSeconds = None


class TaskPut(OwnerFields):
    """The session's task state, replacing the one set before."""

    task_id: Label = field_of(TaskState, "task_id")
    status: StatusName = field_of(TaskState, "status")
    current_step: StepCount = field_of(TaskState, "current_step")
    total_steps: StepCount | None = field_of(TaskState, "total_steps")
    progress_percent: float = field_of(TaskState, "progress_percent")
    metadata: Metadata = field_of(TaskState, "metadata")

    def to_state(self) -> TaskState:
        return TaskState(**_record_fields(self))


class TaskPatch(OwnerFields):
    """Progress to record atomically; the fields left out stay."""

    current_step: StepCount | None = _optional(TaskState, "current_step")
    progress_percent: float | None = _optional(TaskState, "progress_percent")
    status: StatusName | None = _optional(TaskState, "status")


class ScratchpadAppend(OwnerFields):
    """A note for the session's scratchpad."""

    text: Annotated[str, StringConstraints(min_length=1, pattern=NO_NUL)] = Field(
        description="The note (the server's scratchpad entry size limit applies)."
    )


class CheckpointCreate(OwnerFields):
    """A checkpoint of the session's keys, task state and scratchpad."""

    description: CheckpointDescription = ""


class ForkRequest(OwnerFields):
    """Where to fork the checkpoint to."""

    new_session: Identifier = Field(
        description="The new session's id: it starts with the checkpoint's state."
    )


class SpawnRequest(OwnerFields):
    """What a new session starts with."""

    initial_state: Json | None = Field(
        default=None, description="Keys to set at once (key -> JSON value)."
    )
    metadata: Metadata | None = Field(default=None, description="Kept with the task state.")
    task_id: Label | None = field_of(
        TaskState, "task_id", default=None, description="The task's id (default: the session's)."
    )
    total_steps: StepCount | None = field_of(TaskState, "total_steps")


class PauseRequest(OwnerFields):
    """How to mark the pause's checkpoint."""

    description: CheckpointDescription = ""


class ResumeRequest(OwnerFields):
    """Which checkpoint to resume from."""

    checkpoint_id: RecordId | None = Field(
        default=None, description="The checkpoint to restore (default: the latest)."
    )


class TerminateRequest(OwnerFields):
    """How the session ended: recorded as one episode (once), then cleaned up."""

    outcome: OutcomeName = field_of(Episode, "outcome", default=REQUIRED)
    task_description: Text | None = field_of(
        Episode,
        "description",
        default=None,
        description="What the task was (default: made from the task state and scratchpad).",
    )
    lessons_learned: list[Text] = field_of(
        Episode, "lessons_learned", max_length=MAX_TERMINATE_LESSONS
    )
    consolidate: bool = Field(default=True, description="Record the session as an episode.")
    cleanup: bool = Field(default=True, description="Remove the session's working state.")
    tokens_used: int | None = field_of(Episode, "tokens_used")
    task_type: Label = field_of(Episode, "task_type", default="session")


# -- pinned blocks -----------------------------------------------------------------------------


class BlockPut(OwnerFields):
    """A block's new content (and position)."""

    content: BlockContent = field_of(Block, "content", default=REQUIRED)
    position: BlockPosition | None = field_of(
        Block, "position", default=None, description="Where it stands (default: kept, or last)."
    )


class BlockAppend(OwnerFields):
    """Text to add at the end of a block."""

    text: BlockContent = Field(description="The text to append.")
    separator: Annotated[str, StringConstraints(max_length=MAX_SEPARATOR_CHARS, pattern=NO_NUL)] = (
        Field(default="\n", description="Put between the old content and the text.")
    )


# -- tenant-wide operations --------------------------------------------------------------------


class ReflectRequest(ScopeFields):
    """Which episodes to reflect on."""

    since: Instant | None = Field(default=None, description="Episodes that occurred from then.")
    until: Instant | None = Field(default=None, description="Episodes that occurred until then.")
    task_types: list[Label] | None = Field(
        default=None,
        max_length=MAX_TASK_TYPES,
        description="Only these task types (default: every one).",
    )
    baseline_days: float = Field(
        default=30.0,
        gt=0.0,
        le=MAX_BASELINE_DAYS,
        description="How many days back anomalies are measured against.",
    )


if TYPE_CHECKING:
    JobName = str
else:  # the consolidator's own job names, so the published enum follows them
    JobName = Literal[JOBS]


class ConsolidateRequest(_Body):
    """Which consolidation jobs to run."""

    dry_run: bool = Field(default=False, description="Report what would change; change nothing.")
    jobs: list[JobName] | None = Field(
        default=None, min_length=1, max_length=len(JOBS), description="Default: every job."
    )


class ForgetRequest(_Body):
    """What to erase: every condition given must hold (at least one is needed)."""

    user: Identifier | None = Field(default=None, description="Everything about this user.")
    session: Identifier | None = Field(default=None, description="Everything from this session.")
    before: Instant | None = Field(default=None, description="Everything from before then.")


class KeyRequest(_Body):
    """A key to issue: its tenant and what it is narrowed to."""

    tenant: Identifier = field_of(ApiKey, "tenant")
    project: Identifier | None = field_of(ApiKey, "project")
    user: Identifier | None = field_of(ApiKey, "user")
    agent: Identifier | None = field_of(ApiKey, "agent")
    label: KeyLabel | None = field_of(ApiKey, "label")
    read_only: bool = field_of(ApiKey, "read_only")
