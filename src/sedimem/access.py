"""Who is acting: :class:`Access`, and the operation rules checked against it.

An interface builds an ``Access`` at its edge (REST and MCP from the API key,
:attr:`sedimem.keys.ApiKey.access`; the CLI and an embedded program as the deployment's
owner, :meth:`Access.local`) and hands it to the service calls that have a rule: erasure,
export, import, consolidation, key management. The services check each rule once, here,
and refuse with :class:`~sedimem.errors.PermissionDenied` naming the ``field`` of the access
that stops it; REST answers that with 403 problem+json and MCP with an error result, so
every interface refuses the same way.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field

from sedimem.errors import PermissionDenied, ValidationError
from sedimem.scope import Identifier, Scope

__all__ = ["LOCAL", "NARROWING_FIELDS", "Access"]

#: The scope fields a key may be narrowed to.
NARROWING_FIELDS = ("project", "user", "agent")


class Access(BaseModel):
    """What a caller may reach: a tenant, optionally narrowed, optionally read-only.

    ``admin`` is the deployment's operator (the admin key, the local command line): it
    may issue, list and revoke any tenant's keys.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant: Identifier = Field(description="The tenant every operation acts in.")
    project: Identifier | None = Field(
        default=None, description="The project the caller is narrowed to (unset: any)."
    )
    user: Identifier | None = Field(
        default=None, description="The user the caller is narrowed to (unset: any)."
    )
    agent: Identifier | None = Field(
        default=None, description="The agent the caller is narrowed to (unset: any)."
    )
    read_only: bool = Field(default=False, description="May read but never write or erase.")
    admin: bool = Field(default=False, description="The deployment's operator (every tenant).")
    key_id: str | None = Field(
        default=None, description="The id of the API key acting (unset: no key)."
    )

    @classmethod
    def local(cls, tenant: str = "default") -> Self:
        """The whole of ``tenant``, writes and key management included: the owner of an
        embedded store (a program that opened it, the command line)."""
        return cls(tenant=tenant, admin=True)

    @property
    def scope(self) -> Scope:
        """The widest scope the caller may address."""
        return Scope(tenant=self.tenant, project=self.project, user=self.user, agent=self.agent)

    @property
    def narrowed(self) -> tuple[str, ...]:
        """The fields the caller is narrowed to, in scope order."""
        return tuple(f for f in NARROWING_FIELDS if getattr(self, f) is not None)

    def narrow(self, **requested: str | None) -> Scope:
        """The caller's scope narrowed by a request's fields.

        A field the access fixes may be repeated but not changed (``PermissionDenied``); a
        field it leaves open is taken from the request. ``tenant`` is never accepted.
        """
        fixed = self.scope
        fields: dict[str, str | None] = {"tenant": self.tenant}
        for name, value in requested.items():
            if name == "tenant":
                raise ValidationError("tenant", "comes from the API key", allowed="omit it")
            own = getattr(fixed, name, None)
            if own is not None and value is not None and value != own:
                raise PermissionDenied(f"this key is restricted to {name}={own!r}", field=name)
            fields[name] = own if own is not None else value
        for name in NARROWING_FIELDS:
            fields.setdefault(name, getattr(fixed, name))
        return Scope.parse(**fields)

    def require_writer(self, operation: str) -> None:
        """Refuse ``operation`` (a write) to a read-only caller."""
        if self.read_only:
            raise PermissionDenied(f"this key is read-only: {operation} writes", field="read_only")

    def require_tenant_wide(self, operation: str) -> None:
        """Refuse ``operation`` (it spans the tenant) to a caller narrowed below it."""
        if narrowed := self.narrowed:
            raise PermissionDenied(
                f"{operation} spans the tenant; this key is restricted to {', '.join(narrowed)}",
                field=narrowed[0],
            )

    def require_user_at_most(self, operation: str) -> None:
        """Refuse ``operation`` to a caller narrowed to a project or an agent: a user's
        data (what erasure and export address) spans projects and agents."""
        narrowed = [f for f in ("project", "agent") if getattr(self, f) is not None]
        if narrowed:
            raise PermissionDenied(
                f"{operation} spans projects and agents; this key is restricted to "
                f"{', '.join(narrowed)}",
                field=narrowed[0],
            )

    def require_admin(self, operation: str) -> None:
        """Refuse ``operation`` to anyone but the deployment's operator."""
        if not self.admin:
            raise PermissionDenied(f"{operation} needs the admin key", field="admin")


#: The access of a program that opened an embedded store for itself (and of the command
#: line): the whole of the ``default`` tenant, writes and key management included. The
#: operations with a rule default to it; a program serving several callers passes each
#: caller's own access (``ApiKey.access``) instead.
LOCAL = Access.local()
