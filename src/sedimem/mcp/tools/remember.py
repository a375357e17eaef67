"""``remember``: write to working, episodic, semantic or procedural memory."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from sedimem.errors import ValidationError
from sedimem.mcp import limits
from sedimem.mcp.arguments import (
    Agent,
    AgentType,
    Confidence,
    Importance,
    Label,
    Metadata,
    OptionalTime,
    OutcomeName,
    Project,
    SessionFilter,
    Steps,
    TextList,
    Ttl,
    User,
    WorkingKey,
)
from sedimem.mcp.tools.base import ToolEnv, dump
from sedimem.scope import Scope
from sedimem.types.longterm import Episode, Fact, Procedure

__all__ = ["RememberTool"]

Tier = Literal["working", "episodic", "semantic", "procedural"]

#: The arguments each tier takes (scope fields and ``metadata`` aside), required ones first.
TIER_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "working": (("session", "key", "value"), ("ttl_seconds",)),
    "episodic": (
        ("description",),
        tuple(
            "outcome outcome_details actions lessons_learned task_type importance "
            "context_summary duration_seconds tokens_used input_text output_text occurred_at "
            "metadata".split()
        ),
    ),
    "semantic": (
        ("statement",),
        tuple(
            "subject predicate object confidence valid_from valid_to source_episode_ids "
            "cardinality metadata".split()
        ),
    ),
    "procedural": (("name", "trigger", "steps"), ("metadata",)),
}
_TIER_ARGS = frozenset(name for fields in TIER_FIELDS.values() for part in fields for name in part)

_SCOPE = ("project", "user", "agent_type", "agent", "session")


def _text(limit: int, description: str) -> Any:
    return Field(min_length=1, max_length=limit, description=description)


class RememberTool:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def remember(
        self,
        tier: Annotated[
            Tier,
            Field(
                description="Where to write: 'working' (session key-value state), 'episodic' "
                "(something that happened and how it ended), 'semantic' (a durable fact), "
                "'procedural' (named steps that accomplish a task)."
            ),
        ],
        session: SessionFilter = None,
        key: Annotated[WorkingKey | None, Field(description="working: the key to set.")] = None,
        value: Annotated[
            Any,
            Field(
                description="working: any JSON value except null (at most the server's "
                "max value size, 1 MiB by default)."
            ),
        ] = None,
        ttl_seconds: Ttl | None = None,
        description: Annotated[
            str | None,
            _text(limits.MAX_DESCRIPTION_CHARS, "episodic: what was attempted or happened."),
        ] = None,
        outcome: Annotated[
            OutcomeName | None, Field(description="episodic: how it ended (default success).")
        ] = None,
        outcome_details: Annotated[
            str | None, _text(limits.MAX_DETAILS_CHARS, "episodic: why it ended that way.")
        ] = None,
        actions: Annotated[
            TextList | None, Field(description="episodic: steps taken, in order.")
        ] = None,
        lessons_learned: Annotated[
            TextList | None, Field(description="episodic: what to do (or avoid) next time.")
        ] = None,
        task_type: Annotated[
            Label | None, Field(description="episodic: kind of task, e.g. 'booking'.")
        ] = None,
        importance: Annotated[
            Importance | None, Field(description="episodic: 0..1, default 0.5.")
        ] = None,
        context_summary: Annotated[
            str | None, _text(limits.MAX_DETAILS_CHARS, "episodic: the situation, briefly.")
        ] = None,
        duration_seconds: Annotated[
            float | None, Field(ge=0, description="episodic: how long it took.")
        ] = None,
        tokens_used: Annotated[
            int | None, Field(ge=0, description="episodic: tokens it consumed.")
        ] = None,
        input_text: Annotated[
            str | None, _text(limits.MAX_TRANSCRIPT_CHARS, "episodic: the user's message.")
        ] = None,
        output_text: Annotated[
            str | None, _text(limits.MAX_TRANSCRIPT_CHARS, "episodic: the agent's reply.")
        ] = None,
        occurred_at: Annotated[
            OptionalTime, Field(description="episodic: when it happened (default now).")
        ] = None,
        statement: Annotated[
            str | None,
            _text(limits.MAX_STATEMENT_CHARS, "semantic: the fact in one sentence."),
        ] = None,
        subject: Annotated[
            Label | None, Field(description="semantic: who or what the fact is about.")
        ] = None,
        predicate: Annotated[
            Label | None,
            Field(
                description="semantic: the relation, e.g. 'lives_in' (give subject too). A new "
                "value of a single-valued predicate supersedes the old one, kept as history."
            ),
        ] = None,
        object: Annotated[
            str | None, _text(limits.MAX_STATEMENT_CHARS, "semantic: the value.")
        ] = None,
        confidence: Annotated[
            Confidence | None, Field(description="semantic: 0..1, default 1.")
        ] = None,
        valid_from: Annotated[
            OptionalTime, Field(description="semantic: since when it is true (default now).")
        ] = None,
        valid_to: Annotated[
            OptionalTime, Field(description="semantic: until when it was true, if it ended.")
        ] = None,
        source_episode_ids: Annotated[
            TextList | None, Field(description="semantic: ids of episodes it was learned from.")
        ] = None,
        cardinality: Annotated[
            Literal["one", "many"] | None,
            Field(
                description="semantic: 'one' makes this value replace the current one of its "
                "subject and predicate (kept as history); 'many' adds it beside them. Default: "
                "the predicate's (see list_predicates)."
            ),
        ] = None,
        name: Annotated[
            Label | None, Field(description="procedural: the procedure's name.")
        ] = None,
        trigger: Annotated[
            str | None,
            _text(limits.MAX_DESCRIPTION_CHARS, "procedural: the task it is for."),
        ] = None,
        steps: Annotated[
            Steps | None, Field(description="procedural: the steps, in order.")
        ] = None,
        metadata: Metadata | None = None,
        project: Project = None,
        user: User = None,
        agent_type: AgentType = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Store a memory. Use tier='working' for state of the current session (needs session,
        key, value; optional ttl_seconds), 'episodic' after finishing or failing a task
        (description, outcome, actions, lessons_learned, importance...), 'semantic' for a
        durable fact worth knowing later (statement, optionally subject/predicate/object), and
        'procedural' for a reusable recipe (name, trigger, steps; the same name again makes a
        new version). Arguments of another tier are refused. Returns the stored record's id
        (and, for a fact, whether it was inserted, reinforced or superseded an older value,
        the ids it superseded, and possible_conflicts: current values of the same subject
        and predicate it did not replace; edit_memory, invalidate_fact or cardinality='one'
        settle them)."""
        arguments = dict(locals())  # first statement: exactly the tool's arguments
        given = {n: v for n, v in arguments.items() if n in _TIER_ARGS and v is not None}
        fields = _check_tier(tier, given)
        scope = self._env.scope(
            project=project, user=user, agent_type=agent_type, agent=agent, session=session
        )
        if tier == "working":
            return await self._working(scope, given)
        if tier == "episodic":
            episode = await self._env.memory.episodes.record(Episode(scope=scope, **fields))
            return {"tier": tier, "id": episode.id, "record": dump(episode)}
        if tier == "semantic":
            learned = await self._env.memory.facts.learn(Fact(scope=scope, **fields))
            answer: dict[str, Any] = {
                "tier": tier,
                "id": learned.fact.id,
                "action": learned.action,
                "superseded": learned.superseded,
                "closed": [f.id for f in learned.closed],
                "record": dump(learned.fact),
            }
            if learned.possible_conflicts:
                answer["possible_conflicts"] = [
                    {"id": f.id, "object": f.object, "statement": f.statement}
                    for f in learned.possible_conflicts
                ]
            return answer
        procedure = await self._env.memory.procedures.record(Procedure(scope=scope, **fields))
        return {
            "tier": tier,
            "id": procedure.id,
            "version": procedure.version,
            "record": dump(procedure),
        }

    async def _working(self, scope: Scope, given: dict[str, Any]) -> dict[str, Any]:
        ttl = given.get("ttl_seconds")
        await self._env.memory.working(scope).set(given["key"], given["value"], ttl)
        return {
            "tier": "working",
            "session": scope.session,
            "key": given["key"],
            "ttl_seconds": ttl,
        }


def _check_tier(tier: str, given: dict[str, Any]) -> dict[str, Any]:
    """The given arguments of ``tier`` (scope aside); refuse missing and foreign ones."""
    required, optional = TIER_FIELDS[tier]
    for field in required:
        if field not in given:
            raise ValidationError(field, f"is required for tier {tier!r}")
    own = set(required) | set(optional)
    for field in given:
        if field not in own and field not in _SCOPE:
            raise ValidationError(
                field,
                f"is not used by tier {tier!r}",
                allowed=", ".join((*required, *optional)) + " and scope fields",
            )
    return {f: v for f, v in given.items() if f not in _SCOPE}
