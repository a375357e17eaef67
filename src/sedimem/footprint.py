"""How much memory a scope holds: statistics and a profile, from count queries.

Counting is not reading: a view that names no user (a tenant-wide or project-wide view,
what an unnarrowed key asks for) counts every user's records, so the tenant's figures add up
to the sum of its users'; ``by_user`` splits them per user. A view naming a user counts what
that user sees (their own records and those naming no user), as every read does. Content
(the profile's facts sample) always follows the visibility rule.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from sedimem.blocks import BLOCK
from sedimem.clock import utc_from_timestamp
from sedimem.errors import ValidationError
from sedimem.longterm.records import EPISODE, FACT, PROCEDURE, fact_from_row
from sedimem.scope import Scope
from sedimem.storage.longterm.base import LongTermStore, RecordFilter
from sedimem.types.longterm import Fact

__all__ = ["Counts", "MemoryProfile", "MemoryStats", "UserCounts", "count", "profile"]


class Counts(BaseModel):
    """Records per tier."""

    model_config = ConfigDict(frozen=True)

    episodes: int = Field(description="Episodes.")
    facts: int = Field(description="Facts, every version (superseded and retired ones too).")
    current_facts: int = Field(description="Facts believed now.")
    procedures: int = Field(description="Procedures.")


class UserCounts(Counts):
    """The records of one user (``None``: the records naming no user)."""

    user: str | None = Field(description="The user (unset: the records naming no user).")


class MemoryStats(Counts):
    """How much a scope holds, counted in the stores (nothing is fetched).

    With no user named, the counts cover every user's records (a tenant-wide view);
    ``by_user`` (when asked for) splits them per user and adds up to them."""

    model_config = ConfigDict(frozen=True)

    tenant: str = Field(description="The tenant counted in.")
    user: str | None = Field(default=None, description="Whose view; unset: every user's.")
    working_backend: str = Field(description="The working store's name.")
    using_fallback: bool = Field(description="Whether working memory runs on its fallback.")
    longterm_backend: str = Field(description="The long-term store's name.")
    by_user: list[UserCounts] | None = Field(
        default=None, description="The counts per user, when asked for (`by_user`)."
    )


class MemoryProfile(BaseModel):
    """A user's (or any scope's) footprint, computed with count queries and small pages."""

    model_config = ConfigDict(frozen=True)

    scope: Scope = Field(description="The scope profiled.")
    episodes: int = Field(description="Episodes it sees.")
    facts: int = Field(description="Facts it sees, every version.")
    current_facts: int = Field(description="Facts it sees that are believed now.")
    procedures: int = Field(description="Procedures it sees.")
    blocks: int = Field(description="Its pinned blocks.")
    first_seen: datetime | None = Field(description="When its oldest episode occurred.")
    last_seen: datetime | None = Field(description="When its newest episode occurred.")
    recent_sessions: list[str] = Field(description="The sessions of its newest episodes.")
    facts_sample: list[Fact] = Field(
        description="Facts visible to the scope (with no user named: facts naming no user)."
    )


def counting(scope: Scope, kind: str, *, current: bool = False) -> RecordFilter:
    """The records a view of ``scope`` counts: every user's when it names no user."""
    return RecordFilter(kind=kind, visible_to=scope, current=current, all_users=scope.user is None)


_TIERS = ((EPISODE, False), (FACT, False), (FACT, True), (PROCEDURE, False))


async def count(
    store: LongTermStore, scope: Scope, *, by_user: bool = False
) -> tuple[Counts, list[UserCounts] | None]:
    """The scope's counts per tier and, with ``by_user``, the same per user (sorted, the
    records naming no user first); the totals are the sums of the users' counts."""
    tenant = scope.tenant
    if not by_user:
        totals = await asyncio.gather(
            *(store.count(tenant, counting(scope, k, current=c)) for k, c in _TIERS)
        )
        return Counts(**dict(zip(Counts.model_fields, totals, strict=True))), None
    split = await asyncio.gather(
        *(store.count_by_user(tenant, counting(scope, k, current=c)) for k, c in _TIERS)
    )
    users = sorted({u for per in split for u in per}, key=lambda u: (u is not None, u or ""))
    rows = [
        UserCounts(
            user=user,
            **dict(zip(Counts.model_fields, (per.get(user, 0) for per in split), strict=True)),
        )
        for user in users
    ]
    sums = (sum(per.values()) for per in split)
    return Counts(**dict(zip(Counts.model_fields, sums, strict=True))), rows


async def profile(store: LongTermStore, scope: Scope, *, sample: int = 10) -> MemoryProfile:
    """Counts per tier, first and last seen, recent sessions and a sample of facts."""
    if not 0 <= sample <= 100:
        raise ValidationError("sample", f"{sample} is out of range", allowed="0..100")
    tenant = scope.tenant
    episodes = counting(scope, EPISODE)
    # independent reads: let a pooled store (PostgreSQL) run them side by side
    first, recent, facts, (counts, _), blocks = await asyncio.gather(
        store.find(tenant, episodes, limit=1),
        store.find(tenant, episodes, limit=50, newest_first=True),
        store.find(
            tenant,
            RecordFilter(kind=FACT, visible_to=scope, current=True),
            limit=max(sample, 1),
            newest_first=True,
        ),
        count(store, scope),
        store.count(tenant, counting(scope, BLOCK)),
    )
    return MemoryProfile(
        scope=scope,
        **counts.model_dump(),
        blocks=blocks,
        first_seen=utc_from_timestamp(first[0].occurred_at) if first else None,
        last_seen=utc_from_timestamp(max(r.occurred_at for r in recent)) if recent else None,
        recent_sessions=list(dict.fromkeys(r.session for r in recent if r.session))[:10],
        facts_sample=[fact_from_row(r) for r in facts[:sample]],
    )
