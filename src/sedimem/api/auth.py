"""Who is calling: an API key (``Authorization: Bearer sdm_...``) or the admin key.

The tenant of every request comes from its key and nothing else (a ``tenant`` in a body or
a query string is refused as an unknown field). Missing or unusable credentials get 401 with a
``WWW-Authenticate: Bearer`` challenge; a valid credential asking for more than it may
gets 403. Only the HTTP side lives here: who the credential stands for (its
:class:`~sedimem.access.Access`); what that access may do is decided by the services.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from sedimem.access import Access
from sedimem.api.problems import Unauthenticated
from sedimem.api.state import MemoryDep, SettingsDep
from sedimem.api.throttle import mark_failed
from sedimem.config import Settings
from sedimem.errors import PermissionDenied
from sedimem.keys import ApiKey

__all__ = [
    "Admin",
    "AdminOrCaller",
    "Caller",
    "Writer",
    "authenticate",
    "is_admin",
    "require_admin",
]

api_key_scheme = HTTPBearer(
    scheme_name="ApiKey",
    description="An API key issued by `POST /v1/keys`: `Authorization: Bearer sdm_...`.",
    auto_error=False,
)
admin_scheme = HTTPBearer(
    scheme_name="AdminKey",
    description="The server's admin key (`SEDIMEM_ADMIN_KEY`).",
    auto_error=False,
)

Credentials = HTTPAuthorizationCredentials | None


def is_admin(settings: Settings, token: str) -> bool:
    """Whether ``token`` is the configured admin key (compared in constant time)."""
    expected = settings.admin_key
    if expected is None:
        return False
    try:
        # ASGI hands headers over decoded as latin-1: this recovers the bytes sent
        sent = token.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return hmac.compare_digest(sent, expected.get_secret_value().encode())


async def authenticate(
    credentials: Annotated[Credentials, Depends(api_key_scheme)], memory: MemoryDep
) -> ApiKey:
    """The live API key the request carries."""
    if credentials is None:
        raise Unauthenticated("an API key is required: Authorization: Bearer <key>")
    try:
        return await memory.keys.authenticate(credentials.credentials)
    except PermissionDenied as exc:
        raise Unauthenticated(str(exc)) from exc


async def authenticate_writer(
    request: Request, key: Annotated[ApiKey, Depends(authenticate)]
) -> ApiKey:
    """The caller's key, refused when it is read-only (the key's own property, checked on
    its access): for routes that write through a service call that takes a scope, not an
    access."""
    route = getattr(request.scope.get("route"), "path", request.url.path)
    key.access.require_writer(f"{request.method} {route}")
    return key


async def require_admin(
    request: Request,
    credentials: Annotated[Credentials, Depends(admin_scheme)],
    settings: SettingsDep,
    memory: MemoryDep,
) -> Access:
    """The operator's access for the admin key; for a tenant's API key, that key's access
    (the service refuses what only the operator may do, as for every interface)."""
    if credentials is None:
        raise Unauthenticated("the admin key is required: Authorization: Bearer <admin key>")
    if settings.admin_key is None:
        raise PermissionDenied(
            "no admin key is configured on this server (SEDIMEM_ADMIN_KEY)", field="admin"
        )
    if is_admin(settings, credentials.credentials):
        return Access.local()
    try:
        return (await memory.keys.authenticate(credentials.credentials)).access
    except PermissionDenied as exc:  # neither the admin key nor an API key
        mark_failed(request)  # a guess of the admin key: throttled per address
        raise PermissionDenied("this route needs the admin key", field="admin") from exc


async def admin_or_caller(
    admin: Annotated[Credentials, Depends(admin_scheme)],
    credentials: Annotated[Credentials, Depends(api_key_scheme)],
    settings: SettingsDep,
    memory: MemoryDep,
) -> Access:
    """The operator's access for the admin key, else the caller's key's."""
    if admin is not None and is_admin(settings, admin.credentials):
        return Access.local()
    return (await authenticate(credentials, memory)).access


#: The caller's key; what it may do is the services' call (read-only included, for the
#: operations that take its ``access``).
Caller = Annotated[ApiKey, Depends(authenticate)]
#: The caller's key, refused at once when read-only (routes writing through a scope).
Writer = Annotated[ApiKey, Depends(authenticate_writer)]
Admin = Annotated[Access, Depends(require_admin)]
AdminOrCaller = Annotated[Access, Depends(admin_or_caller)]
