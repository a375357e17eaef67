"""A :class:`RecordFilter` as a SQL condition on ``lt_record`` (alias ``r``).

The tenant always comes first and from the caller, never from the filter (a ``visible_to``
scope naming another tenant narrows nothing and widens nothing). Id lists travel as one
JSON parameter (``json_each``), so no filter can hit SQLite's limit on bound variables.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from sedimem.ids import HANDLE_LENGTH, ID_LENGTH
from sedimem.storage.longterm.base import RecordFilter

__all__ = ["RANGE_ROWS", "VISIBILITY_FIELDS", "keyed", "narrow_range", "page_order", "where"]

#: Scope fields on which a record is visible when either side is unset or both are equal
#: (not ``session``: on a long-term record it is provenance, never a boundary).
VISIBILITY_FIELDS = ("project", "agent_type", "agent")

_EQUAL = ("user", "session", "outcome", "task_type", "subject", "predicate", "name")

#: A time range holding fewer records of its kind than this is read from the (tenant, kind,
#: time) index, its rows sorted for the page; a wider one by walking the kind in id order,
#: which meets a page of matches soon. SQLite keeps no statistics to choose between them, so
#: :func:`narrow_range` counts (at most this many index entries: ~0.3 ms).
RANGE_ROWS = 4096


def keyed(flt: RecordFilter) -> bool:
    """Whether ``flt`` names a handful of rows by an index of their own (a subject, a
    record's unique name): that index must lead the plan, not the kind's. SQLite keeps no
    statistics here, and with two indexes matching as many columns it took the kind's and
    walked every record of it: a session's end, which looks its episode up by name, read
    all 100k episodes of a long history (~250 ms)."""
    return flt.subject is not None or flt.name is not None or flt.names is not None


def page_order(
    conn: sqlite3.Connection, tenant: str, flt: RecordFilter, *, newest_first: bool = False
) -> str:
    """The ``ORDER BY`` of a page of ``flt``. A subject's or names' few rows, a name's or a
    session's when it holds fewer than :data:`RANGE_ROWS` records, are read by their own
    index and sorted (``+r.id``); otherwise the records are walked in id order, which meets
    a page of matches soon. Walking it for a session that holds less than a page read every
    record of the kind (a session's messages: ~300 ms at 100k episodes); sorting a session
    of 100k turns for a page of 50 would be as bad the other way."""
    few = False
    if flt.subject is not None or flt.names is not None:
        few = True
    elif flt.name is not None:  # a name may repeat: a job's run reports, one per run
        count = _counted(conn, "lt_record_name", "tenant = ? AND name = ?", [tenant, flt.name])
        few = count < RANGE_ROWS
    elif flt.session is not None and flt.kind is not None:
        session = [tenant, flt.session, flt.kind]
        count = _counted(
            conn, "lt_record_session_time", "tenant = ? AND session = ? AND kind = ?", session
        )
        few = count < RANGE_ROWS
    return f" ORDER BY {'+r.id' if few else 'r.id'}" + (" DESC" if newest_first else "")


def _counted(conn: sqlite3.Connection, index: str, condition: str, params: list[Any]) -> int:
    """How many entries of ``index`` match ``condition``, counting at most
    :data:`RANGE_ROWS` (~0.3 ms)."""
    inner = f"SELECT 1 FROM lt_record INDEXED BY {index} WHERE {condition} LIMIT ?"
    sql = f"SELECT COUNT(*) FROM ({inner})"
    return int(conn.execute(sql, [*params, RANGE_ROWS]).fetchone()[0])


def where(tenant: str, flt: RecordFilter, *, ranged: bool = True) -> tuple[str, list[Any]]:
    """``(condition, parameters)`` selecting the tenant's records that match ``flt``;
    ``ranged=False`` keeps the time index out of the plan (see :func:`narrow_range`)."""
    # Provenance selects a handful of rows: the lookup must start from it. Without this the
    # planner walks the (tenant, kind, id) index for its order, every fact of the tenant
    # (SQLite's unary ``+`` keeps a column's index out of the plan and changes nothing else).
    # A handle likewise names one or two rows: its index alone must be read.
    lead = "+" if flt.derived_from is not None or flt.handle is not None else ""
    clauses = [f"{lead}r.tenant = ?"]
    params: list[Any] = [tenant]

    def add(clause: str, *values: Any) -> None:
        clauses.append(clause)
        params.extend(values)

    if flt.kind is not None:
        add(f"{'+' if keyed(flt) else lead}r.kind = ?", flt.kind)
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
    if flt.predicates is not None:
        # placeholders, not json_each: the (tenant, subject, predicate) index can serve them
        marks = ", ".join("?" * len(flt.predicates))
        add(f"r.predicate IN ({marks})", *flt.predicates)
    if flt.ids is not None:
        add("r.id IN (SELECT value FROM json_each(?))", json.dumps(list(flt.ids)))
    if flt.handle is not None:
        # the expression of the lt_record_handle index, spelled the same
        add(f"substr(r.id, -{HANDLE_LENGTH}) = ? AND length(r.id) = {ID_LENGTH}", flt.handle)
    at = "r.occurred_at" if ranged else "+r.occurred_at"
    if flt.occurred_from is not None:
        add(f"{at} >= ?", flt.occurred_from)
    if flt.occurred_before is not None:
        add(f"{at} < ?", flt.occurred_before)
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


def narrow_range(conn: sqlite3.Connection, tenant: str, flt: RecordFilter) -> bool:
    """Whether a page of ``flt`` is best read through its time range: the range holds fewer
    than :data:`RANGE_ROWS` records of its kind, or the filter has no such range (or a more
    selective lead: session, ids, names, provenance). Without this, a live agent's "what
    happened this week" walked every earlier record in id order (270 ms at 100k), and with
    the time index alone a range spanning the history read and sorted all of them."""
    ranges = flt.occurred_from is not None or flt.occurred_before is not None
    leads = (flt.session, flt.ids, flt.handle, flt.names, flt.derived_from)
    led = any(value is not None for value in leads)
    if flt.kind is None or not ranges or led:
        return True
    condition = "tenant = ? AND kind = ?"
    params: list[Any] = [tenant, flt.kind]
    if flt.occurred_from is not None:
        condition += " AND occurred_at >= ?"
        params.append(flt.occurred_from)
    if flt.occurred_before is not None:
        condition += " AND occurred_at < ?"
        params.append(flt.occurred_before)
    return _counted(conn, "lt_record_time", condition, params) < RANGE_ROWS
