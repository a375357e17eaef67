"""psycopg's exceptions, translated into sedimem's at the store boundary."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg_pool import PoolTimeout

from sedimem.errors import StoreError, StoreUnavailable, ValidationError

__all__ = ["is_connection_failure", "translated"]

#: SQLSTATEs meaning "the server is gone or not accepting us" (besides class 08): shut down,
#: crashed, starting up, or read-only (25006: a write reached a standby, as it can during a
#: failover, before the new primary is promoted; the same call succeeds once it is).
_UNAVAILABLE_STATES = frozenset({"57P01", "57P02", "57P03", "25006"})


def is_connection_failure(exc: psycopg.Error) -> bool:
    """A lost or refused connection (not a failed statement)."""
    state = exc.sqlstate
    if state == "25006":  # ReadOnlySqlTransaction is an InternalError
        return True
    if not isinstance(exc, psycopg.OperationalError):
        return False
    return state is None or state.startswith("08") or state in _UNAVAILABLE_STATES


@contextmanager
def translated(action: str, *, field: str = "records") -> Iterator[None]:
    """Run a block, turning driver errors into StoreUnavailable / ValidationError / StoreError.

    ``field`` names the input blamed when a value is rejected (SQLSTATE class 22, or a
    value the driver cannot send, such as text holding NUL).
    """
    try:
        yield
    except PoolTimeout as exc:
        raise StoreUnavailable(f"PostgreSQL long-term store: {action}: {exc}") from exc
    except psycopg.Error as exc:
        message = f"PostgreSQL long-term store: {action}: {exc}".strip()
        if is_connection_failure(exc):
            raise StoreUnavailable(message) from exc
        if isinstance(exc, psycopg.DataError):
            raise ValidationError(field, str(exc).strip()) from exc
        raise StoreError(message) from exc
