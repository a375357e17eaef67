"""A :class:`RecordFilter` as a SQL ``WHERE`` clause: tenant first, every condition bound.

Every clause starts with ``tenant = %s`` (the leading column of every index) and values
are always parameters, never spliced into the text.
"""

from __future__ import annotations

from typing import Any, LiteralString

from psycopg import sql

from sedimem.storage.longterm.base import RecordFilter

__all__ = ["HANDLE_CLAUSE", "Where", "record_where"]

#: A sedimem-made id (``sedimem.ids.ID_LENGTH``) with this handle (its last
#: ``HANDLE_LENGTH`` characters): literal text, as every clause is (a test checks the two).
HANDLE_CLAUSE: LiteralString = "right(id, 10) = %s AND length(id) = 36"

#: Scope fields whose unset value (on either side) matches anything (not ``session``: on a
#: long-term record it is provenance, never a boundary).
_SHARED_SCOPE_FIELDS = ("project", "agent_type", "agent")

#: RecordFilter fields that are plain equality on the column of the same name.
_EQUALITY_FIELDS = (
    "kind",
    "user",
    "session",
    "outcome",
    "task_type",
    "subject",
    "predicate",
    "name",
)


class Where:
    """Conditions joined by ``AND`` with their parameters, in order.

    ``shape`` tells clauses apart without composing them (two clauses of the same shape
    differ only in their parameters): a key for caching the statements built around them.
    """

    def __init__(self, tenant: str) -> None:
        self.parts: list[sql.Composable] = [sql.SQL("tenant = %s")]
        self.params: list[Any] = [tenant]
        self._shape: list[str] = []

    def add(self, fragment: LiteralString | sql.Composable, *params: Any) -> None:
        if isinstance(fragment, str):
            self.parts.append(sql.SQL(fragment))
            self._shape.append(fragment)
        else:
            self.parts.append(fragment)
            self._shape.append(repr(fragment))
        self.params.extend(params)

    @property
    def shape(self) -> tuple[str, ...]:
        return tuple(self._shape)

    @property
    def clause(self) -> sql.Composable:
        return sql.SQL(" AND ").join(self.parts)


def record_where(tenant: str, flt: RecordFilter) -> Where:
    """The clause selecting ``tenant``'s records that match ``flt``."""
    where = Where(tenant)
    for field in _EQUALITY_FIELDS:
        value = getattr(flt, field)
        if value is not None:
            where.add(sql.SQL("{} = %s").format(sql.Identifier(field)), value)
    if flt.visible_to is not None:
        scope = flt.visible_to
        for field in _SHARED_SCOPE_FIELDS:
            value = getattr(scope, field)
            if value is not None:
                where.add(sql.SQL("({0} IS NULL OR {0} = %s)").format(sql.Identifier(field)), value)
        if flt.all_users:
            pass
        elif scope.user is None:
            where.add('"user" IS NULL')
        else:
            where.add('("user" IS NULL OR "user" = %s)', scope.user)
    if flt.ids is not None:
        where.add("id = ANY(%s::text[])", list(flt.ids))
    if flt.handle is not None:
        # the expression of the sedimem_lt_records_handle index, spelled the same
        where.add(HANDLE_CLAUSE, flt.handle)
    if flt.names is not None:
        where.add("name = ANY(%s::text[])", list(flt.names))
    if flt.predicates is not None:
        where.add("predicate = ANY(%s::text[])", list(flt.predicates))
    if flt.occurred_from is not None:
        where.add("occurred_at >= %s", flt.occurred_from)
    if flt.occurred_before is not None:
        where.add("occurred_at < %s", flt.occurred_before)
    if flt.min_importance is not None:
        where.add("importance >= %s", flt.min_importance)
    if flt.valid_at is not None:
        where.add(
            "valid_from <= %s AND (valid_to IS NULL OR valid_to > %s)", flt.valid_at, flt.valid_at
        )
    if flt.known_at is not None:
        where.add(
            "recorded_at <= %s AND (invalidated_at IS NULL OR invalidated_at > %s)",
            flt.known_at,
            flt.known_at,
        )
    if flt.current:
        where.add("invalidated_at IS NULL")
    if flt.derived_from is not None:
        where.add("sources && %s::text[]", list(flt.derived_from))
    return where
