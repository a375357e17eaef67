"""A :class:`RecordFilter` as a SQL condition on ``lt_record`` (alias ``r``).

The tenant always comes first and from the caller, never from the filter (a ``visible_to``
scope naming another tenant narrows nothing and widens nothing). Id lists travel as one
JSON parameter (``json_each``), so no filter can hit SQLite's limit on bound variables.
"""

from __future__ import annotations

import json
from typing import Any

from sedimem.storage.longterm.base import RecordFilter

__all__ = ["VISIBILITY_FIELDS", "where"]

#: Scope fields on which a record is visible when either side is unset or both are equal
#: (not ``session``: on a long-term record it is provenance, never a boundary).
VISIBILITY_FIELDS = ("project", "agent_type", "agent")

_EQUAL = ("user", "session", "outcome", "task_type", "subject", "predicate", "name")


def where(tenant: str, flt: RecordFilter) -> tuple[str, list[Any]]:
    """``(condition, parameters)`` selecting the tenant's records that match ``flt``."""
    # Provenance selects a handful of rows: the lookup must start from it. Without this the
    # planner walks the (tenant, kind, id) index for its order, every fact of the tenant
    # (SQLite's unary ``+`` keeps a column's index out of the plan and changes nothing else).
    lead = "+" if flt.derived_from is not None else ""
    clauses = [f"{lead}r.tenant = ?"]
    params: list[Any] = [tenant]

    def add(clause: str, *values: Any) -> None:
        clauses.append(clause)
        params.extend(values)

    if flt.kind is not None:
        add(f"{lead}r.kind = ?", flt.kind)
    scope = flt.visible_to
    if scope is not None:
        for field in VISIBILITY_FIELDS:
            value = getattr(scope, field)
            if value is not None:
                add(f"(r.{field} IS NULL OR r.{field} = ?)", value)
        if flt.all_users:  # counting over every user: no user condition
            pass
        elif scope.user is None:
            add("r.user IS NULL")
        else:
            add("(r.user IS NULL OR r.user = ?)", scope.user)
    for field in _EQUAL:
        value = getattr(flt, field)
        if value is not None:
            add(f"r.{field} = ?", value)
    if flt.names is not None:
        add("r.name IN (SELECT value FROM json_each(?))", json.dumps(list(flt.names)))
    if flt.ids is not None:
        add("r.id IN (SELECT value FROM json_each(?))", json.dumps(list(flt.ids)))
    if flt.occurred_from is not None:
        add("r.occurred_at >= ?", flt.occurred_from)
    if flt.occurred_before is not None:
        add("r.occurred_at < ?", flt.occurred_before)
    if flt.min_importance is not None:
        add("r.importance >= ?", flt.min_importance)
    if flt.valid_at is not None:
        add("r.valid_from <= ? AND (r.valid_to IS NULL OR r.valid_to > ?)", *[flt.valid_at] * 2)
    if flt.known_at is not None:
        add(
            "r.recorded_at <= ? AND (r.invalidated_at IS NULL OR r.invalidated_at > ?)",
            *[flt.known_at] * 2,
        )
    if flt.current:
        add("r.invalidated_at IS NULL")
    if flt.derived_from is not None:
        add(
            "r.rid IN (SELECT s.rid FROM lt_source s WHERE s.tenant = ? "
            "AND s.source IN (SELECT value FROM json_each(?)))",
            tenant,
            json.dumps(list(flt.derived_from)),
        )
    return " AND ".join(clauses), params
