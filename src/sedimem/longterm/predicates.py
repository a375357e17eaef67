"""Which predicates hold one value at a time: configured defaults, then per tenant.

The defaults come from the settings (``SEDIMEM_FACTS__SINGLE_VALUED``...). A tenant's own
declarations live in the long-term store (one internal record per tenant, edited under a
lock), so every process and server on the store sees a declaration from its next write on.
A declaration wins over the defaults, in both directions ("many" makes a default
single-valued predicate accumulate).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import cast

from sedimem.errors import LimitExceeded, PermissionDenied
from sedimem.ids import new_id
from sedimem.longterm.records import normalise
from sedimem.scope import Scope
from sedimem.storage.longterm.base import (
    LongTermStore,
    RecordFilter,
    StoredRecord,
    internal_record,
)
from sedimem.types.edits import (
    MAX_DECLARED_PREDICATES,
    PredicateCardinalities,
    PredicateDeclaration,
)
from sedimem.types.longterm import Cardinality

__all__ = ["PREDICATES_KIND", "Predicates"]

#: The kind of the internal record holding a tenant's declarations (never searched).
PREDICATES_KIND = "predicates"
_NAME = "cardinality"
_LOCK = "predicates:cardinality"


def _declared(rows: Sequence[StoredRecord]) -> tuple[StoredRecord | None, dict[str, Cardinality]]:
    if not rows:
        return None, {}
    row = min(rows, key=lambda r: r.id)  # two first writers raced: the older one is it
    return row, cast(dict[str, Cardinality], json.loads(row.body))


class Predicates:
    """The cardinality of predicates, per tenant."""

    def __init__(self, store: LongTermStore, defaults: frozenset[str]) -> None:
        self._store = store
        self._defaults = frozenset(normalise(p) for p in defaults)

    @property
    def defaults(self) -> frozenset[str]:
        return self._defaults

    async def declared(self, tenant: str) -> dict[str, Cardinality]:
        """The tenant's own declarations (normalised predicate -> cardinality)."""
        flt = RecordFilter(kind=PREDICATES_KIND, name=_NAME)
        return _declared(await self._store.find(tenant, flt, limit=5))[1]

    def decide(self, predicate: str, declared: Mapping[str, Cardinality]) -> Cardinality:
        """The cardinality of ``predicate`` for a tenant with these declarations."""
        name = normalise(predicate)
        default: Cardinality = "one" if name in self._defaults else "many"
        return declared.get(name, default)

    async def describe(self, tenant: str) -> PredicateCardinalities:
        declared = await self.declared(tenant)
        return self._describe(declared)

    async def declare(
        self, predicates: Sequence[str], cardinality: Cardinality, *, scope: Scope
    ) -> PredicateCardinalities:
        """Declare ``predicates`` single- (``one``) or multi-valued (``many``) for the scope's
        tenant. Tenant-wide: a scope naming a project, user, agent type, agent or session is
        refused, since the declaration would change what every other scope's writes do."""
        declaration = PredicateDeclaration(predicates=list(predicates), cardinality=cardinality)
        narrowed = [
            f"{n}={getattr(scope, n)!r}"
            for n in ("project", "user", "agent_type", "agent", "session")
            if getattr(scope, n) is not None
        ]
        if narrowed:
            raise PermissionDenied(
                "predicate cardinality applies to the whole tenant; a scope narrowed to "
                + ", ".join(narrowed)
                + " cannot declare it (use a tenant-wide key)"
            )
        names = {normalise(p) for p in declaration.predicates}
        result: list[dict[str, Cardinality]] = []

        def decide(rows: list[StoredRecord]) -> Sequence[StoredRecord]:
            row, declared = _declared(rows)
            declared = {**declared, **dict.fromkeys(names, declaration.cardinality)}
            if len(declared) > MAX_DECLARED_PREDICATES:
                raise LimitExceeded(
                    "predicates",
                    f"the tenant would declare {len(declared)} predicates",
                    allowed=f"at most {MAX_DECLARED_PREDICATES} per tenant",
                )
            result.append(declared)
            body = json.dumps(declared, sort_keys=True)
            record_id = new_id() if row is None else row.id
            return [
                internal_record(PREDICATES_KIND, scope.tenant, record_id, body, 0.0, name=_NAME)
            ]

        await self._store.update_locked(
            scope.tenant, _LOCK, RecordFilter(kind=PREDICATES_KIND, name=_NAME), decide
        )
        return self._describe(result[0])

    def _describe(self, declared: Mapping[str, Cardinality]) -> PredicateCardinalities:
        single = {p for p in self._defaults if declared.get(p, "one") == "one"}
        single |= {p for p, c in declared.items() if c == "one"}
        return PredicateCardinalities(
            defaults=sorted(self._defaults), declared=dict(sorted(declared.items())),
            single_valued=sorted(single),
        )  # fmt: skip
