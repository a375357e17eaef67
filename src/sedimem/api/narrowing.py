"""The scope of a request: the key's, narrowed by the fields the request names.

A request may name ``project``, ``user``, ``agent_type``, ``agent`` (and, off the session
routes, ``session``) in its query string or in its body; the same field given in both must
agree. :meth:`~sedimem.keys.ApiKey.narrow` then refuses (403) a field the key fixes to
another value. Records addressed by id are checked by the services with the key's scope
(:meth:`~sedimem.scope.Scope.reaches`): another tenant's id does not exist (404), a record
outside the key's narrowing is refused (403).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Query
from pydantic import BaseModel, ConfigDict

from sedimem.errors import ValidationError
from sedimem.keys import ApiKey
from sedimem.scope import Identifier, Scope
from sedimem.types.fields import field_of

__all__ = [
    "OwnerFields",
    "OwnerQuery",
    "ScopeFields",
    "ScopeQuery",
    "resolve",
]

_OWNER = ("project", "user", "agent_type", "agent")
_ALL = (*_OWNER, "session")
_KEY_FIELDS = ("project", "user", "agent")


class OwnerFields(BaseModel):
    """Narrowing a request may name; the session, when it matters, comes from the path."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)

    project: Identifier | None = field_of(Scope, "project")
    user: Identifier | None = field_of(Scope, "user")
    agent_type: Identifier | None = field_of(Scope, "agent_type")
    agent: Identifier | None = field_of(Scope, "agent")


class ScopeFields(OwnerFields):
    """Narrowing a request may name, a session included."""

    session: Identifier | None = field_of(Scope, "session")


def _query(name: str) -> Any:
    """A scope field as a query parameter, described as the scope describes it."""
    return Query(description=Scope.model_fields[name].description)


_Project = Annotated[Identifier | None, _query("project")]
_User = Annotated[Identifier | None, _query("user")]
_AgentType = Annotated[Identifier | None, _query("agent_type")]
_Agent = Annotated[Identifier | None, _query("agent")]
_Session = Annotated[Identifier | None, _query("session")]


def _owner_query(
    project: _Project = None,
    user: _User = None,
    agent_type: _AgentType = None,
    agent: _Agent = None,
) -> OwnerFields:
    return OwnerFields(project=project, user=user, agent_type=agent_type, agent=agent)


def _scope_query(
    project: _Project = None,
    user: _User = None,
    agent_type: _AgentType = None,
    agent: _Agent = None,
    session: _Session = None,
) -> ScopeFields:
    return ScopeFields(
        project=project, user=user, agent_type=agent_type, agent=agent, session=session
    )


OwnerQuery = Annotated[OwnerFields, Depends(_owner_query)]
ScopeQuery = Annotated[ScopeFields, Depends(_scope_query)]


def resolve(key: ApiKey, *given: OwnerFields | None, **fixed: str | None) -> Scope:
    """The key's scope narrowed by the fields of ``given`` and by ``fixed`` (path values)."""
    fields: dict[str, str | None] = {}
    for source in given:
        if source is None:
            continue
        for name in _ALL:
            value = getattr(source, name, None)
            if value is None:
                continue
            if fields.get(name, value) != value:
                raise ValidationError(
                    name, "is given twice with different values", allowed="one value"
                )
            fields[name] = value
    fields.update(fixed)
    return key.narrow(**fields)
