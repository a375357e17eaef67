"""Request bodies: what a client may send, with the limits the OpenAPI schema publishes.

Every body refuses unknown fields (``tenant`` above all: it comes from the API key), NaN
and infinities. The limits repeat the records' own (``sedimem.types``) so that a client
reads them in the schema; the records validate again when they are built.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, StrictBool

from sedimem.api.narrowing import OwnerFields, ScopeFields
from sedimem.consolidation import JOBS
from sedimem.context.models import ContextFormat, Tier
from sedimem.longterm.search import Mode
from sedimem.scope import Identifier, Scope
from sedimem.types.blocks import MAX_BLOCK_CHARS
from sedimem.types.longterm import Episode, Fact, Label, Outcome, Procedure, Text
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
    "FactIn",
    "ForgetRequest",
    "ForkRequest",
    "Instant",
    "KeyRequest",
    "KvPut",
    "MatchRequest",
    "OutcomeRequest",
    "PauseRequest",
    "ProcedureIn",
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


def _in_utc(value: datetime) -> datetime:
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:  # 0001-01-01T00:00+05:00 has no UTC equivalent
        raise ValueError("lies outside the years 1..9999 in UTC") from exc


#: A point in time with its UTC offset, normalised to UTC.
Instant = Annotated[AwareDatetime, AfterValidator(_in_utc)]
QueryText = Annotated[str, Field(min_length=1, max_length=10_000)]
Json = dict[str, Any]
Count = Annotated[int, Field(ge=0, le=1_000_000_000)]
_SCOPE_NAMES = frozenset({"project", "user", "agent_type", "agent", "session"})


def time_range(since: datetime | None, until: datetime | None) -> tuple[datetime, datetime] | None:
    """``(since, until)`` with an open end filled in; ``None`` when neither is given."""
    if since is None and until is None:
        return None
    return (since or EARLIEST, until or LATEST)


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def _record_fields(body: BaseModel) -> dict[str, Any]:
    """The body's own fields (not its scope narrowing), leaving unset ones to the record."""
    return {name: value for name, value in body if name not in _SCOPE_NAMES and value is not None}


# -- long-term records ---------------------------------------------------------------------


class EpisodeIn(ScopeFields):
    """One unit of experience (the server gives it its id)."""

    task_type: Label = "general"
    description: Text
    actions: list[Text] = Field(default_factory=list, max_length=10_000)
    outcome: Outcome = Outcome.SUCCESS
    outcome_details: str = Field(default="", max_length=100_000)
    context_summary: str = Field(default="", max_length=100_000)
    lessons_learned: list[Text] = Field(default_factory=list, max_length=10_000)
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    duration_seconds: float | None = Field(default=None, ge=0, le=1e10)
    tokens_used: int | None = Field(default=None, ge=0, le=10**15)
    input_text: str | None = Field(default=None, max_length=100_000)
    output_text: str | None = Field(default=None, max_length=100_000)
    occurred_at: Instant | None = None
    metadata: Json = Field(default_factory=dict)

    def to_record(self, scope: Scope) -> Episode:
        return Episode(scope=scope, **_record_fields(self))


class FactIn(ScopeFields):
    """A statement, optionally subject / predicate / object, true from ``valid_from``."""

    statement: Text
    subject: Label | None = None
    predicate: Label | None = None
    object: str | None = Field(default=None, max_length=10_000)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source_episode_ids: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=10_000
    )
    valid_from: Instant | None = None
    valid_to: Instant | None = None
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


class MatchRequest(ScopeFields):
    task_description: QueryText
    k: int = Field(default=5, ge=1, le=1000)
    mode: Mode = "hybrid"


class OutcomeRequest(_Body):
    success: StrictBool


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
    outcome: Outcome | None = Field(default=None, description="Episodes only.")
    task_type: Label | None = Field(default=None, description="Episodes only.")
    since: Instant | None = Field(default=None, description="Episodes that occurred from then.")
    until: Instant | None = Field(default=None, description="Episodes that occurred until then.")
    min_importance: float | None = Field(default=None, ge=0.0, le=1.0)
    valid_at: Instant | None = Field(default=None, description="Facts true then (default now).")
    known_at: Instant | None = Field(default=None, description="Facts as believed then.")
    subject: Label | None = Field(default=None, description="Facts only.")
    predicate: Label | None = Field(default=None, description="Facts only.")
    include_history: bool = Field(default=False, description="Facts of any world time.")


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
    task_id: str = Field(min_length=1, max_length=256)
    status: TaskStatus = TaskStatus.PENDING
    current_step: Count = 0
    total_steps: Count | None = None
    progress_percent: float = Field(default=0.0, ge=0.0, le=100.0)
    metadata: Json = Field(default_factory=dict)

    def to_state(self) -> TaskState:
        return TaskState(**_record_fields(self))


class TaskPatch(OwnerFields):
    current_step: Count | None = None
    progress_percent: float | None = Field(default=None, ge=0.0, le=100.0)
    status: TaskStatus | None = None


class ScratchpadAppend(OwnerFields):
    text: str = Field(min_length=1)


class CheckpointCreate(OwnerFields):
    description: str = Field(default="", max_length=1024)


class ForkRequest(OwnerFields):
    new_session: Identifier


class SpawnRequest(OwnerFields):
    initial_state: Json | None = None
    metadata: Json | None = None
    task_id: str | None = Field(default=None, min_length=1, max_length=256)
    total_steps: Count | None = None


class PauseRequest(OwnerFields):
    description: str = Field(default="", max_length=1024)


class ResumeRequest(OwnerFields):
    checkpoint_id: str | None = Field(
        default=None, min_length=1, max_length=64, description="Default: the latest."
    )


class TerminateRequest(OwnerFields):
    outcome: Outcome
    task_description: Text | None = None
    lessons_learned: list[Text] = Field(default_factory=list, max_length=1000)
    consolidate: bool = Field(default=True, description="Record the session as an episode.")
    cleanup: bool = Field(default=True, description="Remove the session's working state.")
    tokens_used: int | None = Field(default=None, ge=0, le=10**15)
    task_type: Label = "session"


# -- pinned blocks -----------------------------------------------------------------------------


class BlockPut(OwnerFields):
    content: str = Field(max_length=MAX_BLOCK_CHARS)
    position: int | None = Field(default=None, ge=0, le=1_000_000)


class BlockAppend(OwnerFields):
    text: str = Field(max_length=MAX_BLOCK_CHARS)
    separator: str = Field(default="\n", max_length=16)


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
    label: str | None = Field(default=None, max_length=200)
