"""Erasing working memory: whole users through the store's owner index, single sessions
and old sessions through its list of sessions (each with the scope its writes carried)."""

from __future__ import annotations

from sedimem.scope import Scope
from sedimem.storage.working.base import IdleSession, SessionRef, WorkingStore

__all__ = ["drop_listed", "matching_sessions"]

_PAGE = 500


def _scope(idle: IdleSession, tenant: str) -> Scope | None:
    scope = Scope.from_canonical(idle.scope)
    if scope is None or scope.tenant != tenant or scope.digest != idle.digest:
        return None  # never act on another tenant's session, nor on text not its own
    return scope


async def matching_sessions(
    working: WorkingStore,
    tenant: str,
    *,
    user: str | None,
    session: str | None,
    cutoff: float | None,
    now: float,
) -> list[SessionRef]:
    """The sessions erasing by a session name or a cutoff (sessions last written before it)
    reaches, paging through the tenant's sessions. Listed before anything is erased: a
    store that cannot list them at the moment (Redis in an outage) lists none, which the
    caller must be able to tell from none existing (``using_fallback`` after the call)."""
    idle_seconds = 0.0 if cutoff is None else max(0.0, now - cutoff)
    found: list[SessionRef] = []
    after: str | None = None
    while True:
        page = await working.idle_sessions(tenant, idle_seconds, now, _PAGE, after)
        for idle in page:
            scope = _scope(idle, tenant)
            if scope is None:
                continue
            if (user is None or scope.user == user) and (
                session is None or scope.session == session
            ):
                found.append(SessionRef(idle.digest, tenant, scope.user, 0.0, idle.scope))
        if len(page) < _PAGE:
            break
        after = page[-1].cursor
    return found


async def drop_listed(working: WorkingStore, sessions: list[SessionRef]) -> int:
    """Remove ``sessions`` (live state and checkpoints; during an outage the fallback's
    journal carries each drop to Redis); return how many."""
    for ref in sessions:  # after listing: dropping while paging would shift the cursor
        await working.drop_session(ref)
    return len(sessions)
