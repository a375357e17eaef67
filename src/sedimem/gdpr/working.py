"""Erasing working memory: whole users through the store's owner index, single sessions
and old sessions through its list of sessions (each with the scope its writes carried)."""

from __future__ import annotations

from sedimem.scope import Scope
from sedimem.storage.working.base import IdleSession, SessionRef, WorkingStore

__all__ = ["drop_working"]

_PAGE = 500


def _scope(idle: IdleSession, tenant: str) -> Scope | None:
    scope = Scope.from_canonical(idle.scope)
    if scope is None or scope.tenant != tenant or scope.digest != idle.digest:
        return None  # never act on another tenant's session, nor on text not its own
    return scope


async def drop_working(
    working: WorkingStore,
    tenant: str,
    *,
    user: str | None,
    session: str | None,
    cutoff: float | None,
    now: float,
) -> int:
    """Remove the matching sessions (live state and checkpoints); return how many.

    A whole user (``user`` alone) goes through ``drop_sessions``, which also reaches
    sessions whose live state expired while checkpoints remain. A session name or a cutoff
    (sessions last written before it) pages through the tenant's sessions; a store that
    cannot list sessions at the moment (Redis in an outage) lists none.
    """
    if session is None and cutoff is None:
        return await working.drop_sessions(tenant, user)
    idle_seconds = 0.0 if cutoff is None else max(0.0, now - cutoff)
    doomed: list[SessionRef] = []
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
                doomed.append(SessionRef(idle.digest, tenant, scope.user, 0.0, idle.scope))
        if len(page) < _PAGE:
            break
        after = page[-1].cursor
    for ref in doomed:  # after listing: dropping while paging would shift the cursor
        await working.drop_session(ref)
    return len(doomed)
