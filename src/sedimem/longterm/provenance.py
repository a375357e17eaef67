"""Provenance stays inside the writer's reach: a record may cite only episodes its scope
can read.

A fact's or procedure's ``source_episode_ids`` drive erasure (erasing an episode erases or
re-derives what cites it). Were any id accepted, a user could cite another user's private
episode, or one of another tenant, and tie their own record to someone else's erasure. So
each cited id must name an episode of the record's tenant that the record's own scope may
read (the visibility rule of :mod:`sedimem.scope`); otherwise nothing is written and the
refusal names the field. Episodes the scope cannot read are reported exactly like ones
that do not exist: the refusal must not tell a guesser which ids are real.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sedimem.errors import ValidationError
from sedimem.longterm import records
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter

__all__ = ["check_sources", "episode_times"]

_PAGE = 1000


async def check_sources(
    store: LongTermStore, scope: Scope, ids: Sequence[str], field: str = "source_episode_ids"
) -> float | None:
    """Refuse ``ids`` unless each names an episode ``scope`` can read; return when the
    latest of them occurred (epoch seconds; ``None`` without sources): what the record
    says was said then."""
    found = await episode_times(store, scope.tenant, ids, visible_to=scope)
    missing = [i for i in sorted(set(ids)) if i not in found]
    if missing:
        shown = ", ".join(missing[:5])
        if len(missing) > 5:
            shown += f" and {len(missing) - 5} more"
        raise ValidationError(
            field,
            f"names episodes that do not exist or that this scope cannot read: {shown}",
            allowed="ids of episodes of this tenant that the writer's scope can read",
        )
    return max(found.values(), default=None)


async def episode_times(
    store: LongTermStore, tenant: str, ids: Iterable[str], *, visible_to: Scope | None = None
) -> dict[str, float]:
    """When each episode of ``ids`` that exists (and ``visible_to`` may read) occurred,
    by id, read a page of ids at a time."""
    wanted = sorted(set(ids))
    found: dict[str, float] = {}
    for start in range(0, len(wanted), _PAGE):
        chunk = tuple(wanted[start : start + _PAGE])
        flt = RecordFilter(kind=records.EPISODE, ids=chunk, visible_to=visible_to)
        found.update(
            (row.id, row.occurred_at) for row in await store.find(tenant, flt, limit=len(chunk))
        )
    return found
