"""API keys: credentials bound to a tenant (and optionally narrowed), stored hashed.

A key is shown once, when it is created: ``sdm_<43 url-safe characters>`` (256 random bits).
The store keeps only its SHA-256, so a leaked database yields no usable key; a fast hash is
right here because the secret is random, not a password. Keys live in the long-term store
under :data:`~sedimem.scope.SYSTEM_TENANT`, a tenant no client scope can name, so no
tenant's reads, erasures or exports ever see them.

The REST and MCP layers resolve every request's scope from its key: the tenant, and any
project, user or agent the key is narrowed to, come from here and never from the request.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from sedimem.access import LOCAL, Access
from sedimem.clock import Clock, SystemClock, utc_from_timestamp
from sedimem.errors import NotFound, PermissionDenied
from sedimem.ids import new_id
from sedimem.limits import MAX_KEY_LABEL_CHARS
from sedimem.scope import SYSTEM_TENANT, Identifier, Scope
from sedimem.storage.longterm.base import (
    LongTermStore,
    RecordFilter,
    StoredRecord,
    internal_record,
)
from sedimem.types._base import Model
from sedimem.types.text import NO_NUL

__all__ = [
    "API_KEY",
    "ApiKey",
    "ApiKeys",
    "IssuedKey",
    "KeyLabel",
    "hash_secret",
    "recording_callers",
]

#: A key's label: a note on what it is for.
KeyLabel = Annotated[str, StringConstraints(max_length=MAX_KEY_LABEL_CHARS, pattern=NO_NUL)]

API_KEY = "apikey"
_PREFIX = "sdm_"
_PAGE = 1000


def hash_secret(secret: str) -> str:
    """The at-rest form of a key (hex SHA-256)."""
    return hashlib.sha256(secret.encode()).hexdigest()


class ApiKey(Model):
    """A key's public description: who it stands for. Never holds the secret."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="The key's id (not its secret): to revoke it.")
    tenant: Identifier = Field(description="The tenant every request with the key acts in.")
    project: Identifier | None = Field(
        default=None, description="The project the key is narrowed to (unset: any)."
    )
    user: Identifier | None = Field(
        default=None, description="The user the key is narrowed to (unset: any)."
    )
    agent: Identifier | None = Field(
        default=None, description="The agent the key is narrowed to (unset: any)."
    )
    label: KeyLabel | None = Field(default=None, description="A note on what the key is for.")
    read_only: bool = Field(
        default=False, description="May read (and search, assemble) but never write or erase."
    )
    created_at: datetime = Field(description="When it was issued.")
    revoked_at: datetime | None = Field(
        default=None, description="When it was revoked (unset: it works)."
    )

    @property
    def access(self) -> Access:
        """What a request with this key may reach: the services check their rules on it."""
        return Access(
            tenant=self.tenant,
            project=self.project,
            user=self.user,
            agent=self.agent,
            read_only=self.read_only,
            key_id=self.id,
        )

    @property
    def scope(self) -> Scope:
        """The widest scope the key may address."""
        return self.access.scope

    def narrow(self, **requested: str | None) -> Scope:
        """The key's scope narrowed by a request's fields (see :meth:`Access.narrow`)."""
        return self.access.narrow(**requested)


class IssuedKey(BaseModel):
    """A newly created key: ``secret`` is shown this once and stored only as a hash."""

    model_config = ConfigDict(frozen=True)

    key: ApiKey
    secret: str


_callers: ContextVar[list[ApiKey] | None] = ContextVar("sedimem_callers", default=None)


@contextmanager
def recording_callers() -> Iterator[list[ApiKey]]:
    """Within, every key :meth:`ApiKeys.authenticate` resolves (in this context and the
    tasks it starts) is appended to the list yielded: a server's access log names the caller
    of a request without a second lookup, whichever interface authenticated it."""
    seen: list[ApiKey] = []
    token = _callers.set(seen)
    try:
        yield seen
    finally:
        _callers.reset(token)


class ApiKeys:
    """Create, list, revoke and authenticate API keys."""

    def __init__(self, store: LongTermStore, *, clock: Clock | None = None) -> None:
        self._store = store
        self._clock = clock or SystemClock()

    async def create(
        self,
        tenant: str,
        *,
        access: Access = LOCAL,
        project: str | None = None,
        user: str | None = None,
        agent: str | None = None,
        label: str | None = None,
        read_only: bool = False,
    ) -> IssuedKey:
        """Issue a key of ``tenant`` (the operator only: ``access.admin``)."""
        access.require_admin("issuing a key")
        scope = Scope.parse(tenant=tenant, project=project, user=user, agent=agent)
        key = ApiKey(
            id=new_id(),
            tenant=scope.tenant,
            project=scope.project,
            user=scope.user,
            agent=scope.agent,
            label=label,
            read_only=read_only,
            created_at=utc_from_timestamp(self._clock.now()),
        )
        secret = _PREFIX + secrets.token_urlsafe(32)
        await self._store.put(SYSTEM_TENANT, [_row(key, hash_secret(secret))])
        return IssuedKey(key=key, secret=secret)

    async def _list(self, tenant: str | None, *, include_revoked: bool) -> list[ApiKey]:
        flt = RecordFilter(kind=API_KEY, subject=tenant)  # the store filters by tenant
        keys: list[ApiKey] = []
        cursor: str | None = None
        while page := await self._store.find(SYSTEM_TENANT, flt, limit=_PAGE, after=cursor):
            keys += [ApiKey.from_stored(r.body) for r in page]
            cursor = page[-1].id
        return [k for k in keys if include_revoked or not k.revoked_at]

    async def list(
        self, tenant: str | None = None, *, include_revoked: bool = False, access: Access = LOCAL
    ) -> list[ApiKey]:
        """Keys, oldest first (of one tenant when ``tenant`` is given), page by page (the
        operator only: ``access.admin``)."""
        access.require_admin("listing keys")
        return await self._list(tenant, include_revoked=include_revoked)

    async def count(self) -> int:
        """How many keys exist, revoked ones included."""
        return await self._store.count(SYSTEM_TENANT, RecordFilter(kind=API_KEY))

    async def revoke(self, key_id: str, *, access: Access = LOCAL) -> ApiKey:
        """Revoke a key (idempotent). The operator may revoke any key; a key of the tenant
        may revoke itself, and one narrowed to nothing the tenant's other keys (another
        tenant's key does not exist for it: NotFound). A read-only key may not."""
        tenant: str | None = None
        if not access.admin:
            access.require_writer("revoking a key")
            if key_id != access.key_id:  # a narrowed key may give itself up, not a wider key
                access.require_tenant_wide("revoking another key")
            tenant = access.tenant
        revoked: list[ApiKey] = []

        def decide(rows: list[StoredRecord]) -> list[StoredRecord]:
            if not rows:
                return []
            key = ApiKey.from_stored(rows[0].body)
            if tenant is not None and key.tenant != tenant:
                return []
            if key.revoked_at is None:
                key = key.model_copy(update={"revoked_at": utc_from_timestamp(self._clock.now())})
            revoked.append(key)
            assert rows[0].name is not None  # every key row carries its hash
            return [_row(key, rows[0].name)]

        await self._store.update_locked(
            SYSTEM_TENANT, f"apikey:{key_id}", RecordFilter(kind=API_KEY, ids=(key_id,)), decide
        )
        if not revoked:
            raise NotFound(f"API key {key_id!r} does not exist")
        return revoked[0]

    async def erase_user(self, tenant: str, user: str) -> int:
        """Delete the keys of ``tenant`` narrowed to ``user``, revoked ones too: after the
        user is erased, no key keeps their id or can file new memories under it. Returns how
        many were deleted; a request with one of them is then refused as an invalid key."""
        doomed = [k.id for k in await self._list(tenant, include_revoked=True) if k.user == user]
        deleted = 0
        for start in range(0, len(doomed), _PAGE):
            deleted += await self._store.delete(SYSTEM_TENANT, doomed[start : start + _PAGE])
        return deleted

    async def authenticate(self, secret: str) -> ApiKey:
        """The live key with this secret; ``PermissionDenied`` for anything else."""
        if not secret.startswith(_PREFIX) or len(secret) > 200:
            raise PermissionDenied("invalid API key")
        rows = await self._store.find(
            SYSTEM_TENANT, RecordFilter(kind=API_KEY, name=hash_secret(secret)), limit=1
        )
        if not rows:
            raise PermissionDenied("invalid API key")
        key = ApiKey.from_stored(rows[0].body)
        if key.revoked_at is not None:
            raise PermissionDenied("this API key has been revoked")
        if (seen := _callers.get()) is not None:
            seen.append(key)
        return key


def _row(key: ApiKey, secret_hash: str) -> StoredRecord:
    row = internal_record(
        API_KEY,
        SYSTEM_TENANT,
        key.id,
        key.model_dump_json(),
        key.created_at.timestamp(),
        name=secret_hash,
    )
    row.subject = key.tenant  # an indexed column: listing a tenant's keys is one query
    return row
