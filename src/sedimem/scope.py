"""Where a memory lives: the :class:`Scope` and its visibility rule.

A scope names a tenant (the hard isolation boundary) and, optionally, a project, user,
agent type, agent instance and session. Working memory is addressed by a full session
scope; long-term memories carry the fields they were written with.
"""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Self

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic import ValidationError as PydanticValidationError

from sedimem.errors import PermissionDenied, ValidationError
from sedimem.limits import MAX_SCOPE_CHARS

__all__ = ["DEFAULT_TENANT", "SCOPE_FIELDS", "SYSTEM_TENANT", "Identifier", "Scope"]

#: A scope identifier: 1..MAX_SCOPE_CHARS printable characters.
Identifier = Annotated[
    str,
    StringConstraints(min_length=1, max_length=MAX_SCOPE_CHARS, pattern=r"^[^\x00-\x1f\x7f]+$"),
]

#: The tenant sedimem keeps its own records under (API keys). Its control character can
#: never appear in a client's scope, so no request can read, erase or export it.
SYSTEM_TENANT = "\x1fsedimem"

#: The tenant of a scope that names none.
DEFAULT_TENANT = "default"

SCOPE_FIELDS = ("tenant", "project", "user", "agent_type", "agent", "session")
_OWNER_FIELDS = ("project", "user", "agent_type", "agent")


def _refusal(exc: PydanticValidationError) -> ValidationError:
    first = exc.errors()[0]
    field = "scope." + ".".join(str(p) for p in first["loc"])
    return ValidationError(
        field, first["msg"], allowed=f"1..{MAX_SCOPE_CHARS} printable characters, or unset"
    )


class Scope(BaseModel):
    """Locates memories. ``tenant`` is always set; the other fields narrow it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tenant: Identifier = Field(
        default=DEFAULT_TENANT,
        description="The isolation boundary: nothing crosses tenants (over REST and MCP it "
        "comes from the API key, never from a request).",
    )
    project: Identifier | None = Field(
        default=None,
        description="The project; unset on a memory: shared by the tenant's projects; unset "
        "on a read: every project.",
        examples=["billing"],
    )
    user: Identifier | None = Field(
        default=None,
        description="The user a memory is about; a memory naming a user is visible only to "
        "reads naming that user.",
        examples=["ana"],
    )
    agent_type: Identifier | None = Field(
        default=None,
        description="The kind of agent; memories filed at this level are shared by its instances.",
        examples=["support-bot"],
    )
    agent: Identifier | None = Field(
        default=None,
        description="One agent instance; what it files privately its siblings do not see.",
    )
    session: Identifier | None = Field(
        default=None,
        description="The session: the address of working memory; on a long-term memory, "
        "where it came from (provenance, not a boundary).",
        examples=["s-42"],
    )

    def __init__(
        self,
        *,
        tenant: str = DEFAULT_TENANT,
        project: str | None = None,
        user: str | None = None,
        agent_type: str | None = None,
        agent: str | None = None,
        session: str | None = None,
    ) -> None:
        """A scope; a field that is not an identifier raises our
        :class:`~sedimem.errors.ValidationError` naming it (``scope.user``), not pydantic's."""
        try:
            super().__init__(
                tenant=tenant,
                project=project,
                user=user,
                agent_type=agent_type,
                agent=agent,
                session=session,
            )
        except PydanticValidationError as exc:
            raise _refusal(exc) from exc

    # Pydantic calls a model's own ``__init__`` when it validates one nested in another (a
    # record's ``scope``), which would check every scope read back twice. This one only
    # translates errors, and the enclosing record translates its own, so it is marked as
    # the base initializer: nested scopes are validated by the schema alone.
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def parse(cls, **fields: str | None) -> Self:
        """A scope from a mapping of fields (an unknown one is refused, naming it)."""
        try:
            return cls.model_validate(fields)
        except PydanticValidationError as exc:
            raise _refusal(exc) from exc

    def with_session(self, session: str) -> Scope:
        """The same scope for another session."""
        return Scope.parse(**{**self.model_dump(), "session": session})

    @property
    def owner(self) -> Scope:
        """The scope without its session: who a durable memory belongs to."""
        return self if self.session is None else self.model_copy(update={"session": None})

    def require_session(self) -> None:
        """Refuse a scope that does not address one session."""
        if self.session is None:
            raise ValidationError(
                "scope.session", "working memory needs a session", allowed="a session id"
            )

    @property
    def canonical(self) -> str:
        """A stable text identity of the scope (same fields -> same string)."""
        return json.dumps([getattr(self, f) for f in SCOPE_FIELDS], separators=(",", ":"))

    @classmethod
    def from_canonical(cls, text: str) -> Scope | None:
        """The scope whose :attr:`canonical` is ``text``; None when it is not one."""
        try:
            values = json.loads(text)
            if not isinstance(values, list) or len(values) != len(SCOPE_FIELDS):
                return None
            return Scope.parse(**dict(zip(SCOPE_FIELDS, values, strict=True)))
        except (ValueError, TypeError, ValidationError):
            return None

    @property
    def digest(self) -> str:
        """A short stable hash of :attr:`canonical`, safe inside store key names."""
        return hashlib.blake2b(self.canonical.encode(), digest_size=12).hexdigest()

    def reaches(self, record: Scope, *, change: bool = False) -> bool:
        """Whether a long-term record filed under ``record`` may be read (or, with
        ``change``, edited or deleted) by id through this scope.

        The rule of addressing one record by its id, the same for every interface: on each
        of project, user, agent type and agent that this scope names, the record must name
        the same value or, for a read, none (a shared record: every scope sees it; only a
        scope naming none of those fields may change it). Fields this scope leaves unset do
        not constrain: a tenant-wide caller reaches every record of its tenant. ``session``
        is provenance on a long-term record, never a boundary.
        """
        if record.tenant != self.tenant:
            return False
        for name in _OWNER_FIELDS:
            mine, theirs = getattr(self, name), getattr(record, name)
            if mine is None or theirs == mine:
                continue
            if theirs is None and not change:
                continue
            return False
        return True

    def ensure_reaches(self, record: Scope, what: str, *, change: bool = False) -> None:
        """Refuse (``PermissionDenied``) a record this scope may not address by id."""
        if self.reaches(record, change=change):
            return
        named = ", ".join(
            f"{n}={getattr(self, n)!r}" for n in _OWNER_FIELDS if getattr(self, n) is not None
        )
        verb = "changed" if change else "read"
        raise PermissionDenied(f"{what} cannot be {verb} from a scope narrowed to {named}")
