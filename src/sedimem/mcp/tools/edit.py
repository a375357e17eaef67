"""``edit_memory``, ``delete_memory``, ``invalidate_fact`` and the predicate tools: change
long-term memory by id, and declare which predicates hold one value at a time.

The services decide who may change what (``Scope.reaches``): another tenant's id does not
exist, a record outside the key's narrowing is refused. The fields an edit takes per tier
are those of the tier's ``*Changes`` type.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from sedimem.errors import NotFound, ValidationError
from sedimem.mcp import limits
from sedimem.mcp.arguments import (
    Confidence,
    Importance,
    Label,
    Metadata,
    OptionalTime,
    OutcomeName,
    RecordId,
    Steps,
    TextList,
    TierName,
)
from sedimem.mcp.tools.base import ToolEnv, dump
from sedimem.types.edits import (
    MAX_PREDICATES_PER_CALL,
    EpisodeChanges,
    FactChanges,
    ProcedureChanges,
)

__all__ = ["EDITABLE", "EditTools"]

#: The fields ``edit_memory`` changes, per tier: those of the tier's changes type.
EDITABLE: dict[str, type[EpisodeChanges] | type[FactChanges] | type[ProcedureChanges]] = {
    "episodic": EpisodeChanges,
    "semantic": FactChanges,
    "procedural": ProcedureChanges,
}

_Id = Annotated[RecordId, Field(description="The record's id, from an earlier result.")]
_Predicate = Annotated[str, Field(min_length=1, max_length=limits.MAX_LABEL_CHARS)]


def _text(limit: int, description: str) -> Any:
    return Field(min_length=1, max_length=limit, description=description)


class EditTools:
    def __init__(self, env: ToolEnv) -> None:
        self._env = env

    async def edit_memory(
        self,
        tier: Annotated[TierName, Field(description="The tier the record is in.")],
        id: _Id,
        description: Annotated[
            str | None, _text(limits.MAX_DESCRIPTION_CHARS, "episodic: what happened.")
        ] = None,
        outcome: Annotated[OutcomeName | None, Field(description="episodic.")] = None,
        outcome_details: Annotated[
            str | None, _text(limits.MAX_DETAILS_CHARS, "episodic: why it ended so.")
        ] = None,
        actions: Annotated[TextList | None, Field(description="episodic: steps taken.")] = None,
        lessons_learned: Annotated[TextList | None, Field(description="episodic.")] = None,
        task_type: Annotated[Label | None, Field(description="episodic.")] = None,
        importance: Annotated[Importance | None, Field(description="episodic: 0..1.")] = None,
        context_summary: Annotated[
            str | None, _text(limits.MAX_DETAILS_CHARS, "episodic: the situation.")
        ] = None,
        statement: Annotated[
            str | None, _text(limits.MAX_STATEMENT_CHARS, "semantic: the corrected sentence.")
        ] = None,
        object: Annotated[
            str | None, _text(limits.MAX_STATEMENT_CHARS, "semantic: the corrected value.")
        ] = None,
        confidence: Annotated[Confidence | None, Field(description="semantic: 0..1.")] = None,
        valid_from: Annotated[
            OptionalTime, Field(description="semantic: since when it is true.")
        ] = None,
        valid_to: Annotated[
            OptionalTime, Field(description="semantic: until when it was true.")
        ] = None,
        trigger: Annotated[
            str | None, _text(limits.MAX_DESCRIPTION_CHARS, "procedural: the task it is for.")
        ] = None,
        steps: Annotated[
            Steps | None, Field(description="procedural: new steps (its next version).")
        ] = None,
        metadata: Metadata | None = None,
    ) -> dict[str, Any]:
        """Change a stored memory by id; only the fields given change, and only those of its
        tier (episodic: description, outcome, ..., importance; semantic: statement, object,
        confidence, valid_from, valid_to; procedural: trigger, steps; all: metadata). A
        fact is corrected as a new version (new id; the old one is kept as history); a fact
        that was superseded cannot be edited: the error names the current one. Returns the
        changed record (for a fact: the new version and the id it replaced)."""
        arguments = dict(locals())  # first statement: exactly the tool's arguments
        kind = EDITABLE[tier]
        given = {
            n: v for n, v in arguments.items()
            if n not in ("self", "tier", "id") and v is not None
        }  # fmt: skip
        for name in given:
            if name not in kind.model_fields:
                raise ValidationError(
                    name, f"is not editable in tier {tier!r}",
                    allowed=", ".join(kind.model_fields),
                )  # fmt: skip
        if not given:
            raise ValidationError(
                "changes", "name at least one field to change", allowed=", ".join(kind.model_fields)
            )
        scope = self._env.scope()
        memory = self._env.memory
        if tier == "episodic":
            episode = await memory.episodes.update(id, EpisodeChanges(**given), scope=scope)
            return {"tier": tier, "id": episode.id, "record": dump(episode)}
        if tier == "semantic":
            learned = await memory.facts.correct(id, FactChanges(**given), scope=scope)
            return {
                "tier": tier,
                "id": learned.fact.id,
                "superseded": learned.superseded,
                "record": dump(learned.fact),
            }
        procedure = await memory.procedures.update(id, ProcedureChanges(**given), scope=scope)
        return {"tier": tier, "id": procedure.id, "record": dump(procedure)}

    async def delete_memory(
        self,
        tier: Annotated[TierName, Field(description="The tier the record is in.")],
        id: _Id,
    ) -> dict[str, Any]:
        """Delete one stored memory (an episode, one version of a fact, or a procedure) by
        id, for good. To stop believing a fact but keep its history, use invalidate_fact.
        Returns the id deleted."""
        scope = self._env.scope()
        memory = self._env.memory
        if tier == "episodic":
            deleted = await memory.episodes.delete(id, scope=scope)
        elif tier == "semantic":
            deleted = await memory.facts.delete(id, scope=scope)
        else:
            deleted = await memory.procedures.delete(id, scope=scope)
        if not deleted:
            raise NotFound(f"{tier} memory {id!r} does not exist")
        return {"tier": tier, "deleted": id}

    async def invalidate_fact(self, id: _Id) -> dict[str, Any]:
        """Stop believing a fact: it leaves recall and assembled contexts but stays in its
        history (asked with known_at). Idempotent. Returns the fact with invalidated_at."""
        fact = await self._env.memory.facts.invalidate(id, scope=self._env.scope())
        return {"id": fact.id, "record": dump(fact)}

    async def declare_predicates(
        self,
        predicates: Annotated[
            list[_Predicate],
            Field(
                min_length=1,
                max_length=MAX_PREDICATES_PER_CALL,
                description=f"1..{MAX_PREDICATES_PER_CALL} predicates, e.g. 'prefers_seat'.",
            ),
        ],
        cardinality: Annotated[
            Literal["one", "many"],
            Field(
                description="'one': a new value supersedes the current one (history kept); "
                "'many': values accumulate."
            ),
        ] = "one",
    ) -> dict[str, Any]:
        """Declare, for the whole tenant and durably, how many values predicates hold: with
        'one', storing prefers_seat=aisle after prefers_seat=window leaves only aisle
        current. Needs a key narrowed to nothing. Returns the tenant's single-valued
        predicates."""
        declared = await self._env.memory.facts.declare(
            predicates, cardinality, scope=self._env.scope()
        )
        return dump(declared)

    async def list_predicates(self) -> dict[str, Any]:
        """Which predicates are single-valued for your tenant (a new value replaces the
        current one): the configured defaults, the tenant's own declarations, and the
        resulting set."""
        tenant = self._env.key().tenant
        return dump(await self._env.memory.facts.predicates(tenant=tenant))
