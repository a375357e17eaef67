"""Who is calling: an API key (``Authorization: Bearer sdm_...``) or the admin key.

The tenant of every request comes from its key and nothing else (a ``tenant`` in a body or
a query string is refused as an unknown field). Missing or unusable credentials get 401 with a
``WWW-Authenticate: Bearer`` challenge; a valid credential asking for more than it may
gets 403.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

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
    "authenticate",
    "is_admin",
    "writes",
    "require_admin",
    "require_unnarrowed",
    "require_user_at_most",
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


#: Routes that take a body (so a POST) but only read: a read-only key may call them.
READING_POSTS = frozenset({"/v1/recall", "/v1/context", "/v1/procedures/match", "/v1/reflect"})
_READING_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def writes(request: Request) -> bool:
    """Whether the request may change what is stored (a read-only key may not send it)."""
    route = request.scope.get("route")
    path = getattr(route, "path", request.url.path)
    return request.method not in _READING_METHODS and path not in READING_POSTS


async def authenticate(
    request: Request,
    credentials: Annotated[Credentials, Depends(api_key_scheme)],
    memory: MemoryDep,
) -> ApiKey:
    """The live API key the request carries (a read-only key: on a reading route only)."""
    if credentials is None:
        raise Unauthenticated("an API key is required: Authorization: Bearer <key>")
    try:
        key = await memory.keys.authenticate(credentials.credentials)
    except PermissionDenied as exc:
        raise Unauthenticated(str(exc)) from exc
    if writes(request):
        key.require_writer(f"{request.method} {getattr(request.scope.get('route'), 'path', '')}")
    return key


async def require_admin(
    request: Request,
    credentials: Annotated[Credentials, Depends(admin_scheme)],
    settings: SettingsDep,
) -> None:
    if credentials is None:
        raise Unauthenticated("the admin key is required: Authorization: Bearer <admin key>")
    if settings.admin_key is None:
        raise PermissionDenied("no admin key is configured on this server (SEDIMEM_ADMIN_KEY)")
    if not is_admin(settings, credentials.credentials):
        mark_failed(request)  # a guess of the admin key: throttled per address
        raise PermissionDenied("this route needs the admin key")


async def admin_or_caller(
    request: Request,
    admin: Annotated[Credentials, Depends(admin_scheme)],
    credentials: Annotated[Credentials, Depends(api_key_scheme)],
    settings: SettingsDep,
    memory: MemoryDep,
) -> ApiKey | None:
    """``None`` for the admin, else the caller's API key."""
    if admin is not None and is_admin(settings, admin.credentials):
        return None
    return await authenticate(request, credentials, memory)


def require_unnarrowed(key: ApiKey, operation: str) -> None:
    """Refuse a key narrowed below its tenant (an operation spanning the whole tenant)."""
    narrowed = [f for f in ("project", "user", "agent") if getattr(key, f) is not None]
    if narrowed:
        raise PermissionDenied(
            f"{operation} spans the tenant; this key is restricted to {', '.join(narrowed)}"
        )


def require_user_at_most(key: ApiKey, operation: str) -> None:
    """Refuse a key narrowed to a project or an agent (a user's data spans those)."""
    key.require_user_at_most(operation)


Caller = Annotated[ApiKey, Depends(authenticate)]
Admin = Annotated[None, Depends(require_admin)]
AdminOrCaller = Annotated[ApiKey | None, Depends(admin_or_caller)]
